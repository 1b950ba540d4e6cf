"""The shared objects a running bot needs, built once and handed to handlers via the context."""

from __future__ import annotations

import asyncio
import logging
import os
import random
import secrets
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from bot.settings import Settings
from bot.texts import Texts
from questions.loader import Bank
from storage.db import Database

log = logging.getLogger(__name__)


def utc_now() -> datetime:
    return datetime.now(UTC)


async def no_due_reviews(user_id: int, now: datetime) -> int:
    """Until a review feature fills `Services.due_reviews` in, nothing is due for review."""
    return 0


@dataclass
class Services:
    """Shared by every handler.

    The question bank can be replaced while the bot runs (/reload, an admin's upload): always
    read `services.bank` when you need it rather than keeping it. Data derived from the bank
    (an index, a matcher) can either remember `bank_version` and rebuild lazily when it
    changes, or register a callback with `on_bank_change`, called right after each swap.
    """

    settings: Settings
    db: Database
    bank: Bank
    texts: Texts
    rng: random.Random = field(default_factory=random.Random)
    clock: Callable[[], datetime] = utc_now
    # How many review cards a user has due at a moment (shown in reminders). A review feature
    # replaces it in its on_startup: `services_of(app).due_reviews = ...`.
    due_reviews: Callable[[int, datetime], Awaitable[int]] = no_due_reviews
    bank_version: int = 0
    bank_listeners: list[Callable[[Bank], None]] = field(default_factory=list)
    # Held while the bank folder is written or re-read, so imports and reloads take turns.
    bank_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    # Inline mode's searchable texts per (bank_version, language) (handlers/sharing.py).
    search_cache: dict[tuple[int, str], Any] = field(default_factory=dict)
    # Names this process in leases and timer claims shared with other instances.
    instance_id: str = field(default_factory=lambda: (
        f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"))

    def now(self) -> datetime:
        return self.clock()

    def is_admin(self, user_id: int | None) -> bool:
        """One of ADMIN_IDS (admin commands, question uploads)."""
        return user_id is not None and user_id in self.settings.admin_ids

    def on_bank_change(self, listener: Callable[[Bank], None]) -> None:
        """Call `listener(new_bank)` after every bank swap."""
        self.bank_listeners.append(listener)

    def replace_bank(self, bank: Bank) -> None:
        """Swap in a new bank for every handler at once (one assignment, on the event loop).

        Answers refer to question ids, so progress carries over; a question that is gone is
        simply no longer asked, and its buttons answer as expired.
        """
        self.bank = bank
        self.bank_version += 1
        for listener in list(self.bank_listeners):
            try:
                listener(bank)
            except Exception:  # noqa: BLE001 - one feature's cache must not stop the swap
                log.exception("a bank-change listener failed")

    def language_for(self, stored: str | None, telegram_code: str | None) -> str:
        """The stored choice, else Telegram's language_code when it is en or tr, else the default."""
        if stored in ("en", "tr"):
            return stored
        code = (telegram_code or "").lower().split("-")[0]
        return code if code in ("en", "tr") else self.settings.default_language
