"""Who acts, and what stays erased (issue 17, items 10 and 14): members posting as a channel are
told apart by the channel, and /deleteme is final for every button shown before it."""

from __future__ import annotations

from storage.privacy import tables_with_user_id
from tests.e2e.conftest import button, say, tap
from tests.e2e.test_practice import onboard

GROUP = -1007700000000
CHANNEL_BOT = 136817688  # Telegram's shared account for posts made as a channel


def post_as_channel(fake, channel_id: int, title: str, text: str) -> None:
    entities = ([{"type": "bot_command", "offset": 0, "length": len(text.split()[0])}]
                if text.startswith("/") else [])
    post_as_channel.count += 1
    fake.enqueue_update({"message": {
        "message_id": 900_000 + post_as_channel.count,
        "date": 1_800_000_000, "text": text, "entities": entities,
        "chat": {"id": GROUP, "type": "supergroup", "title": "Prep"},
        "from": {"id": CHANNEL_BOT, "is_bot": True, "first_name": "Channel"},
        "sender_chat": {"id": channel_id, "type": "channel", "title": title}}})


post_as_channel.count = 0  # type: ignore[attr-defined]


async def test_one_channel_cannot_stop_another_channels_round(fake, bot):
    ada = fake.user(7001, "Ada")
    fake.group(GROUP, "Prep", members={ada: "creator"})
    post_as_channel(fake, -1001111, "Alpha news", "/round 3 30")
    await fake.wait_until(lambda: any("started by \u2068Alpha news\u2069" in m.get("text", "")
                                      for m in fake.bot_messages(GROUP)), timeout=10)
    post_as_channel(fake, -1002222, "Beta news", "/stop")
    refused = await fake.wait_until(lambda: next(
        (m for m in fake.bot_messages(GROUP) if "Only" in m.get("text", "")
         or "only" in m.get("text", "")), None), timeout=10)
    assert refused is not None
    row = await bot.services.db.fetchone("SELECT status FROM rounds ORDER BY id DESC LIMIT 1")
    assert row["status"] == "running"
    post_as_channel(fake, -1001111, "Alpha news", "/stop")
    await fake.wait_until(lambda: any("stopped" in m.get("text", "").lower()
                                      for m in fake.bot_messages(GROUP)), timeout=10)


async def test_after_deleteme_an_old_question_is_gone_and_nothing_comes_back(fake, bot):
    ada = fake.user(7101, "Ada")
    await onboard(fake, ada)
    [question] = await say(fake, ada, "/quiz")
    [confirm] = await say(fake, ada, "/deleteme")
    await tap(fake, ada, confirm, button(fake, confirm, "erase everything"))
    await fake.wait_until(lambda: "erased" in fake.messages(ada.id)[-1].get("text", ""))
    answer, _ = await tap(fake, ada, question, fake.buttons(question)[0][0][1])
    assert "gone" in answer["text"]
    db = bot.services.db
    for table in [*await tables_with_user_id(db), "users"]:
        row = await db.fetchone(f"SELECT COUNT(*) FROM {table} WHERE user_id = ?", (ada.id,))
        assert row[0] == 0, table
    # A new message starts afresh.
    await say(fake, ada, "/start", expect=3)
    assert (await db.fetchone("SELECT COUNT(*) FROM users WHERE user_id = ?", (ada.id,)))[0] == 1
