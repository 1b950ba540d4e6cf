"""Runs the real Application against the fake Bot API server, the way run_polling would."""

from __future__ import annotations

import asyncio
import inspect
import random
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from apscheduler.jobstores.base import JobLookupError
from telegram.ext import Application, Job, JobQueue

from bot import telegram_limits
from bot.app import build_application, start_polling_app, stop_app
from bot.settings import Settings
from fake_telegram import FakeTelegram
from questions.loader import Bank
from tests.conftest import Clock, make_settings


class ClockTimers:
    """The round engine's JobQueue in tests: every timer is also due by the test clock.

    A timer still runs after its real delay; once the test clock has passed its time,
    `fire_due` runs it at once. Tests move the clock from timer to timer (`let_time_pass`) or by
    a set step (`elapse`) instead of waiting out question times on the real clock, and taps
    made before that stay in time.
    """

    def __init__(self, jobs: JobQueue, clock: Clock) -> None:
        self.jobs = jobs
        self.clock = clock
        self.pending: list[tuple[datetime, Job]] = []
        self.running = 0  # timers whose callbacks have not returned yet

    def run_once(self, callback, when: float, **kwargs) -> Job:
        async def tracked(context):
            self.running += 1
            try:
                await callback(context)
            finally:
                self.running -= 1

        job = self.jobs.run_once(tracked, when, **kwargs)
        self.pending.append((self.clock.now + timedelta(seconds=when), job))
        return job

    def get_jobs_by_name(self, name: str) -> tuple[Job, ...]:
        return self.jobs.get_jobs_by_name(name)

    def waiting(self, job: Job) -> bool:
        """Set and not yet run (a run_once job leaves the scheduler when it runs)."""
        return not job.removed and self.jobs.scheduler.get_job(job.job.id) is not None

    def run_next(self) -> None:
        """Move the clock on to the earliest timer still set (if it is ahead) and run it. Not
        while a timer is still running: on the real clock a timer's work takes milliseconds
        and the next one is seconds away, so the clock never overtakes a running timer."""
        if self.running:
            return
        live = [at for at, job in self.pending if self.waiting(job)]
        if live and (at := min(live)) > self.clock.now:
            self.clock.now = at
        self.fire_due()

    def fire_due(self) -> None:
        due = [job for at, job in self.pending if at <= self.clock.now]
        self.pending = [(at, job) for at, job in self.pending if at > self.clock.now]
        for job in due:
            if self.waiting(job):
                try:
                    job.job.modify(next_run_time=datetime.now(UTC))
                except JobLookupError:  # it ran or was removed meanwhile
                    pass


class BotRunner:
    """Start, stop and restart the bot on one database, like a deployed process."""

    def __init__(self, fake: FakeTelegram, tmp_path: Path, clock: Clock | None = None,
                 rate_limiter: Callable[[], telegram_limits.CoachRateLimiter] | None = None,
                 bank: Bank | None = None, **settings: object) -> None:
        self.fake = fake
        self.bank = bank  # a loaded bank to share between tests (else the settings' folder)
        self.clock = clock or Clock()
        # A factory: each start needs a fresh limiter. Tests of Telegram's limits pass the real one.
        self.rate_limiter = rate_limiter or (
            lambda: telegram_limits.limiter(group_max_rate=1000, overall_max_rate=1000))
        self.settings: Settings = make_settings(
            tmp_path, bot_api_base_url=fake.base_url, bot_api_base_file_url=fake.base_file_url,
            **settings)
        self.app: Application | None = None
        self.timers: ClockTimers | None = None
        self.rng = random.Random(3)

    @property
    def services(self):
        assert self.app is not None
        return self.app.bot_data["services"]

    async def start(self) -> Application:
        app = build_application(
            self.settings, bank=self.bank, clock=self.clock, rng=self.rng,
            # Tests check the fake's limits separately; here the limiter must never slow them.
            rate_limiter=self.rate_limiter(),
            polling_timeout=1)
        await start_polling_app(app, poll_seconds=1)
        self.app = app
        self.timers = None
        if (engine := app.bot_data.get("round_engine")) is not None:
            # Round timers come due by the test clock too (ClockTimers); the engine reads its
            # JobQueue for every timer it sets, so wrapping it here covers them all.
            self.timers = engine.jobs = ClockTimers(engine.jobs, self.clock)
        return app

    def elapse(self, **delta: float) -> None:
        """Move the test clock on and run the round timers that have come due."""
        self.clock.advance(**delta)
        if self.timers is not None:
            self.timers.fire_due()

    async def let_time_pass(self, until: Callable[[], object], *,
                            timeout: float = 10) -> object:  # noqa: ASYNC109
        """Until `until()` (a value, or an awaitable of one) is truthy, move the test clock on
        to each round timer's time in turn and run it; returns that value. What the test did
        before happened in no time, so its taps are always in time."""
        loop = asyncio.get_running_loop()
        give_up = loop.time() + timeout
        while True:
            value = until()
            if inspect.isawaitable(value):
                value = await value
            if value:
                return value
            if loop.time() > give_up:
                raise AssertionError(f"still waiting after {timeout} s of real time")
            if self.timers is not None:
                self.timers.run_next()
            await asyncio.sleep(0.01)

    async def stop(self) -> None:
        app, self.app = self.app, None
        if app is None:
            return
        await stop_app(app)

    async def restart(self) -> Application:
        await self.stop()
        return await self.start()
