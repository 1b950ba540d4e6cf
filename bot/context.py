"""The typed handler context: shared objects as properties instead of bot_data lookups."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from telegram.ext import Application, CallbackContext, ExtBot

if TYPE_CHECKING:
    from bot.services import Services


class CoachContext(CallbackContext[ExtBot, dict, dict, dict]):
    """Everything a handler needs arrives through the context."""

    def __init__(self, application: Application, chat_id: int | None = None,
                 user_id: int | None = None) -> None:
        super().__init__(application=application, chat_id=chat_id, user_id=user_id)

    @property
    def services(self) -> Services:
        return self.bot_data["services"]

    @property
    def rng(self) -> random.Random:
        return self.services.rng


def services_of(app: Application[Any, Any, Any, Any, Any, Any]) -> Services:
    return app.bot_data["services"]
