"""Hardening, round two (issue 17): hostile numbers, edited commands, chatty users, name tricks,
error reports to admins and the update types the bot asks Telegram for."""

from __future__ import annotations

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


async def test_a_narrow_update_list_left_by_an_earlier_deployment_is_replaced(fake, tmp_path):
    from tests.e2e.conftest import tap
    from tests.e2e.harness import BotRunner

    fake.allowed_updates = frozenset({"message"})  # what an old deployment asked for
    runner = BotRunner(fake, tmp_path)
    await runner.start()
    try:
        ada = fake.user(7101, "Ada")
        [confirm] = await say(fake, ada, "/deleteme")
        answer, _ = await tap(fake, ada, confirm, fake.buttons(confirm)[-1][-1][1])
        assert answer is not None
        assert fake.allowed_updates == {"message", "callback_query", "my_chat_member"}
    finally:
        await runner.stop()
