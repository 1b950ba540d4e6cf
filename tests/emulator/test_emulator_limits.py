"""Flood limits, injected faults, dropped connections and a slow server."""

from __future__ import annotations

import time

import httpx
import pytest
from telegram import Bot
from telegram.error import BadRequest, Forbidden, NetworkError, RetryAfter

from fake_telegram import FakeTelegram
from fake_telegram.models import Stats
from tests.shared_files import API_SPEC


@pytest.fixture
async def limited():
    async with FakeTelegram(spec_path=API_SPEC, rate_limits=True) as server:
        yield server


async def test_group_limit_is_20_per_minute_with_retry_after(limited, http):
    ada = limited.user(1001, "Ada")
    limited.group(-100123, "Study group", members={ada: "creator"})
    url = limited.api_url("sendMessage")
    for i in range(20):
        ok = await http.post(url, data={"chat_id": "-100123", "text": f"q{i}"})
        assert ok.status_code == 200
    refused = await http.post(url, data={"chat_id": "-100123", "text": "one too many"})
    body = refused.json()
    assert refused.status_code == 429
    assert (
        body["description"]
        == f"Too Many Requests: retry after {body['parameters']['retry_after']}"
    )
    assert 55 <= body["parameters"]["retry_after"] <= 60
    assert limited.stats.too_many_requests == 1
    assert limited.stats.max_per_minute(-100123) == 20
    assert limited.stats.per_minute(-100123) == [20]
    assert limited.violations[-1].startswith("sendMessage chat -100123: 429 Too Many Requests")
    # Edits count too; other chats are unaffected.
    limited.send_message(ada, "/start")
    assert (await http.post(url, data={"chat_id": "1001", "text": "hi"})).status_code == 200


async def test_private_chat_allows_a_short_burst(limited, http):
    limited.send_message(limited.user(1001, "Ada"), "/start")
    url = limited.api_url("sendMessage")
    codes = [
        (await http.post(url, data={"chat_id": "1001", "text": f"m{i}"})).status_code
        for i in range(7)
    ]
    assert codes[:5] == [200] * 5 and 429 in codes[5:]


async def test_overall_limit_is_30_per_second(limited, http):
    users = [limited.user(2000 + i, f"U{i}") for i in range(31)]
    for user in users:
        limited.send_message(user, "/start")
    url = limited.api_url("sendMessage")
    codes = [
        (await http.post(url, data={"chat_id": str(u.id), "text": "hi"})).status_code
        for u in users
    ]
    assert codes.count(200) == 30 and codes[-1] == 429
    assert limited.stats.max_per_second() == 30


def test_max_per_minute_uses_sliding_windows():
    stats = Stats()
    stats.sends[-1] = [0.0, 30.0, 59.0, 61.0, 89.0, 125.0]
    assert stats.max_per_minute(-1) == 4  # 30, 59, 61, 89
    assert stats.per_minute(-1) == [3, 2, 1]


@pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")
async def test_fail_next_injects_errors_without_violations(fake, bot):
    fake.send_message(fake.user(1001, "Ada"), "/start")
    fake.fail_next("sendMessage", 429, retry_after=7)
    with pytest.raises(RetryAfter) as caught:
        await bot.send_message(1001, "hi")
    assert "Retry in 7 seconds" in str(caught.value)
    fake.fail_next("sendmessage", 500, "Internal Server Error", times=2)
    for _ in range(2):
        with pytest.raises(NetworkError):
            await bot.send_message(1001, "hi")
    fake.fail_next("sendMessage", 403, chat_id=1002)
    await bot.send_message(1001, "other chats are fine")
    fake.fail_next("sendMessage", 400, "Bad Request: chat not found")
    with pytest.raises(BadRequest, match="Chat not found"):
        await bot.send_message(1001, "hi")
    assert fake.violations == []
    assert [c.error_code for c in fake.calls_to("sendMessage")] == [429, 500, 500, None, 400]
    assert len(fake.bot_messages(1001)) == 1


async def test_blocking_sends_my_chat_member(fake, bot):
    ada = fake.user(1001, "Ada")
    fake.send_message(ada, "/start")
    fake.block(ada)
    updates = await bot.get_updates()
    assert updates[-1].my_chat_member.new_chat_member.status == "kicked"
    with pytest.raises(Forbidden):
        await bot.send_chat_action(ada.id, "typing")
    with pytest.raises(ValueError, match="blocked the bot"):
        fake.send_message(ada, "hello?")


async def test_drop_next_closes_the_connection(fake, http):
    fake.send_message(fake.user(1001, "Ada"), "/start")
    fake.drop_next("sendMessage")
    with pytest.raises(httpx.TransportError):
        await http.post(fake.api_url("sendMessage"), data={"chat_id": "1001", "text": "lost"})
    assert fake.bot_messages(1001) == []
    # after=True: the message is sent, only the answer is lost.
    fake.drop_next("sendMessage", after=True)
    with pytest.raises(httpx.TransportError):
        await http.post(fake.api_url("sendMessage"), data={"chat_id": "1001", "text": "sent"})
    assert [m["text"] for m in fake.bot_messages(1001)] == ["sent"]
    ok = await http.post(fake.api_url("sendMessage"), data={"chat_id": "1001", "text": "fine"})
    assert ok.status_code == 200


async def test_latency_delays_every_answer(fake):
    fake.latency = 0.2
    async with Bot(fake.token, base_url=fake.base_url) as bot:
        began = time.monotonic()
        await bot.get_me()
        assert time.monotonic() - began >= 0.2
