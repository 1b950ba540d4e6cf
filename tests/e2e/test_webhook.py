"""The webhook server (bot/webhook.py) in this process against the fake Telegram, which posts
updates to it: a session, the health endpoints, refused posts, and the drain on stop."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from telegram.ext import Application

from bot import telegram_limits, webhook
from bot.app import ALLOWED_UPDATES, build_application
from fake_telegram import FakeTelegram
from tests.conftest import make_settings
from tests.e2e.conftest import button, say, tap
from tests.e2e.test_process import free_port

SECRET = "hook-s3cret_value"
PRIVATE_TEXT = "zq4711xv my private note"


@dataclass
class Served:
    app: Application
    stop: asyncio.Event
    task: asyncio.Task[None]
    base: str  # http://127.0.0.1:<port>
    url: str  # the webhook's URL


async def start_serving(fake: FakeTelegram, tmp_path: Path, *, drain_seconds: float) -> Served:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    settings = make_settings(
        tmp_path, bot_api_base_url=fake.base_url, bot_api_base_file_url=fake.base_file_url,
        webhook_url=f"{base}/hook", webhook_secret=SECRET, webhook_listen="127.0.0.1",
        webhook_port=port)
    app = build_application(
        settings, rate_limiter=telegram_limits.limiter(group_max_rate=1000, overall_max_rate=1000),
        polling_timeout=1)
    stop = asyncio.Event()
    task = asyncio.create_task(
        webhook.serve(app, settings, stop=stop, drain_seconds=drain_seconds))
    served = Served(app, stop, task, base, f"{base}/hook")
    async with httpx.AsyncClient() as client:
        for _ in range(300):
            if task.done():
                await task  # raises what went wrong
            try:
                if (await client.get(f"{base}/readyz")).status_code == 200:
                    return served
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.05)
    raise AssertionError("the webhook server never became ready")


async def stop_serving(served: Served) -> None:
    served.stop.set()
    await asyncio.wait_for(served.task, timeout=15)


@pytest.fixture
async def served(fake: FakeTelegram, tmp_path: Path) -> AsyncIterator[Served]:
    running = await start_serving(fake, tmp_path, drain_seconds=0)
    yield running
    if not running.task.done():
        await stop_serving(running)
    assert fake.violations == [], "the bot made calls Telegram would refuse"


def forged_help(user_id: int) -> dict:
    return {"update_id": 999_999, "message": {
        "message_id": 1, "date": 0, "chat": {"id": user_id, "type": "private"},
        "from": {"id": user_id, "is_bot": False, "first_name": "Eve"}, "text": "/help",
        "entities": [{"type": "bot_command", "offset": 0, "length": 5}]}}


async def test_a_session_arrives_by_webhook(fake, served):
    [hook] = fake.calls_to("setWebhook")
    assert hook.params["url"] == served.url and hook.params["secret_token"] == SECRET
    assert hook.params["allowed_updates"] == ALLOWED_UPDATES
    assert "drop_pending_updates" not in hook.params
    ada = fake.user(2201, "Ada")
    _, _, field_msg = await say(fake, ada, "/start", expect=3)
    _, [level_msg] = await tap(fake, ada, field_msg, button(fake, field_msg, "Backend"), expect=1)
    await tap(fake, ada, level_msg, button(fake, level_msg, "Mid"), expect=1)
    [question] = await say(fake, ada, "/quiz")
    answer, _ = await tap(fake, ada, question, fake.buttons(question)[0][0][1], expect=1)
    assert answer["text"][0] in "✅❌"
    # Everything came through the webhook: no polling, and Telegram saw no failed delivery.
    assert fake.calls_to("getUpdates") == []
    assert len(fake.webhook_deliveries) >= 5 and fake.webhook_errors == []


async def test_a_wrong_or_missing_secret_is_refused_and_changes_nothing(fake, served):
    ada = fake.user(2202, "Ada")
    await say(fake, ada, "/help")
    before = len(fake.bot_messages(ada.id))
    async with httpx.AsyncClient() as client:
        missing = await client.post(served.url, json=forged_help(ada.id))
        wrong = await client.post(served.url, json=forged_help(ada.id),
                                  headers={webhook.SECRET_HEADER: SECRET + "x"})
        odd = await client.post(served.url, json=forged_help(ada.id),
                                headers={webhook.SECRET_HEADER: "ünïcode".encode()})
    assert missing.status_code == wrong.status_code == odd.status_code == 403
    await asyncio.sleep(0.5)
    assert len(fake.bot_messages(ada.id)) == before
    assert served.app.update_queue.empty()


async def test_bodies_that_are_not_updates_are_refused_and_never_logged(fake, served, caplog):
    caplog.set_level(logging.DEBUG)
    headers = {webhook.SECRET_HEADER: SECRET, "Content-Type": "application/json"}
    bodies = [
        b'{"update_id": 5, "message": {"text": "' + PRIVATE_TEXT.encode(),  # cut off
        b"\xff\xfe" + PRIVATE_TEXT.encode(),  # not UTF-8
        b'["' + PRIVATE_TEXT.encode() + b'"]',
        b'{"message": {"text": "' + PRIVATE_TEXT.encode() + b'"}}',  # no update_id
        b'{"update_id": 6, "message": {"text": "' + PRIVATE_TEXT.encode() + b'"}}',  # no chat
    ]
    async with httpx.AsyncClient() as client:
        statuses = [(await client.post(served.url, content=body, headers=headers)).status_code
                    for body in bodies]
        too_big = await client.post(served.url, content=b" " * (webhook.MAX_BODY_BYTES + 1),
                                    headers=headers)
        ready = await client.get(f"{served.base}/readyz")
    assert statuses == [400] * len(bodies)
    assert too_big.status_code == 413
    assert ready.status_code == 200  # a bad post does not hurt the instance
    assert PRIVATE_TEXT not in caplog.text and "zq4711xv" not in caplog.text
    assert served.app.update_queue.empty()


async def test_readyz_names_what_is_missing(fake, served, monkeypatch):
    services = served.app.bot_data["services"]

    async def broken(sql, params=()):
        raise sqlite3.OperationalError("disk I/O error")

    async def stuck(sql, params=()):
        await asyncio.sleep(10)

    async with httpx.AsyncClient() as client:
        monkeypatch.setattr(services.db, "fetchone", broken)
        down = await client.get(f"{served.base}/readyz")
        monkeypatch.setattr(webhook, "READY_DB_SECONDS", 0.1)
        monkeypatch.setattr(services.db, "fetchone", stuck)
        slow = await client.get(f"{served.base}/readyz")
        monkeypatch.undo()
        assert (await client.get(f"{served.base}/readyz")).status_code == 200
        alive = await client.get(f"{served.base}/healthz")
    assert (down.status_code, down.text) == (503, "database unavailable")
    assert (slow.status_code, slow.text) == (503, "database timed out")
    assert (alive.status_code, alive.text) == (200, "ok")


async def test_stop_drains_then_ends_cleanly_and_leaves_the_webhook_set(fake, tmp_path):
    served = await start_serving(fake, tmp_path, drain_seconds=1.5)
    ada = fake.user(2203, "Ada")
    async with httpx.AsyncClient() as client:
        ready = await client.get(f"{served.base}/readyz")
        assert (ready.status_code, ready.text) == (200, "ready")
        served.stop.set()
        await asyncio.sleep(0.05)
        draining = await client.get(f"{served.base}/readyz")
        alive = await client.get(f"{served.base}/healthz")
        # What the balancer still sends during the drain is processed.
        [reply] = await say(fake, ada, "/help")
        assert "/quiz" in reply["text"]
        assert not served.task.done()
        await asyncio.wait_for(served.task, timeout=15)
        with pytest.raises(httpx.ConnectError):
            await client.get(f"{served.base}/healthz")
    assert (draining.status_code, draining.text) == (503, "draining")
    assert (alive.status_code, alive.text) == (200, "ok")
    assert served.task.exception() is None and not served.app.running
    # Other instances keep serving the same URL: the webhook stays set.
    assert fake.calls_to("deleteWebhook") == [] and fake.webhook is not None
    assert fake.violations == []


async def test_a_taken_port_fails_in_one_line(fake, tmp_path):
    served = await start_serving(fake, tmp_path / "one", drain_seconds=0)
    try:
        port = int(served.base.rsplit(":", 1)[1])
        settings = make_settings(
            tmp_path, bot_api_base_url=fake.base_url, webhook_url=served.url,
            webhook_secret=SECRET, webhook_port=port)
        app = build_application(settings)
        with pytest.raises(webhook.CannotListen, match=f"cannot listen on 127.0.0.1:{port}"):
            await webhook.serve(app, settings, stop=asyncio.Event())
        assert not app.running
    finally:
        await stop_serving(served)
