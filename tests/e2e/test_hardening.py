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


async def test_429_is_waited_out_and_the_message_goes_once(fake, bot):
    ada = fake.user(3101, "Ada")
    fake.fail_next("sendMessage", 429, retry_after=1)
    [reply] = await say(fake, ada, "/help")
    assert "/quiz" in reply["text"]
    await asyncio.sleep(0.3)
    assert len(fake.bot_messages(ada.id)) == 1


async def test_server_errors_and_dropped_connections_are_retried(fake, bot):
    ada = fake.user(3102, "Ada")
    fake.fail_next("sendMessage", 502, times=2)
    [reply] = await say(fake, ada, "/help")
    assert "/quiz" in reply["text"]
    fake.drop_next("sendMessage")
    [reply] = await say(fake, ada, "/stats")
    assert "No answers yet" in reply["text"]


async def test_a_lost_message_to_edit_does_not_stop_the_flow(fake, bot):
    from tests.e2e.conftest import tap
    from tests.e2e.test_practice import onboard

    ada = fake.user(3103, "Ada")
    await onboard(fake, ada)
    [question] = await say(fake, ada, "/quiz")
    fake.fail_next("editMessageText", 400, "Bad Request: message to edit not found")
    answer, [explanation] = await tap(fake, ada, question, fake.buttons(question)[0][0][1],
                                      expect=1)
    assert answer["text"][0] in "✅❌" and "Next" in fake.buttons(explanation)[0][0][0]


async def test_slow_telegram_does_not_make_other_users_wait(fake, bot):
    from tests.e2e.test_practice import onboard

    users = [fake.user(3200 + i, f"U{i}") for i in range(5)]
    questions = []
    for user in users:
        await onboard(fake, user)
        [q] = await say(fake, user, "/quiz")
        questions.append(q)
    fake.latency = 1.0
    loop = asyncio.get_running_loop()
    started = loop.time()
    ids = [fake.tap(u, q, fake.buttons(q)[0][0][1]) for u, q in zip(users, questions, strict=True)]
    await asyncio.gather(*(fake.wait_answer(i, timeout=10) for i in ids))
    elapsed = loop.time() - started
    fake.latency = 0
    # In line, five taps would take >= 5 s of answer latency alone; concurrently about 1 s.
    assert elapsed < 3.5, elapsed


async def test_deleteme_erases_everything_after_confirmation(fake, bot):
    from tests.e2e.conftest import button, tap
    from tests.e2e.test_practice import onboard

    ada = fake.user(3301, "Ada")
    bob = fake.user(3302, "Bob")
    await onboard(fake, ada)
    await onboard(fake, bob)
    [question] = await say(fake, ada, "/quiz")
    await tap(fake, ada, question, fake.buttons(question)[0][0][1], expect=1)
    await say(fake, ada, "/remind 09:30")
    [confirm] = await say(fake, ada, "/deleteme")
    answer, _ = await tap(fake, ada, confirm, button(fake, confirm, "Cancel"))
    db = bot.services.db
    assert (await db.fetchone("SELECT COUNT(*) FROM answers WHERE user_id = ?", (ada.id,)))[0] == 1
    [confirm] = await say(fake, ada, "/deleteme")
    await tap(fake, ada, confirm, button(fake, confirm, "erase everything"))
    await fake.wait_until(lambda: "erased" in fake.messages(ada.id)[-1].get("text", ""))
    from storage.privacy import tables_with_user_id

    for table in await tables_with_user_id(db):
        row = await db.fetchone(f"SELECT COUNT(*) FROM {table} WHERE user_id = ?", (ada.id,))
        assert row[0] == 0, table
    assert (await db.fetchone("SELECT COUNT(*) FROM users WHERE user_id = ?", (bob.id,)))[0] == 1


async def test_a_locked_database_is_waited_for(fake, bot):
    import sqlite3

    ada = fake.user(3401, "Ada")
    other = sqlite3.connect(bot.settings.database_path, timeout=1)
    other.execute("BEGIN IMMEDIATE")
    other.execute("UPDATE users SET first_name = first_name")
    fake.send_message(ada, "/start")
    await asyncio.sleep(1.5)
    other.commit()
    other.close()
    messages = await fake.wait_for_bot_messages(ada.id, 3, timeout=10)
    assert "Hi \u2068Ada\u2069" in messages[0]["text"]


async def test_a_read_only_database_apologises_and_recovers(fake, bot, caplog):
    ada = fake.user(3402, "Ada")
    await bot.services.db.execute("PRAGMA query_only = ON")
    [msg] = await say(fake, ada, "/start")
    assert "Sorry, something went wrong" in msg["text"]
    assert any("database unavailable" in r.getMessage() and not r.exc_info
               for r in caplog.records)
    await bot.services.db.execute("PRAGMA query_only = OFF")
    welcome, *_ = await say(fake, ada, "/start", expect=3)
    assert "Hi \u2068Ada\u2069" in welcome["text"]


async def test_a_group_upgraded_to_a_supergroup_keeps_its_rows(fake, bot):
    db = bot.services.db
    ada = fake.user(3501, "Ada")
    old, new = -4001, -1004001
    fake.group(old, "Study", members={ada: "creator"}, chat_type="group")
    await db.execute("INSERT INTO users (user_id, created_at) VALUES (?, 0)", (ada.id,))
    await db.execute(
        "INSERT INTO answers (user_id, question_id, field, topic, level, chosen, is_correct,"
        " answered_at, chat_id, message_id) VALUES (?, 'q', 'f', 't', 'mid', 'a', 1, 0, ?, 1)",
        (ada.id, old))
    fake.enqueue_update({"message": {
        "message_id": 99, "date": 0, "chat": {"id": old, "type": "group", "title": "Study"},
        "from": {"id": ada.id, "is_bot": False, "first_name": "Ada"},
        "migrate_to_chat_id": new}})

    async def moved():
        row = await db.fetchone("SELECT chat_id FROM answers WHERE user_id = ?", (ada.id,))
        return row[0] == new

    await fake.wait_until(moved)


async def test_in_a_group_nobody_answers_someone_elses_quiz(fake, bot):
    from tests.e2e.conftest import tap
    from tests.e2e.test_practice import onboard

    ada, bob = fake.user(3601, "Ada"), fake.user(3602, "Bob")
    await onboard(fake, ada)
    group = -1003600
    fake.group(group, "Study", members={ada: "creator", bob: "member"})
    [question] = await say(fake, ada, "/quiz", chat_id=group)
    data = fake.buttons(question)[0][0][1]
    answer, _ = await tap(fake, bob, question, data, chat_id=group)
    assert "for the member who asked" in answer["text"]
    rows = await bot.services.db.fetchall("SELECT user_id FROM answers")
    assert rows == []
    answer, _ = await tap(fake, ada, question, data, chat_id=group, expect=1)
    assert answer["text"][0] in "✅❌"
