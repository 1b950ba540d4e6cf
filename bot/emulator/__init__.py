"""A strict fake Telegram Bot API server for end-to-end tests and the browser playground."""

from bot.emulator.models import Call, FakeUser
from bot.emulator.server import FakeTelegram

__all__ = ["Call", "FakeTelegram", "FakeUser"]
