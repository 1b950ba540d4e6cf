"""The typed handler context: shared objects as properties instead of bot_data lookups, and the
user of the update with a text function bound to their language (set by `load_user`)."""

from __future__ import annotations

import random
from collections import OrderedDict
from collections.abc import Hashable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from telegram.ext import Application, CallbackContext, ExtBot

from domain.flood_guard import FloodGuard

if TYPE_CHECKING:
    from bot.services import Services
    from storage.users import User


class CoachContext(CallbackContext[ExtBot, dict, dict, dict]):
    """Everything a handler needs arrives through the context.

    PTB builds one context per update and passes it to every handler group, so what the
    user loader (handlers/user_context.py, an early group) puts here is there for the feature
    handlers: `context.user`, `context.lang` and `context.t(key, **args)`.
    """

    def __init__(self, application: Application, chat_id: int | None = None,
                 user_id: int | None = None) -> None:
        super().__init__(application=application, chat_id=chat_id, user_id=user_id)
        self._user: User | None = None
        # What the bot posts follows `lang`: the user's language in a private chat, the group's
        # in a group. Toasts are seen by one member only and follow `member_lang`, theirs.
        self.lang: str = "en"
        self.member_lang: str = "en"

    @property
    def services(self) -> Services:
        return self.bot_data["services"]

    @property
    def rng(self) -> random.Random:
        return self.services.rng

    # Per-Application state, never module globals: a second Application in the same process
    # (tests, the playground) starts with its own.
    @property
    def recent_edits(self) -> RecentEdits:
        return self.bot_data.setdefault("recent_edits", RecentEdits())

    @property
    def handled_buttons(self) -> set[tuple[int, int, str | None]]:
        return self.bot_data.setdefault("handled_buttons", set())

    @property
    def flood_guard(self) -> FloodGuard:
        return self.bot_data.setdefault("flood_guard", FloodGuard())

    @property
    def admin_alerts(self) -> dict[str, datetime]:
        """When ADMIN_IDS were last told about each kind of unhandled error (bot/errors.py)."""
        return self.bot_data.setdefault("admin_alerts", {})

    @property
    def user(self) -> User:
        """The stored sender of this update (every update with a sender has one)."""
        if self._user is None:
            raise LookupError("this update has no user (no effective_user)")
        return self._user

    @property
    def has_user(self) -> bool:
        return self._user is not None

    def set_user(self, user: User, lang: str, chat_lang: str | None = None) -> None:
        """The update's user and their language (and the group's, in a group); called again
        after a change of language."""
        self._user = user
        self.member_lang = lang
        self.lang = chat_lang or lang

    def t(self, key: str, /, **args: object) -> str:
        """The text `key` in the chat's language (the user's, or in a group the group's)."""
        return self.services.texts.t(self.lang, key, **args)

    def toast(self, key: str, /, **args: object) -> str:
        """The text `key` for a toast, which only the member who tapped sees: their language."""
        return self.services.texts.t(self.member_lang, key, **args)


class RecentEdits:
    """What the bot last wrote into each message it edited, for the newest `limit` messages."""

    def __init__(self, limit: int = 20_000) -> None:
        self.limit = limit
        self._content: OrderedDict[tuple[int, int], Hashable] = OrderedDict()

    def remember(self, where: tuple[int, int], content: Hashable) -> bool:
        """False when `where` already shows `content` (the edit would be refused)."""
        if self._content.get(where) == content:
            return False
        self._content[where] = content
        self._content.move_to_end(where)
        if len(self._content) > self.limit:
            self._content.popitem(last=False)
        return True


def services_of(app: Application[Any, Any, Any, Any, Any, Any]) -> Services:
    return app.bot_data["services"]
