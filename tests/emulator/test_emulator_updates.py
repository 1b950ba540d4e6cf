"""Update delivery: getUpdates long polling with offsets, and webhooks with their secret header."""

from __future__ import annotations

import asyncio
import time

import pytest
from aiohttp import web
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.error import Conflict

from fake_telegram import FakeTelegram
from tests.shared_files import API_SPEC


async def test_long_poll_wakes_on_a_tap_and_offset_confirms(fake, bot):
    ada = fake.user(1001, "Ada")
    fake.send_message(ada, "/start")
    [start] = await bot.get_updates(timeout=1)
    keyboard = InlineKeyboardMarkup([[InlineKeyboardButton("Next", callback_data="v1:next")]])
    sent = await bot.send_message(ada.id, "Ready?", reply_markup=keyboard)

    # Unconfirmed updates come back until a later offset confirms them.
    assert [u.update_id for u in await bot.get_updates()] == [start.update_id]
    poll = asyncio.create_task(bot.get_updates(offset=start.update_id + 1, timeout=5))
    await asyncio.sleep(0.05)
    began = time.monotonic()
    query_id = fake.tap(ada, sent.message_id, "v1:next")
    [update] = await poll
    assert time.monotonic() - began < 0.5  # woke up at once, not after the timeout
    assert update.callback_query.id == query_id
    assert update.callback_query.data == "v1:next"
    assert update.callback_query.message.message_id == sent.message_id
    assert await bot.get_updates(offset=update.update_id + 1) == ()
    assert fake.updates == []


async def test_empty_long_poll_times_out_and_limit_applies(fake, bot):
    began = time.monotonic()
    assert await bot.get_updates(timeout=1) == ()
    assert 0.9 < time.monotonic() - began < 2
    ada = fake.user(1001, "Ada")
    for text in ("one", "two", "three"):
        fake.send_message(ada, text)
    assert [u.message.text for u in await bot.get_updates(limit=2)] == ["one", "two"]
    # A negative offset keeps only the last updates.
    assert [u.message.text for u in await bot.get_updates(offset=-1)] == ["three"]


async def test_second_poller_terminates_the_first(fake, bot, http):
    first = asyncio.create_task(bot.get_updates(timeout=5))
    await asyncio.sleep(0.05)
    # PTB keeps one connection for getUpdates, so the second poller is another client.
    second = await http.post(fake.api_url("getUpdates"), data={"timeout": "0"})
    assert second.json() == {"ok": True, "result": []}
    with pytest.raises(Conflict, match="terminated by other getUpdates request"):
        await first


async def test_allowed_updates_filter_what_is_stored(fake, bot):
    ada = fake.user(1001, "Ada")
    group = fake.group(-100123, "Study group", members={ada: "creator"})
    fake.add_member(group["id"], fake.user(1002, "Bob"), "member", notify=True)
    assert fake.updates == []  # chat_member is opt-in
    await bot.get_updates(allowed_updates=[Update.MESSAGE, Update.CHAT_MEMBER])
    fake.add_member(group["id"], fake.user(1003, "Cy"), "member", notify=True)
    [update] = await bot.get_updates()
    assert update.chat_member.new_chat_member.user.id == 1003


async def test_webhook_delivery_with_secret_and_retry(fake, bot):
    received: list[tuple[str | None, dict]] = []
    failures = [1]

    async def hook(request: web.Request) -> web.Response:
        if failures:
            failures.pop()
            return web.Response(status=500)
        received.append(
            (request.headers.get("X-Telegram-Bot-Api-Secret-Token"), await request.json())
        )
        return web.Response()

    app = web.Application()
    app.router.add_post("/hook", hook)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    try:
        await bot.set_webhook(f"http://127.0.0.1:{port}/hook", secret_token="s3cret-token")
        with pytest.raises(Conflict, match="can't use getUpdates method while webhook is active"):
            await bot.get_updates()
        fake.violations.clear()
        ada = fake.user(1001, "Ada")
        fake.send_message(ada, "/start")
        await fake.wait_until(lambda: received, timeout=3)
        secret, update = received[0]
        assert secret == "s3cret-token"
        assert update["message"]["text"] == "/start"
        assert fake.webhook_errors == [
            "Wrong response from the webhook: 500 Internal Server Error"
        ]
        info = await bot.get_webhook_info()
        assert info.pending_update_count == 0
        assert info.last_error_message.startswith("Wrong response")
        await bot.delete_webhook()
        assert (await bot.get_webhook_info()).url == ""
    finally:
        await runner.cleanup()


async def test_webhook_url_must_be_https_unless_local(fake, bot, http):
    body = (
        await http.post(fake.api_url("setWebhook"), data={"url": "http://example.com/h"})
    ).json()
    assert (
        body["description"]
        == "Bad Request: bad webhook: An HTTPS URL must be provided for webhook"
    )
    body = (
        await http.post(fake.api_url("setWebhook"), data={"url": "https://example.com:9999/"})
    ).json()
    assert body["description"].endswith("Webhook can be set up only on ports 80, 88, 443 or 8443")
    ok = (
        await http.post(fake.api_url("setWebhook"), data={"url": "https://example.com/h"})
    ).json()
    assert ok == {"ok": True, "result": True, "description": "Webhook was set"}


async def test_stop_releases_a_pending_long_poll():
    async with (FakeTelegram(spec_path=API_SPEC) as other,
                Bot(other.token, base_url=other.base_url) as second):
        poll = asyncio.create_task(second.get_updates(timeout=30))
        await asyncio.sleep(0.05)
        began = time.monotonic()
        await other.stop()
        await asyncio.wait([poll], timeout=2)
        assert time.monotonic() - began < 2
        poll.cancel()
