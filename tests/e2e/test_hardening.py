"""Hostile and odd traffic: floods, slow Telegram, API errors."""

from __future__ import annotations

import asyncio

from tests.e2e.conftest import say


async def test_a_flooding_user_is_slowed_down_with_one_notice(fake, bot):
    ada = fake.user(3001, "Ada")
    bob = fake.user(3002, "Bob")
    for _ in range(30):
        fake.send_message(ada, "/help")
    await fake.wait_for_bot_messages(ada.id, 21)
    await asyncio.sleep(0.5)
    texts = [m["text"] for m in fake.bot_messages(ada.id)]
    assert sum("Interview coach" in t for t in texts) == 20
    assert sum("too fast" in t for t in texts) == 1
    # Someone else is not affected.
    [reply] = await say(fake, bob, "/help")
    assert "Interview coach" in reply["text"]
