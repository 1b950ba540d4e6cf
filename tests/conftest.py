"""Shared fixtures: a test bank, settings, temporary databases, and the bot against the fake."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.settings import Settings
from questions.loader import Bank, load_bank
from storage.db import Database

TEST_BANK = Path(__file__).parent / "data" / "bank"
TEST_TOKEN = "123456:TEST-TOKEN-abcdefghijklmnopqrstu"


@pytest.fixture
def test_bank() -> Bank:
    return load_bank(TEST_BANK)


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[Database]:
    database = await Database.open(tmp_path / "test.sqlite3")
    yield database
    await database.close()


def make_settings(tmp_path: Path, **overrides) -> Settings:
    values = {
        "bot_token": TEST_TOKEN,
        "database_path": tmp_path / "coach.sqlite3",
        "questions_dir": TEST_BANK,
        "_env_file": None,
    }
    values.update(overrides)
    return Settings(**values)


class Clock:
    """A controllable clock for the bot (timezone-aware UTC)."""

    def __init__(self, start: datetime | None = None) -> None:
        self.now = start or datetime(2026, 3, 10, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta) -> None:
        from datetime import timedelta

        self.now += timedelta(**delta)


@pytest.fixture
def rng() -> random.Random:
    return random.Random(7)
