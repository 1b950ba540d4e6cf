"""Coaching end to end: a short mock interview and its report, a restart mid-interview, expiry,
/review, /topics, the /stats chart and the level-up hint, through the fake Telegram."""

from __future__ import annotations

import asyncio
import struct
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import yaml

from storage import interviews
from tests.e2e.conftest import button, option_button, say, tap
from tests.e2e.harness import BotRunner

TOPICS = {"api": "REST APIs", "db": "Databases", "cache": "Caching"}


def write_bank(folder: Path) -> Path:
    """A small bank: three backend topics, three junior questions each (difficulty 1-3), one mid."""
    for topic, name in TOPICS.items():
        questions = []
        for n, (level, difficulty) in enumerate(
                [("junior", 1), ("junior", 2), ("junior", 3), ("mid", 2)], start=1):
            text = {"body": f"{name} question {n}?",
                    "options": {"a": "First", "b": "Second", "c": "Third"},
                    "explanation": f"Because of {name} rule {n}."}
            tr = {"body": f"{name} sorusu {n}?",
                  "options": {"a": "Birinci", "b": "İkinci", "c": "Üçüncü"},
                  "explanation": f"{name} kuralı {n} yüzünden."}
            questions.append({"id": f"coach-{topic}-{n}", "seniority": level,
                              "difficulty": difficulty, "correct": "abc"[n % 3],
                              "en": text, "tr": tr})
        pack = {"field": "backend", "field_name": {"en": "Backend", "tr": "Backend"},
                "topic": topic, "topic_name": {"en": name, "tr": name}, "questions": questions}
        (folder / f"{topic}.yaml").write_text(yaml.safe_dump(pack, allow_unicode=True))
    return folder


@pytest.fixture
async def coach(fake, tmp_path: Path) -> AsyncIterator[BotRunner]:
    bank = tmp_path / "bank"
    bank.mkdir()
    runner = BotRunner(fake, tmp_path, questions_dir=write_bank(bank), interview_questions=4)
    await runner.start()
    yield runner
    await runner.stop()
    assert fake.violations == [], "the bot made calls Telegram would refuse"


async def onboard(fake, user):
    _, _, field_msg = await say(fake, user, "/start", expect=3)
    _, [level_msg] = await tap(fake, user, field_msg, button(fake, field_msg, "Backend"), expect=1)
    await tap(fake, user, level_msg, button(fake, level_msg, "Junior"), expect=1)


async def current_question(coach, user_id):
    interview = await interviews.active_interview(coach.services.db, user_id=user_id)
    return interview, coach.services.bank.questions[interview.current]


async def answer_interview(fake, coach, user, message, *, right: bool, seconds: int, expect=1):
    """Answer the interview question in `message` after `seconds`; returns (toast, new messages).

    The clock moves on only once the bot has noted when it asked (right after the send the test
    saw), so the answer time is the `seconds` given."""
    for _ in range(200):
        interview, question = await current_question(coach, user.id)
        if interview.message_id == message["message_id"] and interview.asked_at_ms is not None:
            break
        await asyncio.sleep(0.01)
    key = question.correct if right else next(k for k in question.option_keys
                                              if k != question.correct)
    coach.clock.advance(seconds=seconds)
    return await tap(fake, user, message, option_button(fake, message, key)[1], expect=expect)


def edited(fake, chat_id, message):
    return next(m for m in fake.messages(chat_id) if m["message_id"] == message["message_id"])


async def test_short_interview_report_and_its_buttons(fake, coach):
    ada = fake.user(2001, "Ada")
    await onboard(fake, ada)
    intro, q1 = await say(fake, ada, "/interview", expect=2)
    assert "4 questions" in intro["text"] and "Backend" in intro["text"]
    assert "Question 1/4" in q1["text"]
    assert [t for t, _ in fake.buttons(q1)[0]] == ["A", "B", "C"]
    assert "Stop" in fake.buttons(q1)[1][0][0]
    first, _ = await current_question(coach, ada.id)
    assert len(first.question_ids) == 4
    assert len({coach.services.bank.questions[q].topic for q in first.question_ids}) == 3

    toast, [q2] = await answer_interview(fake, coach, ada, q1, right=True, seconds=10)
    assert toast["text"] == "📝 Recorded"
    graded = edited(fake, ada.id, q1)
    assert "Answer 1/4" in graded["text"] and "recorded" in graded["text"]
    assert "✅" not in graded["text"] and "❌" not in graded["text"]  # no feedback mid-interview
    assert not graded.get("reply_markup")
    # A second tap on the answered question records nothing.
    again, _ = await tap(fake, ada, q1, f"v1:i:{first.id}:0:a")
    assert again["text"] == "You already answered this question."
    _, [q3] = await answer_interview(fake, coach, ada, q2, right=False, seconds=40)
    _, [q4] = await answer_interview(fake, coach, ada, q3, right=True, seconds=20)
    _, [report] = await answer_interview(fake, coach, ada, q4, right=False, seconds=30)

    text = report["text"]
    assert "Interview report" in text and "Score: 2/4 (50%)" in text
    assert "Not yet" in text and "Junior" in text
    assert "By topic" in text and "Median time per answer: 25 s" in text
    assert "Question 2" in text.split("Slowest answers")[1].splitlines()[1]
    assert "first interview" in text
    labels = [t for row in fake.buttons(report) for t, _ in row]
    assert labels == ["Review my mistakes (2)", "New interview 🎤"]
    rows = await coach.services.db.fetchall(
        "SELECT source, elapsed_ms FROM answers WHERE user_id = ? ORDER BY id", (ada.id,))
    assert [(r["source"], r["elapsed_ms"]) for r in rows] == [
        ("interview", 10_000), ("interview", 40_000), ("interview", 20_000),
        ("interview", 30_000)]

    _, [m1] = await tap(fake, ada, report, button(fake, report, "Review my mistakes"), expect=1)
    assert "Mistake 1/2" in m1["text"] and "Because of" in m1["text"]
    assert "Right answer" in m1["text"]
    # The report's button is reusable: a second tap shows the mistakes again.
    _, [m1_again] = await tap(fake, ada, report, button(fake, report, "Review my mistakes"),
                              expect=1)
    assert "Mistake 1/2" in m1_again["text"]
    next_data = button(fake, m1, "Next mistake")
    _, [m2] = await tap(fake, ada, m1, next_data, expect=1)
    assert "Mistake 2/2" in m2["text"] and not fake.buttons(edited(fake, ada.id, m1))
    # `Next mistake` is one-shot: a late tap (a stale client) is answered with a note.
    late, _ = await tap(fake, ada, m1, next_data)
    assert late["text"] == "You already used this button."
    _, [intro2, q1b] = await tap(fake, ada, m2, button(fake, m2, "New interview"), expect=2)
    second, _ = await current_question(coach, ada.id)
    assert not set(second.question_ids) & set(first.question_ids)  # nothing from the last one
    assert "Question 1/4" in q1b["text"]
    # `New interview` on the report still works: it resumes the interview now running.
    _, [resume, q1c] = await tap(fake, ada, report, button(fake, report, "New interview"),
                                 expect=2)
    assert "Question 1/4" in q1c["text"]
    [stats, chart] = await say(fake, ada, "/stats", expect=2)
    assert "Answered: 4" in stats["text"] and chart.get("photo")


async def test_stop_gives_a_partial_report_and_compares_with_the_last_one(fake, coach):
    ada = fake.user(2002, "Ada")
    await onboard(fake, ada)
    _, q1 = await say(fake, ada, "/interview", expect=2)
    _, [q2] = await answer_interview(fake, coach, ada, q1, right=True, seconds=5)
    toast, [report] = await tap(fake, ada, q2, button(fake, q2, "Stop"), expect=1)
    assert "stopped" in toast["text"]
    assert "Stopped early: 1 of 4" in report["text"] and "Score: 1/1 (100%)" in report["text"]
    # One answer says little: the partial score, but no readiness claim.
    assert "No verdict yet" in report["text"] and "Ready" not in report["text"]
    assert [t for row in fake.buttons(report) for t, _ in row] == ["New interview 🎤"]
    assert not fake.buttons(edited(fake, ada.id, q2))
    stopped = await interviews.last_interview(coach.services.db, user_id=ada.id)
    late, _ = await tap(fake, ada, q2, f"v1:i:{stopped.id}:1:a")
    assert "over" in late["text"]

    _, q1 = await say(fake, ada, "/interview", expect=2)
    _, [q2] = await answer_interview(fake, coach, ada, q1, right=False, seconds=5)
    [report] = await say(fake, ada, "/interview stop")
    assert "Score: 0/1 (0%)" in report["text"]
    # Neither interview had enough answers: no verdict, and no comparison between them.
    assert "No verdict yet" in report["text"] and "→ now" not in report["text"]
    [msg] = await say(fake, ada, "/interview stop")
    assert "No interview is running" in msg["text"]


async def test_an_interview_resumes_after_a_restart_and_expires_after_a_day(fake, coach):
    ada = fake.user(2003, "Ada")
    await onboard(fake, ada)
    _, q1 = await say(fake, ada, "/interview", expect=2)
    _, [q2] = await answer_interview(fake, coach, ada, q1, right=True, seconds=5)
    await coach.restart()
    # The button sent before the restart still works and the interview goes on where it was.
    toast, [q3] = await answer_interview(fake, coach, ada, q2, right=True, seconds=5)
    assert toast["text"] == "📝 Recorded" and "Question 3/4" in q3["text"]
    await coach.restart()
    note, again = await say(fake, ada, "/interview", expect=2)
    assert "question 3 of 4" in note["text"] and "Question 3/4" in again["text"]
    assert not fake.buttons(edited(fake, ada.id, q3))  # the old copy lost its buttons

    coach.clock.advance(hours=25)
    toast, _ = await answer_interview(fake, coach, ada, again, right=True, seconds=1, expect=0)
    assert "expired" in toast["text"] and toast.get("show_alert")
    intro, q1 = await say(fake, ada, "/interview", expect=2)
    assert "Mock interview" in intro["text"] and "Question 1/4" in q1["text"]
    # Expired while away, noticed by /interview itself: said once, then a fresh start.
    coach.clock.advance(hours=24)
    note, intro, q1 = await say(fake, ada, "/interview", expect=3)
    assert "expired after 24 hours" in note["text"] and "Question 1/4" in q1["text"]


async def test_review_serves_due_cards_then_says_when_the_next_is_due(fake, coach):
    ada = fake.user(2004, "Ada")
    await onboard(fake, ada)
    [msg] = await say(fake, ada, "/review")
    assert "No review cards yet" in msg["text"]
    coach.rng.seed(1)  # /quiz would sometimes mix in a review; none are due yet anyway
    missed = []
    for _ in range(2):
        [question] = await say(fake, ada, "/quiz")
        asked = next(q for q in coach.services.bank.questions.values()
                     if q.key in fake.buttons(question)[0][0][1])
        wrong = next(k for k in asked.option_keys if k != asked.correct)
        await tap(fake, ada, question, option_button(fake, question, wrong)[1], expect=1)
        missed.append(asked)
    [msg] = await say(fake, ada, "/review")
    assert "Nothing is due for review" in msg["text"] and "in 10 min" in msg["text"]

    coach.clock.advance(minutes=11)
    [review] = await say(fake, ada, "/review")
    assert "Review" in review["text"] and "1 more due after this one" in review["text"]
    assert missed[0].text("en").body in review["text"]  # most overdue first
    answer, [explained] = await tap(fake, ada, review,
                                    option_button(fake, review, missed[0].correct)[1], expect=1)
    assert answer["text"] == "✅ Correct!" and "Because of" in explained["text"]
    assert button(fake, explained, "Next review ▶ (1 left)")
    _, [review2] = await tap(fake, ada, explained, button(fake, explained, "Next review"), expect=1)
    assert missed[1].text("en").body in review2["text"] and "0 more due" in review2["text"]
    _, [done] = await tap(fake, ada, review2, option_button(fake, review2, missed[1].correct)[1],
                          expect=1)
    assert "Nothing is due for review" in done["text"] and "in 1 day." in done["text"]
    assert [[t for t, _ in row] for row in fake.buttons(done)] == [["⚑ Report"], ["I guessed 🤔"]]
    sources = await coach.services.db.fetchall(
        "SELECT source FROM answers WHERE user_id = ? ORDER BY id", (ada.id,))
    assert [r["source"] for r in sources] == ["practice", "practice", "review", "review"]


async def test_topics_weakest_first_and_a_tap_practises_that_topic(fake, coach):
    ada = fake.user(2005, "Ada")
    await onboard(fake, ada)
    bank = coach.services.bank
    for qid, right in [("coach-db-1", False), ("coach-api-1", True), ("coach-api-2", False)]:
        q = bank.questions[qid]
        [question] = await say(fake, ada, "/quiz " + q.topic)
        asked = next(x for x in bank.questions.values() if x.key in fake.buttons(question)[0][0][1])
        key = asked.correct if right else next(k for k in asked.option_keys if k != asked.correct)
        await tap(fake, ada, question, option_button(fake, question, key)[1], expect=1)
    [msg] = await say(fake, ada, "/topics")
    lines = msg["text"].splitlines()
    assert "Backend" in lines[0]
    assert lines[1] == "▱▱▱▱▱ 0% · Databases (1 answered)"
    assert lines[2] == "▰▰▰▱▱ 50% · REST APIs (2 answered)"
    assert lines[3] == "▱▱▱▱▱ — · Caching (not started)"
    assert [t for row in fake.buttons(msg) for t, _ in row] == ["Databases", "REST APIs", "Caching"]
    _, [question] = await tap(fake, ada, msg, button(fake, msg, "Caching"), expect=1)
    assert "Caching question" in question["text"]


async def test_stats_chart_is_a_png_and_no_answers_means_text_only(fake, coach):
    bo = fake.user(2006, "Bo", language_code="tr")
    await onboard(fake, bo)
    [empty] = await say(fake, bo, "/stats")
    assert "Henüz cevap yok" in empty["text"]
    [question] = await say(fake, bo, "/quiz")
    await tap(fake, bo, question, fake.buttons(question)[0][0][1], expect=1)
    [text, photo] = await say(fake, bo, "/stats", expect=2)
    assert "Cevaplanan: 1" in text["text"] and photo["caption"] == "📈 İlerlemen"
    data = fake.files[photo["photo"][-1]["file_id"]].data
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    assert struct.unpack(">II", data[16:24]) == (800, 500)
    assert len(fake.calls_to("sendPhoto")) == 1


async def test_a_slow_chart_never_delays_another_users_tap(fake, coach, monkeypatch, tmp_path):
    from bot import charts
    from tests.e2e import slow_chart

    marker = tmp_path / "drawing"
    monkeypatch.setenv("SLOW_CHART_MARKER", str(marker))
    charts.stop_chart_process()  # the next chart process starts with the marker in its env
    monkeypatch.setattr(charts, "render_progress", slow_chart.slow_render)
    ada, bo = fake.user(2011, "Ada"), fake.user(2012, "Bo")
    for user in (ada, bo):
        await onboard(fake, user)
        [question] = await say(fake, user, "/quiz")
        await tap(fake, user, question, fake.buttons(question)[0][0][1], expect=1)
    [question] = await say(fake, bo, "/quiz")
    await say(fake, ada, "/stats")  # the text; the chart is still being drawn
    await fake.wait_until(marker.exists, timeout=20)  # the chart process has started drawing
    answer, [_] = await tap(fake, bo, question, fake.buttons(question)[0][0][1], expect=1)
    # Bo's tap was answered while Ada's chart was still being drawn.
    assert answer["text"] and not any(m.get("photo") for m in fake.bot_messages(ada.id))
    await fake.wait_until(lambda: any(m.get("photo") for m in fake.bot_messages(ada.id)),
                          timeout=20)


async def test_level_up_is_suggested_once_and_one_tap_switches(fake, coach):
    ada = fake.user(2007, "Ada")
    await onboard(fake, ada)
    # A strong rating on enough answers: Mid is predicted well inside the band.
    await coach.services.db.execute(
        "INSERT INTO user_ratings (user_id, field, rating, answers) VALUES (?, ?, ?, ?)",
        (ada.id, "backend", 1800, 30))
    [question] = await say(fake, ada, "/quiz")
    asked = next(q for q in coach.services.bank.questions.values()
                 if q.key in fake.buttons(question)[0][0][1])
    _, [_, hint] = await tap(fake, ada, question, option_button(fake, question, asked.correct)[1],
                             expect=2)
    assert "Ready for Mid?" in hint["text"] and "Your rating in Backend is 18" in hint["text"]
    assert "70–85% band" in hint["text"] and "stay at Junior" in hint["text"]
    assert [t for t, _ in fake.buttons(hint)[0]] == ["Switch to Mid ▶", "Not yet"]
    _, [ready] = await tap(fake, ada, hint, button(fake, hint, "Switch to Mid"), expect=1)
    assert "Level set to Mid" in edited(fake, ada.id, hint)["text"]
    [question] = await say(fake, ada, "/quiz")
    asked = next(q for q in coach.services.bank.questions.values()
                 if q.key in fake.buttons(question)[0][0][1])
    before = len(fake.bot_messages(ada.id))
    await tap(fake, ada, question, option_button(fake, question, asked.correct)[1], expect=1)
    await say(fake, ada, "/help")
    assert len(fake.bot_messages(ada.id)) == before + 2  # the explanation and /help: no new hint


async def test_not_yet_keeps_the_level_in_turkish_too(fake, coach):
    ayse = fake.user(2017, "Ayşe", language_code="tr")
    await onboard(fake, ayse)
    await coach.services.db.execute(
        "INSERT INTO user_ratings (user_id, field, rating, answers) VALUES (?, ?, ?, ?)",
        (ayse.id, "backend", 1800, 30))
    [question] = await say(fake, ayse, "/quiz")
    _, [_, hint] = await tap(fake, ayse, question, fake.buttons(question)[0][0][1], expect=2)
    assert "Mid seviyesine hazır mısın?" in hint["text"]
    answer, _ = await tap(fake, ayse, hint, button(fake, hint, "Henüz değil"))
    await fake.wait_until(lambda: "kalıyoruz" in edited(fake, ayse.id, hint).get("text", ""))
    user = await coach.services.db.fetchone("SELECT level FROM users WHERE user_id = ?", (ayse.id,))
    assert user["level"] == "junior"
    junk, _ = await tap(fake, ayse, hint, "v1:vn:expert")
    assert junk["text"]  # a forged level is answered, and changes nothing


async def test_quiz_picks_the_question_in_the_rating_band(fake, coach):
    bo = fake.user(2018, "Bo")
    await onboard(fake, bo)
    db = coach.services.db
    await db.execute("INSERT INTO user_ratings (user_id, field, rating, answers) VALUES (?, ?, ?, ?)",
                     (bo.id, "backend", 1450, 5))
    # Every junior question far too hard (about 1% right) but one, at about 70%.
    for q in coach.services.bank.pool("backend", "junior"):
        await db.execute("INSERT INTO question_ratings (question_id, field, level, rating, answers)"
                         " VALUES (?, ?, ?, ?, 10)",
                         (q.id, q.field, q.seniority, 1300 if q.id == "coach-db-2" else 2250))
    for _ in range(2):  # not luck: the same choice every time while it is unseen
        [question] = await say(fake, bo, "/quiz")
        assert "Databases question 2?" in question["text"]


async def test_interview_is_for_private_chats_and_bad_arguments_are_explained(fake, coach):
    ada = fake.user(2008, "Ada")
    [msg] = await say(fake, ada, "/interview")
    assert "/start" in msg["text"]
    [msg] = await say(fake, ada, "/interview <now>")
    assert "/interview stop" in msg["text"]
    junk, _ = await tap(fake, ada, msg, "v1:i:999:0:a")
    assert "expired" in junk["text"]
    junk, _ = await tap(fake, ada, msg, "v1:ix:m:abc:0")
    assert "expired" in junk["text"]
    for forged in ("v1:i:99999999999999999999:0:a", "v1:i:1:99999999999999999999:a",
                   "v1:ix:m:99999999999999999999:0", "v1:ix:s", "v1:ix:zz:1"):
        junk, _ = await tap(fake, ada, msg, forged)
        assert "expired" in junk["text"], forged
    # Personal commands sent in a group are answered in Ada's private chat, not in the group.
    fake.group(-100500, "Prep group", members={ada: "member"})
    for command in ("/interview", "/review"):
        before = len(fake.bot_messages(ada.id))
        fake.send_message(ada, command, chat_id=-100500)
        sent = await fake.wait_for_bot_messages(ada.id, before + 2)
        assert sent[before]["text"].startswith(f"🔒 You sent {command} in")
    assert fake.bot_messages(-100500) == []


async def test_due_reviews_are_mixed_into_quiz(fake, coach):
    """With a card due, /quiz serves it about one time in three (the bot's rng decides)."""
    ada = fake.user(2009, "Ada")
    await onboard(fake, ada)
    [question] = await say(fake, ada, "/quiz")
    asked = next(q for q in coach.services.bank.questions.values()
                 if q.key in fake.buttons(question)[0][0][1])
    wrong = next(k for k in asked.option_keys if k != asked.correct)
    await tap(fake, ada, question, option_button(fake, question, wrong)[1], expect=1)
    coach.clock.advance(days=1)
    bodies = []
    for _ in range(9):
        [q] = await say(fake, ada, "/quiz")
        bodies.append(asked.text("en").body in q["text"])
    assert any(bodies) and not all(bodies)


async def test_the_reminder_shows_the_real_due_count(fake, tmp_path):
    bank = tmp_path / "bank"
    bank.mkdir()
    runner = BotRunner(fake, tmp_path, questions_dir=write_bank(bank), reminder_tick_seconds=0.05)
    await runner.start()
    try:
        ada = fake.user(2010, "Ada")
        await onboard(fake, ada)
        [question] = await say(fake, ada, "/quiz")
        asked = next(q for q in runner.services.bank.questions.values()
                     if q.key in fake.buttons(question)[0][0][1])
        wrong = next(k for k in asked.option_keys if k != asked.correct)
        await tap(fake, ada, question, option_button(fake, question, wrong)[1], expect=1)
        await say(fake, ada, "/remind 09:30 always")
        runner.clock.advance(minutes=31)  # 09:31: the miss is due again (10 minutes after)
        reminder = await fake.wait_until(lambda: next(
            (m for m in fake.bot_messages(ada.id) if "Time to practise" in m["text"]), None))
        assert "Due for review: 1" in reminder["text"]
    finally:
        await runner.stop()
    assert fake.violations == []
