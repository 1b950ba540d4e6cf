"""The shared objects a running bot needs, built once and handed to handlers via the context."""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from bot.settings import Settings
from bot.texts import Texts
from questions.loader import Bank
from storage.db import Database


def utc_now() -> datetime:
    return datetime.now(UTC)


async def no_due_reviews(user_id: int, now: datetime) -> int:
    """Until a review feature fills `Services.due_reviews` in, nothing is due for review."""
    return 0


@dataclass
class Services:
    settings: Settings
    db: Database
    bank: Bank
    texts: Texts
    rng: random.Random = field(default_factory=random.Random)
    clock: Callable[[], datetime] = utc_now
    # How many review cards a user has due at a moment (shown in reminders). A review feature
    # replaces it in its on_startup: `services_of(app).due_reviews = ...`.
    due_reviews: Callable[[int, datetime], Awaitable[int]] = no_due_reviews

    def now(self) -> datetime:
        return self.clock()

    def language_for(self, stored: str | None, telegram_code: str | None) -> str:
        """The stored choice, else Telegram's language_code when it is en or tr, else the default."""
        if stored in ("en", "tr"):
            return stored
        code = (telegram_code or "").lower().split("-")[0]
        return code if code in ("en", "tr") else self.settings.default_language
