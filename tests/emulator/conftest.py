"""Fixtures for the emulator's own tests: a fresh fake server, a PTB Bot and a raw HTTP client."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from telegram import Bot

from fake_telegram import FakeTelegram
from tests.shared_files import API_SPEC

# The smallest valid PNG: signature, a 1x1 IHDR, one IDAT and IEND.
PNG_1X1 = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d4944415478da63f8ffff3f0005fe02fea7d6a4d20000000049454e44ae426082"
)


@pytest.fixture
def png() -> bytes:
    return PNG_1X1


@pytest.fixture
async def fake() -> AsyncIterator[FakeTelegram]:
    server = FakeTelegram(spec_path=API_SPEC, check_results=True)
    await server.start()
    yield server
    await server.stop()
    # Our own answers must match the spec too, or PTB could be parsing fiction.
    assert server.emulator_errors == []


@pytest.fixture
async def bot(fake: FakeTelegram) -> AsyncIterator[Bot]:
    telegram_bot = Bot(fake.token, base_url=fake.base_url, base_file_url=fake.base_file_url)
    await telegram_bot.initialize()
    yield telegram_bot
    await telegram_bot.shutdown()


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(timeout=5) as client:
        yield client


@pytest.fixture(autouse=True)
def _skip_without_spec(request: pytest.FixtureRequest) -> None:
    """Spec checks need ../shared/telegram-bot-api/api.json (or $TELEGRAM_API_SPEC)."""
    if request.node.get_closest_marker("needs_spec") and API_SPEC is None:
        pytest.skip(
            "Bot API spec not found: put it at ../shared/telegram-bot-api/api.json "
            "or set TELEGRAM_API_SPEC"
        )
