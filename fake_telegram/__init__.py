"""A strict fake Telegram Bot API server for end-to-end tests and the browser playground.
A development tool beside the bot, not part of it: it imports nothing of the bot (only
playground.py does, to run the bot against it) and is not installed with the bot.
"""

from fake_telegram.models import Call, FakeUser
from fake_telegram.server import FakeTelegram

__all__ = ["Call", "FakeTelegram", "FakeUser"]
