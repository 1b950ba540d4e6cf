"""Runs the real Application against the fake Bot API server, the way run_polling would."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

from telegram.ext import Application

from bot import telegram_limits
from bot.app import build_application, start_polling_app, stop_app
from bot.settings import Settings
from fake_telegram import FakeTelegram
from questions.loader import Bank
from tests.conftest import Clock, make_settings


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
        return app

    async def stop(self) -> None:
        app, self.app = self.app, None
        if app is None:
            return
        await stop_app(app)

    async def restart(self) -> Application:
        await self.stop()
        return await self.start()
