"""Groups and sharing (issue 19): forum topics, command menus per scope, one language per group,
a reveal as soon as everyone has answered, and challenging a friend with inline mode and deep
links."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot import callbacks
from fake_telegram import FakeTelegram
from storage import rounds as round_store
from tests.e2e.conftest import button, say, tap
from tests.e2e.harness import BotRunner

FORUM = -1007000000001
FAST = {"round_min_seconds": 1, "round_pause_seconds": 0.1, "round_tick_seconds": 0}


@pytest.fixture
async def runner(fake: FakeTelegram, tmp_path: Path) -> AsyncIterator[BotRunner]:
    bot = BotRunner(fake, tmp_path, **FAST)
    await bot.start()
    yield bot
    await bot.stop()


@pytest.fixture
def forum(fake: FakeTelegram):
    ana, ada, cem = fake.user(6001, "Ana"), fake.user(6002, "Ada"), fake.user(6003, "Cem", "tr")
    fake.group(FORUM, "Study hall", members={ana: "creator", ada: "member", cem: "member"},
               forum=True)
    return ana, ada, cem, fake.create_topic(FORUM, "Backend"), fake.create_topic(FORUM, "Chat")


def letters(fake, message) -> list[str]:
    return [d for row in fake.buttons(message) for _, d in row if d and d.startswith("v1:g:")]


async def test_a_round_started_in_a_topic_stays_in_it_across_a_restart(fake, forum, runner):
    ana, ada, cem, backend, chat = forum
    fake.send_message(ada, "/round 2 5", chat_id=FORUM, thread_id=backend)
    await runner.let_time_pass(lambda: len(fake.topic_messages(FORUM, backend)) >= 2)
    rnd = await round_store.running_round(runner.services.db, chat_id=FORUM)
    assert rnd.thread_id == backend
    await runner.restart()  # the round's timers come back, with their topic
    await runner.let_time_pass(
        lambda: any("Round over" in m["text"] for m in fake.topic_messages(FORUM, backend)),
        timeout=20)
    in_topic = fake.topic_messages(FORUM, backend)
    assert sum(1 for m in in_topic if "Question " in m["text"]) == 2
    # Nothing of the round went to the General topic or to the other topic.
    assert fake.topic_messages(FORUM, None) == [] and fake.topic_messages(FORUM, chat) == []
    # /leaderboard answers in the topic it was asked in; the General topic gets no thread id.
    fake.send_message(cem, "/leaderboard", chat_id=FORUM, thread_id=chat)
    await fake.wait_until(lambda: fake.topic_messages(FORUM, chat))
    before = len(fake.bot_messages(FORUM))
    fake.send_message(cem, "/leaderboard", chat_id=FORUM)
    [general] = (await fake.wait_for_bot_messages(FORUM, before + 1))[before:]
    assert "message_thread_id" not in general
    sends = [c for c in fake.calls_to("sendMessage") if c.chat_id == FORUM]
    assert all(c.params.get("message_thread_id") in (None, backend, chat) for c in sends)
    assert fake.violations == []


async def test_a_topic_closed_mid_round_ends_the_round_cleanly(fake, forum, runner):
    ana, ada, cem, backend, _ = forum
    fake.send_message(ada, "/round 3 5", chat_id=FORUM, thread_id=backend)
    await runner.let_time_pass(lambda: any(letters(fake, m)
                                           for m in fake.topic_messages(FORUM, backend)))
    fake.close_topic(FORUM, backend)
    db = runner.services.db
    rounds_left = None
    for _ in range(40):
        runner.timers.run_next()
        rounds_left = await round_store.running_round(db, chat_id=FORUM)
        if rounds_left is None:
            break
        await fake.wait_changed(0.05)
    assert rounds_left is None, "the round ended"
    assert [v for v in fake.violations if "TOPIC_CLOSED" not in v] == []
    assert len(fake.violations) == 1, "one refused send, then the round stops trying"
    fake.violations.clear()


async def test_the_round_reveals_as_soon_as_everyone_has_answered(fake, forum, runner):
    ana, ada, cem, backend, _ = forum
    fake.send_message(ada, "/round 1 60", chat_id=FORUM, thread_id=backend)
    question = await runner.let_time_pass(lambda: next(
        (m for m in fake.topic_messages(FORUM, backend) if letters(fake, m)), None))
    data = letters(fake, question)[0]
    for member in (ana, ada, cem):  # the three members; the bot makes four
        query = fake.tap(member, question, data, chat_id=FORUM)
        await fake.wait_answer(query)
    # No clock moves: the reveal does not wait out the 60 seconds.
    revealed = await fake.wait_until(lambda: next(
        (m for m in fake.topic_messages(FORUM, backend) if "Everyone has answered" in m["text"]),
        None))
    assert "3 answered" in revealed["text"] and not fake.buttons(revealed)
    # Telegram is asked for the member count once (cached), then once more before it counts.
    assert len(fake.calls_to("getChatMemberCount")) <= 3


async def test_a_burst_of_round_taps_asks_telegram_for_the_member_count_once(fake, runner):
    members = [fake.user(6500 + i, f"M{i}") for i in range(12)]
    fake.group(FORUM, "Study hall", members={m: "member" for m in members}, forum=True)
    topic = fake.create_topic(FORUM, "Quiz")
    fake.send_message(members[0], "/round 1 60", chat_id=FORUM, thread_id=topic)
    question = await runner.let_time_pass(lambda: next(
        (m for m in fake.topic_messages(FORUM, topic) if letters(fake, m)), None))
    data = letters(fake, question)[0]
    queries = [fake.tap(m, question, data, chat_id=FORUM) for m in members[:6]]
    for query in queries:
        await fake.wait_answer(query)
    # Each tap is answered first and checks for an early reveal after: wait for the first ask,
    # then give the other five taps' checks time to ask too, if they were going to.
    await fake.wait_until(lambda: fake.calls_to("getChatMemberCount"))
    await asyncio.sleep(0.3)
    assert len(fake.calls_to("getChatMemberCount")) == 1


async def test_the_group_speaks_one_language_and_toasts_speak_each_members(fake, forum, runner):
    ana, ada, cem, backend, _ = forum
    # Cem (Turkish) starts the group's first round: the group's language becomes Turkish.
    fake.send_message(cem, "/round 1 60", chat_id=FORUM, thread_id=backend)
    question = await runner.let_time_pass(lambda: next(
        (m for m in fake.topic_messages(FORUM, backend) if letters(fake, m)), None))
    assert "Soru 1/1" in question["text"]
    answer, _ = await tap(fake, ada, question, letters(fake, question)[0], chat_id=FORUM)
    assert answer["text"].startswith("🔒 Locked in")  # Ada's toast, in her English
    [board] = await say(fake, ada, "/leaderboard", chat_id=FORUM)
    assert board["text"].startswith("🏆 Sıralama")


async def test_command_menus_per_scope(fake, forum, runner):
    ana, ada, cem, _, _ = forum
    private = [c["command"] for c in fake.menu_for(ada, ada.id)]
    member = [c["command"] for c in fake.menu_for(ada, FORUM)]
    admin = fake.menu_for(ana, FORUM)
    assert "quiz" in private and "stats" in private and "share" in private
    assert "round" not in private and "leaderboard" not in private
    assert member == ["round", "stop", "leaderboard", "field", "level", "language", "help"]
    assert [c["command"] for c in admin] == member
    assert "(admins)" in next(c["description"] for c in admin if c["command"] == "field")
    assert "admins" not in next(c["description"] for c in fake.menu_for(ada, FORUM)
                                if c["command"] == "field")
    turkish = fake.menu_for(cem, FORUM)
    assert next(c["description"] for c in turkish if c["command"] == "level").startswith("Bu grubun")
    # An admin's /language sets the group's menus in that language for everyone in it.
    await say(fake, ana, "/language tr", chat_id=FORUM)
    assert next(c["description"] for c in fake.menu_for(ada, FORUM)
                if c["command"] == "level").startswith("Bu grubun")


# -- challenge a friend --------------------------------------------------------------------------

async def onboard(fake, user):
    _, _, field_msg = await say(fake, user, "/start", expect=3)
    _, [level_msg] = await tap(fake, user, field_msg, button(fake, field_msg, "Backend"), expect=1)
    await tap(fake, user, level_msg, button(fake, level_msg, "Junior"), expect=1)


async def test_inline_mode_offers_questions_and_a_shared_one_counts_everyone(fake, forum, runner):
    ana, ada, cem, _, chat = forum
    fake.inline_mode = True
    await onboard(fake, ada)
    query = fake.inline_query(ada, "")
    answer = await fake.wait_inline_answer(query)
    results = answer["results"]
    assert results[0]["title"] == "🎲 Random question" and 1 < len(results) <= 10
    assert answer["is_personal"] is True and answer["cache_time"] <= 10
    assert all(r["id"] for r in results) and len({r["id"] for r in results}) == len(results)
    # A word finds questions in the sender's language; Cem's search is in Turkish.
    found = (await fake.wait_inline_answer(fake.inline_query(ada, "ETag")))["results"]
    assert found and all("ETag" in r["input_message_content"]["text"] for r in found)
    turkish = (await fake.wait_inline_answer(fake.inline_query(cem, "başlık")))["results"]
    assert turkish and "başlık" in turkish[0]["input_message_content"]["text"].lower()
    nothing = (await fake.wait_inline_answer(fake.inline_query(ada, "zzzqqq")))["results"]
    assert nothing == []

    shared = fake.choose_inline_result(ada, query, results[1]["id"], FORUM)
    question_key = results[1]["id"]
    bank = runner.services.bank
    question = bank.by_key[question_key]
    datas = [d for row in fake.buttons(shared) for _, d in row if d and d.startswith("v1:sh:")]
    link = fake.buttons(shared)[-1][0][1]
    assert link == f"https://t.me/coach_test_bot?start=q_{question_key}"
    by_key = {callbacks.SharedAnswer.parse(d).option: d for d in datas}
    wrong = next(k for k in by_key if k != question.correct)
    # Cem never started the bot: he answers all the same, and gets the answer privately.
    cem_toast, _ = await tap(fake, cem, shared, by_key[wrong], chat_id=FORUM)
    assert cem_toast["text"].startswith("❌ Bu sefer olmadı.")
    again, _ = await tap(fake, cem, shared, by_key[question.correct], chat_id=FORUM)
    assert "yalnızca ilk dokunuşun sayılır" in again["text"]
    edited = await fake.wait_until(lambda: next(
        (m for m in fake.messages(FORUM) if m.get("via_bot") and "1 answered" in m["text"]), None))
    assert "0 right" in edited["text"]
    # Ada uses the bot: her answer also counts in her own record.
    ada_toast, _ = await tap(fake, ada, shared, by_key[question.correct], chat_id=FORUM)
    assert ada_toast["text"].startswith("✅ Right!")
    row = await runner.services.db.fetchone(
        "SELECT source, is_correct FROM answers WHERE user_id = ?", (ada.id,))
    assert (row["source"], row["is_correct"]) == ("shared", 1)
    assert await runner.services.db.fetchone("SELECT 1 FROM users WHERE user_id = ?", (cem.id,)) is None
    # The second tally came within the edit interval: it is shown once the interval is over.
    latest = await fake.wait_until(lambda: next(
        (m for m in fake.messages(FORUM) if m.get("via_bot") and "2 answered" in m["text"]),
        None), timeout=8)
    assert "1 right" in latest["text"]
    assert question.text("en").options[question.correct][:20] not in latest["text"].split("👥")[1]
    # Forged data on the shared message changes nothing.
    forged, _ = await tap(fake, ana, shared, "v1:a:0000000000:a", chat_id=FORUM)
    assert "expired" in forged["text"]
    assert fake.violations == []


async def test_a_deep_link_opens_the_question_after_onboarding(fake, runner):
    bank = runner.services.bank
    question = next(iter(bank.questions.values()))
    new = fake.user(6101, "Neo")
    welcome, language, field_msg = await say(fake, new, f"/start q_{question.key}", expect=3)
    assert "Which field" in field_msg["text"]
    _, [level_msg] = await tap(fake, new, field_msg, button(fake, field_msg, "Backend"), expect=1)
    _, [done, asked] = await tap(fake, new, level_msg, button(fake, level_msg, "Junior"), expect=2)
    assert done["text"].startswith("✅ All set")
    assert question.text("en").body.split("`")[0][:20] in asked["text"]
    # A set-up user gets the question at once; a question no longer in the bank is explained.
    [again] = await say(fake, new, f"/start q_{question.key}")
    assert fake.buttons(again)[0][0][1].startswith("v1:a:")
    [gone, *_] = await say(fake, new, "/start q_0000000000", expect=2)
    assert "no longer in the bank" in gone["text"]


async def test_share_gives_links_with_field_and_level(fake, runner):
    ada = fake.user(6201, "Ada")
    await onboard(fake, ada)
    [msg] = await say(fake, ada, "/share")
    assert "https://t.me/coach_test_bot?start=s_backend_junior" in msg["text"]
    urls = [d for row in fake.buttons(msg) for _, d in row]
    assert any(u.startswith("https://t.me/share/url?url=") for u in urls)
    assert "https://t.me/coach_test_bot?startgroup=round" in urls
    friend = fake.user(6202, "Bea")
    messages = await say(fake, friend, "/start s_backend_junior", expect=3)
    assert messages[-1]["text"].startswith("✅ All set: Backend, Junior")
