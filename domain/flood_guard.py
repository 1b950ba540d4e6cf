"""A per-user flood guard: more than `limit` updates in `window` seconds are dropped."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field


@dataclass
class FloodGuard:
    limit: int = 20
    window: float = 10.0
    max_users: int = 100_000
    _events: dict[int, deque[float]] = field(default_factory=dict)
    _warned: dict[int, float] = field(default_factory=dict)

    def allow(self, user_id: int, now: float) -> bool:
        """Record one update; False when the user is over the limit (the update is dropped)."""
        events = self._events.get(user_id)
        if events is None:
            if len(self._events) >= self.max_users:
                self._forget_idle(now)
            events = self._events[user_id] = deque()
        while events and now - events[0] >= self.window:
            events.popleft()
        if len(events) >= self.limit:
            return False
        events.append(now)
        return True

    def should_warn(self, user_id: int, now: float) -> bool:
        """One notice per flood: true only for the first dropped update in a window."""
        last = self._warned.get(user_id)
        if last is not None and now - last < self.window:
            return False
        self._warned[user_id] = now
        return True

    def _forget_idle(self, now: float) -> None:
        # Memory stays bounded however many users write once and leave.
        idle = [u for u, ev in self._events.items() if not ev or now - ev[-1] >= self.window]
        for user_id in idle:
            self._events.pop(user_id, None)
            self._warned.pop(user_id, None)
