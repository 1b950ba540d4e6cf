"""Polling and the webhook both ask Telegram for exactly the update types the bot handles."""

from __future__ import annotations

import pytest
from telegram.ext import Application

from bot import cli as main
from bot.app import ALLOWED_UPDATES
from tests.conftest import make_settings


@pytest.mark.parametrize("webhook", [False, True])
def test_run_passes_the_update_types_explicitly(tmp_path, monkeypatch, webhook):
    seen: dict[str, object] = {}
    monkeypatch.setattr(Application, "run_polling", lambda self, **kw: seen.update(kw))
    monkeypatch.setattr(Application, "run_webhook", lambda self, **kw: seen.update(kw))
    extra = ({"webhook_url": "https://example.org/hook", "webhook_secret": "s" * 32}
             if webhook else {})
    assert main.run(make_settings(tmp_path, **extra)) == 0
    assert seen["allowed_updates"] == ALLOWED_UPDATES
    assert {"message", "callback_query", "my_chat_member", "inline_query"} == set(ALLOWED_UPDATES)
