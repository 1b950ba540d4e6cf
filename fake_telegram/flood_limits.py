"""Telegram's flood limits for sends and edits: 30/s overall, 20/min per group, ~1/s per chat."""

from __future__ import annotations

import math
from collections import defaultdict, deque
from dataclasses import dataclass, field


@dataclass
class FloodLimits:
    """Sliding windows plus a token bucket for private chats; `check` before, `record` after."""

    overall_per_second: int = 30
    group_per_minute: int = 20
    private_per_second: float = 1.0
    # Telegram tolerates short bursts in one chat before answering 429.
    private_burst: int = 5
    _overall: deque[float] = field(default_factory=deque)
    _groups: defaultdict[int, deque[float]] = field(default_factory=lambda: defaultdict(deque))
    _buckets: dict[int, tuple[float, float]] = field(default_factory=dict)

    def check(self, chat_id: int | None, now: float) -> int | None:
        """Seconds to wait (Telegram's retry_after) if a send now would exceed a limit."""
        _expire(self._overall, now, 1.0)
        if len(self._overall) >= self.overall_per_second:
            return 1
        if chat_id is None:
            return None
        if chat_id < 0:
            window = self._groups[chat_id]
            _expire(window, now, 60.0)
            if len(window) >= self.group_per_minute:
                return max(1, math.ceil(window[0] + 60.0 - now))
            return None
        tokens = self._tokens(chat_id, now)
        if tokens < 1.0:
            return max(1, math.ceil((1.0 - tokens) / self.private_per_second))
        return None

    def record(self, chat_id: int | None, now: float) -> None:
        self._overall.append(now)
        if chat_id is None:
            return
        if chat_id < 0:
            self._groups[chat_id].append(now)
        else:
            self._buckets[chat_id] = (self._tokens(chat_id, now) - 1.0, now)

    def _tokens(self, chat_id: int, now: float) -> float:
        tokens, last = self._buckets.get(chat_id, (float(self.private_burst), now))
        return min(float(self.private_burst), tokens + (now - last) * self.private_per_second)


def _expire(window: deque[float], now: float, span: float) -> None:
    while window and now - window[0] >= span:
        window.popleft()
