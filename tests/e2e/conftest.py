"""Fixtures for end-to-end tests: the fake Telegram and the real bot polling it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot import callbacks
from fake_telegram import FakeTelegram
from tests.e2e.harness import BotRunner
from tests.shared_files import API_SPEC


@pytest.fixture
async def fake() -> AsyncIterator[FakeTelegram]:
    server = FakeTelegram(spec_path=API_SPEC)
    await server.start()
    yield server
    await server.stop()


@pytest.fixture
async def bot(fake: FakeTelegram, tmp_path: Path) -> AsyncIterator[BotRunner]:
    runner = BotRunner(fake, tmp_path)
    await runner.start()
    yield runner
    await runner.stop()
    assert fake.violations == [], "the bot made calls Telegram would refuse"


async def say(fake: FakeTelegram, user, text: str, *, expect: int = 1, chat_id: int | None = None):
    """Send a message and wait for `expect` new bot messages; returns them."""
    chat = chat_id if chat_id is not None else user.id
    before = len(fake.bot_messages(chat))
    fake.send_message(user, text, chat_id=chat_id)
    messages = await fake.wait_for_bot_messages(chat, before + expect)
    return messages[before:]


async def tap(fake: FakeTelegram, user, message, data: str, *, expect: int = 0,
              chat_id: int | None = None):
    """Tap a button, wait for its answerCallbackQuery and `expect` new bot messages."""
    chat = chat_id if chat_id is not None else user.id
    before = len(fake.bot_messages(chat))
    query_id = fake.tap(user, message, data, chat_id=chat_id)
    answer = await fake.wait_answer(query_id)
    new = []
    if expect:
        new = (await fake.wait_for_bot_messages(chat, before + expect))[before:]
    return answer, new


def button(fake: FakeTelegram, message, label_part: str) -> str:
    """The callback data of the first button whose label contains `label_part`."""
    for row in fake.buttons(message):
        for text, data in row:
            if label_part in text:
                return data
    raise AssertionError(f"no button with {label_part!r} in {fake.buttons(message)}")


def option_button(fake: FakeTelegram, message, key: str) -> tuple[str, str]:
    """(letter, callback data) of the answer button for option `key` (its key in the pack):
    options are shown in a new order each time, so a test finds an option by its key."""
    for row in fake.buttons(message):
        for text, data in row:
            for kind in callbacks.KINDS:
                parsed = kind.parse(data)
                if parsed is not None and getattr(parsed, "option", None) == key:
                    return text, data
    raise AssertionError(f"no button for option {key!r} in {fake.buttons(message)}")
