"""Polling and the webhook both ask Telegram for exactly the update types the bot handles."""

from __future__ import annotations

from telegram.ext import Application

from bot import cli as main
from bot.app import ALLOWED_UPDATES
from tests.conftest import make_settings


def test_polling_passes_the_update_types_explicitly(tmp_path, monkeypatch):
    """(The webhook server's setWebhook call is checked through the fake in
    tests/e2e/test_webhook.py.)"""
    seen: dict[str, object] = {}
    monkeypatch.setattr(Application, "run_polling", lambda self, **kw: seen.update(kw))
    assert main.run(make_settings(tmp_path)) == 0
    assert seen["allowed_updates"] == ALLOWED_UPDATES
    assert {"message", "callback_query", "my_chat_member", "inline_query"} == set(ALLOWED_UPDATES)
