"""Rate limiting and update ordering tuned for a quiz bot.

Taps must be answered within seconds even while sends wait for Telegram's limits, so
answerCallbackQuery (which no chat limit covers) skips the send queue. Updates run
concurrently across users but in order for each user, so one slow chat never blocks others.
"""

from __future__ import annotations

import asyncio
import logging
import time
import warnings
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

import httpx
from telegram import Update
from telegram.error import BadRequest, NetworkError, RetryAfter, TelegramError
from telegram.ext import AIORateLimiter, BaseUpdateProcessor

from bot.http import NOT_SENT
from storage import coordination
from storage.db import Database

log = logging.getLogger("bot.updates")
UNQUEUED = frozenset({"answerCallbackQuery", "getMe", "getUpdates", "getChatMember", "getFile"})
NETWORK_RETRIES = 3
NETWORK_BACKOFF = 0.5


class AtMostOnce:
    """`rate_limit_args` for a send that must never arrive twice (a daily reminder): network
    failures are retried only when the request surely did not reach Telegram."""


AT_MOST_ONCE = AtMostOnce()


def surely_not_sent(exc: NetworkError) -> bool:
    """True when the request cannot have reached Telegram, so sending it again cannot duplicate
    it: Telegram answered with an error status, or no connection was made."""
    cause = exc.__cause__
    if cause is None or isinstance(cause, TelegramError):
        return True  # an HTTP error status from Telegram (its body parsed or not)
    # The bot's own transport (bot/http.py), and PTB's default one (httpx).
    return isinstance(cause, (*NOT_SENT, httpx.ConnectError, httpx.ConnectTimeout,
                              httpx.PoolTimeout))


async def with_network_retries(endpoint: str, call: Callable[[], Coroutine[Any, Any, Any]], *,
                               at_most_once: bool = False) -> Any:
    """Retry 5xx answers and dropped connections a bounded number of times, with backoff.

    `at_most_once` leaves out failures after which the message may have arrived anyway (a
    timeout or a connection lost while waiting for the answer).
    """
    for attempt in range(NETWORK_RETRIES + 1):
        try:
            return await call()
        except BadRequest:
            raise  # Telegram understood and refused: retrying changes nothing
        except NetworkError as exc:
            if attempt == NETWORK_RETRIES or endpoint == "getUpdates" or (
                    at_most_once and not surely_not_sent(exc)):
                raise
            log.info("%s failed (%s); retry %d of %d", endpoint, type(exc).__name__,
                     attempt + 1, NETWORK_RETRIES)
            await asyncio.sleep(NETWORK_BACKOFF * 2**attempt)
    return None


def retry_seconds(exc: RetryAfter) -> float:
    with warnings.catch_warnings():  # PTB 22 warns that retry_after will become a timedelta
        warnings.simplefilter("ignore")
        value = exc.retry_after
    return value.total_seconds() if hasattr(value, "total_seconds") else float(value)


class CoachRateLimiter(AIORateLimiter):
    # Several instances on one database: Telegram's limits are per bot, so each send first takes
    # its turn from token buckets in the database (`share_budget`), instead of this process's.
    shared_db: Database | None = None
    wants_shared_budget = False  # set by shared_limiter()

    def share_budget(self, db: Database) -> None:
        self.shared_db = db

    async def _take_turn(self, data: dict[str, Any]) -> None:
        assert self.shared_db is not None
        buckets = [("all", SHARED_PER_SECOND, 1.0)]
        chat_id = data.get("chat_id")
        if (isinstance(chat_id, int) and chat_id < 0) or (
                isinstance(chat_id, str) and chat_id.startswith(("@", "-"))):
            buckets.append((f"chat:{chat_id}", SHARED_GROUP_PER_MINUTE / 60,
                            SHARED_GROUP_BURST))
        loop = asyncio.get_running_loop()
        for _ in range(MISSED_TURNS + 1):
            try:
                wait = await coordination.take_sends(self.shared_db, buckets)
            except Exception as exc:  # noqa: BLE001 - Telegram's 429 retries still stand behind
                log.warning("shared send budget unavailable (%s); sending unpaced",
                            type(exc).__name__)
                return
            turn = loop.time() + wait
            if wait > 0:
                await asyncio.sleep(wait)
            # A process that stalled (a busy loop, a pause) wakes with turns long past; sending
            # them all now would land beside the other instances' on-time sends. A missed turn
            # is let go and a new one taken.
            if loop.time() - turn <= 1 / SHARED_PER_SECOND:
                return

    async def _shared_turns(self, retried: Callable[..., Coroutine[Any, Any, Any]],
                            endpoint: str, data: dict[str, Any],
                            rate_limit_args: int | None) -> Any:
        """A send with a turn from the shared budget; after a 429 every instance pauses (the
        budget goes into debt for Telegram's retry_after) and the retry takes a new turn, so
        retries never come on top of the paced sends."""
        for attempt_no in range(SHARED_RETRIES + 1):
            await self._take_turn(data)
            try:
                return await super().process_request(retried, (), {}, endpoint, data,
                                                      rate_limit_args)
            except RetryAfter as exc:
                if attempt_no == SHARED_RETRIES:
                    raise
                seconds = retry_seconds(exc)
                log.info("%s: 429, every instance pauses %.1f s", endpoint, seconds)
                assert self.shared_db is not None
                try:
                    await coordination.pause_sends(self.shared_db, seconds=seconds)
                except Exception as error:  # noqa: BLE001 - then only this send waits
                    log.warning("could not pause the shared budget (%s)", type(error).__name__)
                    await asyncio.sleep(seconds)
        return None

    async def process_request(self, callback: Callable[..., Coroutine[Any, Any, Any]], args: Any,
                              kwargs: dict[str, Any], endpoint: str, data: dict[str, Any],
                              rate_limit_args: int | None) -> Any:
        async def attempt() -> Any:
            return await callback(*args, **kwargs)

        at_most_once = isinstance(rate_limit_args, AtMostOnce)
        if at_most_once:
            rate_limit_args = None  # AIORateLimiter's own reading: its default 429 retries

        async def retried(*_: Any, **__: Any) -> Any:
            return await with_network_retries(endpoint, attempt, at_most_once=at_most_once)

        if endpoint not in UNQUEUED:
            if self.shared_db is not None:
                return await self._shared_turns(retried, endpoint, data, rate_limit_args)
            return await super().process_request(retried, (), {}, endpoint, data,
                                                  rate_limit_args)
        for attempt_no in range(3):
            try:
                return await retried()
            except RetryAfter as exc:
                if attempt_no == 2:
                    raise
                await asyncio.sleep(retry_seconds(exc))
        return None


HEADROOM = 0.9  # of Telegram's overall limit, kept for jitter between our clock and Telegram's


def limiter(*, group_max_rate: int = 20, overall_max_rate: int = 30) -> CoachRateLimiter:
    """Never more than `overall_max_rate` sends in any one second overall.

    AIORateLimiter's buckets (aiolimiter) hold a whole period's worth on top of what drains:
    AsyncLimiter(30, 1) lets 30 through at once and 30 more within that second, and a burst of
    reminders then meets Telegram's 429. A bucket of one drains at a steady rate, one send at
    a time in the order they were queued. That rate keeps 10% headroom (27 a second for 30):
    Telegram counts sends by when they arrive, and a send delayed by the network or a busy
    event loop arrives next to the following one, so a rate of 29 by the limiter's own clock
    still met a 429 now and then. The group bucket is still the plain one: up to about twice
    `group_max_rate` can pass in a group's first busy minute.
    """
    steady = max(int(overall_max_rate * HEADROOM), 1)
    return CoachRateLimiter(overall_max_rate=1, overall_time_period=1 / steady,
                            group_max_rate=group_max_rate, group_time_period=60, max_retries=5)


# The shared budget (several instances): 27 sends a second overall, one at a time, as above; and
# per group 10 a minute after a burst of 10, so no 60 seconds ever hold more than Telegram's 20
# (the per-process group bucket above lets up to about 40 through in a group's first minute).
SHARED_PER_SECOND = 30 * HEADROOM
SHARED_GROUP_PER_MINUTE = 10
SHARED_GROUP_BURST = 10


SHARED_RETRIES = 5
MISSED_TURNS = 3  # after that many, send anyway: Telegram's 429 handling stands behind it


def shared_limiter() -> CoachRateLimiter:
    """For several instances: turns come from the database (`share_budget`, called once it is
    open). Each process also keeps its own steady pace (one send at a time at the same rate), so
    that a send its event loop delayed does not land next to the following one; and 429s are
    retried with a new turn (`_shared_turns`), not by AIORateLimiter."""
    shared = CoachRateLimiter(overall_max_rate=1, overall_time_period=1 / SHARED_PER_SECOND,
                              group_max_rate=0, max_retries=0)
    shared.wants_shared_budget = True
    return shared


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
