"""Hardening, round two (issue 17): hostile numbers, edited commands, chatty users, name tricks,
error reports to admins and the update types the bot asks Telegram for."""

from __future__ import annotations

import asyncio

from tests.e2e.conftest import say

GROUP = -1009876543210


async def test_superscript_digits_get_the_usage_line_not_a_crash(fake, bot):
    ada = fake.user(7001, "Ada")
    fake.group(GROUP, "Prep", members={ada: "administrator"})
    [usage] = await say(fake, ada, "/round ²", chat_id=GROUP)
    assert usage["text"].startswith("Use /round")
    [usage] = await say(fake, ada, "/round 3 ٣٠", chat_id=GROUP)
    assert usage["text"].startswith("Use /round")
    [bad] = await say(fake, ada, "/remind ٩:٣٠")
    assert "couldn't read" in bad["text"]
