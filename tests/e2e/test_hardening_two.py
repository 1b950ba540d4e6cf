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
        assert fake.allowed_updates == {"message", "callback_query", "my_chat_member", "inline_query"}
    finally:
        await runner.stop()


def edited_command(chat: dict, user, text: str, message_id: int = 5) -> dict:
    return {"update_id": 900_000 + message_id, "edited_message": {
        "message_id": message_id, "date": 1_700_000_000, "edit_date": 1_700_000_100,
        "chat": chat, "from": {"id": user.id, "is_bot": False, "first_name": user.first_name},
        "text": text, "entities": [{"type": "bot_command", "offset": 0,
                                    "length": len(text.split()[0])}]}}


async def test_an_old_message_edited_into_a_command_runs_nothing(fake, tmp_path):
    from telegram import Update

    from tests.e2e.harness import BotRunner

    runner = BotRunner(fake, tmp_path, round_min_seconds=1)
    app = await runner.start()
    try:
        ada = fake.user(7201, "Ada")
        fake.group(GROUP, "Prep", members={ada: "administrator"})
        group = {"id": GROUP, "type": "supergroup", "title": "Prep"}
        private = {"id": ada.id, "type": "private", "first_name": "Ada"}
        # Straight into the Application, as a webhook or an older update list would deliver it.
        for chat, text in ((group, "/round 1 30"), (private, "/quiz"), (private, "/help"),
                           (private, "/nosuchcommand")):
            await app.process_update(Update.de_json(edited_command(chat, ada, text), app.bot))
        await asyncio.sleep(0.3)
        assert fake.bot_messages(GROUP) == [] and fake.bot_messages(ada.id) == []
        # Every command and message handler in every group refuses an edited message.
        edited = Update.de_json(edited_command(private, ada, "/start"), app.bot)
        from telegram.ext import CommandHandler, MessageHandler

        for handlers in app.handlers.values():
            for handler in handlers:
                if isinstance(handler, CommandHandler | MessageHandler):
                    assert not handler.check_update(edited), handler.callback.__name__
    finally:
        await runner.stop()


async def test_a_first_name_changed_in_telegram_is_kept_current(fake, bot):
    ada = fake.user(7301, "Ada")
    await say(fake, ada, "/help")
    ada.first_name = "Adaline"
    await say(fake, ada, "/help")
    row = await bot.services.db.fetchone("SELECT first_name FROM users WHERE user_id = ?",
                                         (ada.id,))
    assert row[0] == "Adaline"


async def test_a_greeting_isolates_a_name_with_a_right_to_left_override(fake, bot):
    mallory = fake.user(7401, "\u202eyrollaM")
    welcome, *_ = await say(fake, mallory, "/start", expect=3)
    assert welcome["text"].startswith("👋 Hi \u2068\u202eyrollaM\u2069! I'm your")


async def test_free_text_in_a_private_chat_gets_a_short_answer_in_the_users_language(fake, bot):
    ada = fake.user(7501, "Ada")
    ayse = fake.user(7502, "Ayşe", language_code="tr")
    [answer] = await say(fake, ada, "hello?")
    assert answer["text"] == "I work with commands: try /quiz, or /help."
    [answer] = await say(fake, ayse, "merhaba")
    assert answer["text"] == "Komutlarla çalışıyorum: /quiz ile bir soru iste ya da /help yaz."


async def test_text_the_bot_is_waiting_for_is_not_answered_as_free_text(fake, bot):
    ada = fake.user(7503, "Ada")
    await say(fake, ada, "/jd")
    [answer] = await say(fake, ada, "Senior backend engineer: Python, PostgreSQL, Redis caching, "
                                    "HTTP APIs, five years of experience")
    assert "I work with commands" not in answer["text"]
    await asyncio.sleep(0.3)
    assert not any("I work with commands" in m.get("text", "") for m in fake.bot_messages(ada.id))
    # In a group, text that reaches the bot is not answered.
    fake.group(GROUP, "Prep", members={ada: "member"})
    fake.send_message(ada, f"hi @{fake.me.username}", chat_id=GROUP)
    await asyncio.sleep(0.3)
    assert fake.bot_messages(GROUP) == []


async def test_admins_hear_about_an_unhandled_error_once_an_hour_with_ids_only(fake, tmp_path):
    from tests.e2e.harness import BotRunner

    admin = fake.user(7601, "Ana", started=True)
    runner = BotRunner(fake, tmp_path, admin_ids=frozenset({admin.id}))
    await runner.start()
    try:
        db = runner.services.db
        await db.execute("PRAGMA query_only = ON")  # every write fails: sqlite3 OperationalError
        ada, bob = fake.user(7602, "Ada"), fake.user(7603, "Bob")
        [apology] = await say(fake, ada, "/start my-secret-words")
        assert "Sorry" in apology["text"]
        [alert] = await fake.wait_for_bot_messages(admin.id, 1)
        update_id = fake.updates[-1]["update_id"] if fake.updates else None
        assert alert["text"].startswith("⚠️ Unhandled error OperationalError (update ")
        assert f"chat {ada.id}, user {ada.id})" in alert["text"]
        assert "secret" not in alert["text"] and "Ada" not in alert["text"]
        assert update_id is None or str(update_id) in alert["text"]
        await say(fake, bob, "/start")  # the same kind within the hour: not again
        await asyncio.sleep(0.3)
        assert len(fake.bot_messages(admin.id)) == 1
        runner.clock.advance(minutes=61)
        await say(fake, bob, "/start")
        alerts = await fake.wait_for_bot_messages(admin.id, 2)
        assert f"user {bob.id})" in alerts[1]["text"]
        assert "admin_alerts" in runner.app.bot_data
    finally:
        await runner.services.db.execute("PRAGMA query_only = OFF")
        await runner.stop()


def wide_bank(folder, topics: int, name: str) -> None:
    """One field whose many topics all have the longest name allowed."""
    import yaml

    (folder / "wide").mkdir(parents=True)
    for i in range(topics):
        pack = {"field": "wide", "field_name": {"en": "Wide"}, "topic": f"topic-{i:03d}",
                "topic_name": {"en": name, "tr": name},
                "questions": [{"id": f"wide-{i:03d}", "seniority": "junior", "difficulty": 1,
                               "correct": "a", "en": {"body": "Pick a.", "options": {
                                   "a": "a", "b": "b"}, "explanation": "It is a."}}]}
        (folder / "wide" / f"topic-{i:03d}.yaml").write_text(yaml.safe_dump(pack))


async def test_messages_that_join_names_fit_one_message_whatever_the_bank(fake, tmp_path):
    from tests.e2e.harness import BotRunner
    from tests.e2e.test_practice import onboard

    longest = "📚" * 64  # 64 characters, 128 UTF-16 units: the most a name may hold
    wide_bank(tmp_path / "bank", 300, longest)
    runner = BotRunner(fake, tmp_path, questions_dir=tmp_path / "bank")
    await runner.start()
    try:
        ada = fake.user(7701, "Ada")
        await onboard(fake, ada, field="Wide")
        [listing] = await say(fake, ada, "/topics")
        assert listing["text"].count(longest) < 40 and "…and " in listing["text"]
        [question] = await say(fake, ada, "/quiz")
        assert longest in question["text"]
        [offer] = await say(fake, ada, "/quiz no-such-topic")  # the topics as buttons
        rows = fake.buttons(offer)
        assert len(rows) == 40 and all(len(row) == 1 and row[0][0] == longest for row in rows)
        assert fake.violations == []
    finally:
        await runner.stop()
