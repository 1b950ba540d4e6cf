"""Rate limiting and update ordering tuned for a quiz bot.

Taps must be answered within seconds even while sends wait for Telegram's limits, so
answerCallbackQuery (which no chat limit covers) skips the send queue. Updates run
concurrently across users but in order for each user, so one slow chat never blocks others.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from telegram import Update
from telegram.error import RetryAfter
from telegram.ext import AIORateLimiter, BaseUpdateProcessor

log = logging.getLogger("bot.updates")
UNQUEUED = frozenset({"answerCallbackQuery", "getMe", "getUpdates", "getChatMember", "getFile"})


class CoachRateLimiter(AIORateLimiter):
    async def process_request(self, callback: Callable[..., Coroutine[Any, Any, Any]], args: Any,
                              kwargs: dict[str, Any], endpoint: str, data: dict[str, Any],
                              rate_limit_args: int | None) -> Any:
        if endpoint not in UNQUEUED:
            return await super().process_request(callback, args, kwargs, endpoint, data,
                                                  rate_limit_args)
        for attempt in range(3):
            try:
                return await callback(*args, **kwargs)
            except RetryAfter as exc:
                if attempt == 2:
                    raise
                await asyncio.sleep(exc.retry_after.total_seconds()
                                    if hasattr(exc.retry_after, "total_seconds")
                                    else float(exc.retry_after))
        return None


def limiter(*, group_max_rate: int = 20, overall_max_rate: int = 30) -> CoachRateLimiter:
    return CoachRateLimiter(overall_max_rate=overall_max_rate, overall_time_period=1,
                            group_max_rate=group_max_rate, group_time_period=60, max_retries=5)


def ordering_key(update: object) -> int | None:
    if isinstance(update, Update):
        if update.effective_user is not None:
            return update.effective_user.id
        if update.effective_chat is not None:
            return update.effective_chat.id
    return None


class PerUserUpdateProcessor(BaseUpdateProcessor):
    """Concurrent updates, but each user's (or chat's) updates one after another, in order."""

    def __init__(self, max_concurrent_updates: int = 256) -> None:
        super().__init__(max_concurrent_updates)
        self._locks: dict[int, tuple[asyncio.Lock, list[int]]] = {}

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        from bot.errors import describe

        started = time.perf_counter()
        key = ordering_key(update)
        if key is None:
            await coroutine
        else:
            lock, users = self._locks.setdefault(key, (asyncio.Lock(), [0]))
            users[0] += 1
            try:
                async with lock:
                    await coroutine
            finally:
                users[0] -= 1
                if users[0] == 0:
                    self._locks.pop(key, None)
        # One line per update: ids and route only, never the user's text.
        log.info("%s took_ms=%.1f", describe(update), (time.perf_counter() - started) * 1000)

    async def initialize(self) -> None:
        pass

    async def shutdown(self) -> None:
        pass
