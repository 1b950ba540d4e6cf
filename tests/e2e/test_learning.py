"""Issue 18 end to end: shuffled options, /mistakes, `I guessed 🤔`, and honest interview
verdicts, through the fake Telegram on a small bank of our own."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import yaml

from bot import callbacks
from domain.flood_guard import FloodGuard
from storage import interviews
from tests.e2e.conftest import button, option_button, say, tap
from tests.e2e.harness import BotRunner

OPTIONS = {"a": "Alpha", "b": "Bravo", "c": "Charlie", "d": "Delta"}


TOPICS = {"api": "REST APIs", "db": "Databases", "cache": "Caching", "queue": "Queues"}


def write_bank(folder: Path) -> Path:
    """Four backend topics of eight junior questions each; the very first is `shuffle: false`."""
    for number, (topic, name) in enumerate(TOPICS.items()):
        write_pack(folder, topic, name, range(number * 8, number * 8 + 8))
    return folder


def write_pack(folder: Path, topic: str, name: str, numbers: range) -> None:
    questions = []
    for n in numbers:
        text = {"body": f"Question number {n}?", "options": dict(OPTIONS),
                "explanation": f"Because of rule {n}."}
        tr = {"body": f"Soru numarası {n}?", "options": dict(OPTIONS),
              "explanation": f"Kural {n} yüzünden."}
        question = {"id": f"learn-{n:02d}", "seniority": "junior", "difficulty": 1 + n % 3,
                    "correct": "abcd"[n % 4], "en": text, "tr": tr}
        if n == 0:
            question["shuffle"] = False
        questions.append(question)
    pack = {"field": "backend", "field_name": {"en": "Backend", "tr": "Backend"},
            "topic": topic, "topic_name": {"en": name, "tr": name}, "questions": questions}
    (folder / f"{topic}.yaml").write_text(yaml.safe_dump(pack, allow_unicode=True))


@pytest.fixture
async def learn(fake, tmp_path: Path) -> AsyncIterator[BotRunner]:
    bank = tmp_path / "bank"
    bank.mkdir()
    runner = BotRunner(fake, tmp_path, questions_dir=write_bank(bank), interview_questions=12)
    await runner.start()
    # These flows tap quickly for longer than the flood guard's window allows a person.
    runner.app.bot_data["flood_guard"] = FloodGuard(limit=10_000)
    yield runner
    await runner.stop()
    assert fake.violations == [], "the bot made calls Telegram would refuse"


async def onboard(fake, user):
    _, _, field_msg = await say(fake, user, "/start", expect=3)
    _, [level_msg] = await tap(fake, user, field_msg, button(fake, field_msg, "Backend"), expect=1)
    await tap(fake, user, level_msg, button(fake, level_msg, "Junior"), expect=1)


def asked(runner, fake, message):
    """The bank question and the shown order behind a practice, review or /mistakes message."""
    data = fake.buttons(message)[0][0][1]
    parsed = next(p for kind in (callbacks.Answer, callbacks.Review, callbacks.Mistake)
                  if (p := kind.parse(data)) is not None)
    question = runner.services.bank.by_key[parsed.question_key]
    return question, parsed.order


def wrong_key(question) -> str:
    return next(k for k in question.option_keys if k != question.correct)


def current(fake, chat_id, message):
    return next(m for m in fake.messages(chat_id) if m["message_id"] == message["message_id"])


async def test_options_are_shuffled_and_graded_in_the_shown_order(fake, learn):
    ada = fake.user(5001, "Ada")
    await onboard(fake, ada)
    orders, graded_one = set(), False
    for _ in range(12):
        [question_msg] = await say(fake, ada, "/quiz")
        question, order = asked(learn, fake, question_msg)
        assert [t for t, _ in fake.buttons(question_msg)[0]] == ["A", "B", "C", "D"]
        # The message lists the options in the order of the buttons.
        lines = [f"{'ABCD'[i]}. {OPTIONS[k]}" for i, k in enumerate(order)]
        assert "\n".join(lines) in question_msg["text"]
        if question.id == "learn-00":
            assert order == "abcd"  # `shuffle: false` keeps the pack's order
        orders.add(order)
        right = "ABCD"[order.index(question.correct)]
        if not graded_one and right != question.correct.upper():
            # A wrong tap: the toast, the graded line and the explanation name shown letters.
            wrong = wrong_key(question)
            chosen = "ABCD"[order.index(wrong)]
            toast, [explained] = await tap(fake, ada, question_msg,
                                           option_button(fake, question_msg, wrong)[1], expect=1)
            assert toast["text"] == f"❌ Not quite: the answer is {right}."
            graded = current(fake, ada.id, question_msg)
            assert f"Your answer: {chosen} ❌ · Right answer: {right}" in graded["text"]
            assert f"{right}. {OPTIONS[question.correct]} ✅" in graded["text"]
            assert explained["text"].startswith(f"❌ The answer is {right}.")
            row = await learn.services.db.fetchone(
                "SELECT chosen FROM answers WHERE user_id = ? ORDER BY id DESC", (ada.id,))
            assert row["chosen"] == wrong  # the option's key in the pack, not the shown letter
            graded_one = True
        else:
            toast, _ = await tap(fake, ada, question_msg,
                                 option_button(fake, question_msg, question.correct)[1], expect=1)
            assert toast["text"] == "✅ Correct!"
            assert f"Your answer: {right} ✅" in current(fake, ada.id, question_msg)["text"]
    assert graded_one and len(orders) >= 4  # a new order each time


async def test_the_shown_order_survives_a_restart_and_forged_orders_are_refused(fake, learn):
    ada = fake.user(5002, "Ada")
    await onboard(fake, ada)
    while True:
        [question_msg] = await say(fake, ada, "/quiz")
        question, order = asked(learn, fake, question_msg)
        if "ABCD"[order.index(question.correct)] != question.correct.upper():
            break
        await tap(fake, ada, question_msg, option_button(fake, question_msg, question.correct)[1],
                  expect=1)
    data = option_button(fake, question_msg, question.correct)[1]
    forged = data.rsplit(":", 1)[0] + ":aabc"
    toast, _ = await tap(fake, ada, question_msg, forged)
    assert "expired" in toast["text"]
    await learn.restart()
    learn.app.bot_data["flood_guard"] = FloodGuard(limit=10_000)
    toast, _ = await tap(fake, ada, question_msg, data, expect=1)
    right = "ABCD"[order.index(question.correct)]
    assert toast["text"] == "✅ Correct!"
    assert f"Your answer: {right} ✅" in current(fake, ada.id, question_msg)["text"]


async def test_interview_options_are_shuffled_per_question_and_recorded_by_key(fake, learn):
    ada = fake.user(5003, "Ada")
    await onboard(fake, ada)
    _, message = await say(fake, ada, "/interview", expect=2)
    orders = set()
    for _ in range(4):
        interview = await interviews.active_interview(learn.services.db, user_id=ada.id)
        question = learn.services.bank.questions[interview.current]
        letter, data = option_button(fake, message, question.correct)
        orders.add("".join(option_button(fake, message, k)[0] for k in question.option_keys))
        _, [message] = await tap(fake, ada, message, data, expect=1)
        edited = current(fake, ada.id, fake.messages(ada.id)[-2])
        assert f"Answer {interview.position + 1}/12: {letter} · recorded" in edited["text"]
    assert len(orders) > 1
    rows = await learn.services.db.fetchall(
        "SELECT is_correct FROM answers WHERE user_id = ?", (ada.id,))
    assert [r["is_correct"] for r in rows] == [1, 1, 1, 1]


async def answer_quiz(fake, runner, user, *, right: bool):
    [message] = await say(fake, user, "/quiz")
    question, _ = asked(runner, fake, message)
    key = question.correct if right else wrong_key(question)
    _, [explained] = await tap(fake, user, message, option_button(fake, message, key)[1],
                               expect=1)
    return question, explained


async def test_mistakes_come_back_until_answered_right(fake, learn):
    ada = fake.user(5004, "Ada")
    await onboard(fake, ada)
    [none] = await say(fake, ada, "/mistakes")
    assert "No mistakes left" in none["text"] and "/quiz" in none["text"]
    learn.rng.seed(7)
    missed = []
    for _ in range(2):
        missed.append((await answer_quiz(fake, learn, ada, right=False))[0])
        learn.clock.advance(seconds=5)
    [stats, _] = await say(fake, ada, "/stats", expect=2)
    assert "Mistakes to redo: 2" in stats["text"]

    [first] = await say(fake, ada, "/mistakes")
    question, _ = asked(learn, fake, first)
    assert question.id == missed[0].id and "1 more after this one" in first["text"]
    # Wrong again: it stays on the list (the last answer decides).
    _, [explained] = await tap(fake, ada, first, option_button(fake, first, wrong_key(question))[1],
                               expect=1)
    assert button(fake, explained, "Next mistake ▶ (2 left)")
    assert "I guessed" not in str(fake.buttons(explained))
    learn.clock.advance(seconds=5)
    _, [second] = await tap(fake, ada, explained, button(fake, explained, "Next mistake"),
                            expect=1)
    assert asked(learn, fake, second)[0].id == missed[1].id
    _, [explained] = await tap(fake, ada, second,
                               option_button(fake, second, missed[1].correct)[1], expect=1)
    assert button(fake, explained, "Next mistake ▶ (1 left)")
    learn.clock.advance(seconds=5)
    _, [third] = await tap(fake, ada, explained, button(fake, explained, "Next mistake"), expect=1)
    assert asked(learn, fake, third)[0].id == missed[0].id
    _, [done] = await tap(fake, ada, third, option_button(fake, third, missed[0].correct)[1],
                          expect=1)
    assert "No mistakes left" in done["text"]
    [stats, _] = await say(fake, ada, "/stats", expect=2)
    assert "Mistakes to redo" not in stats["text"]
    rows = await learn.services.db.fetchall(
        "SELECT source FROM answers WHERE user_id = ? ORDER BY id", (ada.id,))
    assert [r["source"] for r in rows][-3:] == ["mistakes"] * 3


async def test_mistakes_is_private(fake, learn):
    ada = fake.user(5005, "Ada")
    fake.group(-5005, "Study", members={ada: "creator"})
    fake.send_message(ada, "/mistakes", chat_id=-5005)
    [note] = await fake.wait_for_bot_messages(-5005, 1)
    assert "private chat" in note["text"]


async def test_i_guessed_moves_a_right_answer_to_mistakes_and_rates_it_hard(fake, learn):
    ada, bob = fake.user(5006, "Ada"), fake.user(5007, "Bob")
    await onboard(fake, ada)
    await onboard(fake, bob)  # a known user (a stranger's tap is answered as erased data)
    question, explained = await answer_quiz(fake, learn, ada, right=True)
    labels = [[t for t, _ in row] for row in fake.buttons(explained)]
    assert labels == [["Next ▶", "⚑ Report"], ["I guessed 🤔"]]
    data = button(fake, explained, "I guessed")
    db = learn.services.db
    before = await db.fetchone("SELECT due_at FROM review_cards WHERE user_id = ?", (ada.id,))
    foreign, _ = await tap(fake, bob, explained, data, chat_id=ada.id)
    assert "not your" in foreign["text"].lower() or "someone else" in foreign["text"].lower()
    toast, _ = await tap(fake, ada, explained, data)
    assert "/mistakes" in toast["text"]
    # The button goes away (the edit follows the answer), `Next` stays.
    await fake.wait_until(lambda: [[t for t, _ in row] for row in fake.buttons(
        current(fake, ada.id, explained))] == [["Next ▶", "⚑ Report"]])
    log = await db.fetchone("SELECT l.rating FROM review_logs l JOIN answers a"
                            " ON a.id = l.answer_id WHERE a.user_id = ?", (ada.id,))
    assert log["rating"] == 2  # Hard, not Good
    after = await db.fetchone("SELECT due_at FROM review_cards WHERE user_id = ?", (ada.id,))
    assert after["due_at"] <= before["due_at"]
    again, _ = await tap(fake, ada, explained, data)  # a second tap (a stale client)
    assert again["text"] == "Already marked as a guess."
    assert (await db.fetchone("SELECT COUNT(*) AS n FROM guessed"))["n"] == 1
    [stats, _] = await say(fake, ada, "/stats", expect=2)
    assert "Mistakes to redo: 1" in stats["text"]
    [redo] = await say(fake, ada, "/mistakes")
    assert asked(learn, fake, redo)[0].id == question.id
    _, [done] = await tap(fake, ada, redo, option_button(fake, redo, question.correct)[1],
                          expect=1)
    assert "No mistakes left" in done["text"]


async def run_interview(fake, runner, user, *, answers: int):
    """Start an interview, answer `answers` questions right, then stop it; the report."""
    _, message = await say(fake, user, "/interview", expect=2)
    for _ in range(answers):
        interview = await interviews.active_interview(runner.services.db, user_id=user.id)
        question = runner.services.bank.questions[interview.current]
        _, [message] = await tap(fake, user, message,
                                 option_button(fake, message, question.correct)[1], expect=1)
    [report] = await say(fake, user, "/interview stop")
    return report["text"]


async def test_a_verdict_and_a_comparison_need_ten_answers(fake, learn):
    ada = fake.user(5008, "Ada")
    await onboard(fake, ada)
    text = await run_interview(fake, learn, ada, answers=9)
    assert "Score: 9/9 (100%)" in text and "No verdict yet" in text and "Ready" not in text
    assert "first interview" not in text and "→ now" not in text
    text = await run_interview(fake, learn, ada, answers=10)
    assert "Score: 10/10 (100%)" in text and "Ready" in text and "No verdict" not in text
    # The nine-answer interview before it is not a fair comparison.
    assert "first interview" in text and "→ now" not in text
    text = await run_interview(fake, learn, ada, answers=3)
    assert "No verdict yet" in text and "→ now" not in text
    text = await run_interview(fake, learn, ada, answers=11)
    assert "100% → now 100% (+0 points)" in text
