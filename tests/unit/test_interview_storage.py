"""Interviews in SQLite: one active per user, each answer once, ending, reopening the file."""

from datetime import UTC, datetime, timedelta

import pytest

from services import interviews as interview_flow
from storage import interviews as store
from storage import users
from storage.answers import NewAnswer
from storage.db import Database

# Run on SQLite and again on PostgreSQL (tests/conftest.py).
pytestmark = pytest.mark.both_databases

T0 = datetime(2026, 3, 10, 9, 0, tzinfo=UTC)


def answer(qid, *, right=True, message_id=1, ms=1000):
    return NewAnswer(user_id=1, question_id=qid, field="backend", topic="t", level="junior",
                     chosen="a" if right else "b", is_correct=right,
                     answered_at=int(T0.timestamp()), chat_id=1, message_id=message_id,
                     source="interview", elapsed_ms=ms)


async def begin(db, ids=("q1", "q2", "q3")):
    await users.ensure_user(db, user_id=1, first_name="Ada", language="en", now=1)
    return await store.start_interview(db, user_id=1, field="backend", level="junior",
                                       question_ids=list(ids), chat_id=1, now=T0)


async def test_one_active_interview_per_user(db):
    first = await begin(db)
    second = await store.start_interview(db, user_id=1, field="backend", level="junior",
                                         question_ids=["x"], chat_id=1, now=T0)
    assert second.id == first.id and second.question_ids == ["q1", "q2", "q3"]


async def test_each_position_is_answered_once_and_the_last_finishes(db):
    interview = await begin(db)
    assert await interview_flow.record_answer(db, interview=interview, position=0,
                                               answer=answer("q1"))
    # A double tap on the same question (same or a re-sent message) records nothing.
    assert await interview_flow.record_answer(db, interview=interview, position=0,
                                               answer=answer("q1", message_id=5)) is None
    interview = await store.get_interview(db, interview_id=interview.id)
    assert (interview.position, interview.answered, interview.current) == (1, 1, "q2")
    await interview_flow.record_answer(db, interview=interview, position=1,
                                        answer=answer("q2", right=False, message_id=2))
    await interview_flow.record_answer(db, interview=interview, position=2,
                                        answer=answer("q3", message_id=3))
    done = await store.get_interview(db, interview_id=interview.id)
    assert (done.status, done.answered, done.correct) == ("finished", 3, 2)
    assert await store.active_interview(db, user_id=1) is None
    results = await store.interview_results(db, interview_id=done.id)
    assert [(r.question_id, r.is_correct) for r in results] == [
        ("q1", True), ("q2", False), ("q3", True)]
    user = await users.get_user(db, user_id=1)
    assert (user.answered, user.correct) == (3, 2)  # interview answers count in stats
    cards = await db.fetchone("SELECT COUNT(*) FROM review_cards WHERE user_id = 1")
    assert cards[0] == 3  # and feed the review queue


async def test_a_rejected_answer_leaves_no_trace(db):
    interview = await begin(db)
    # The message already holds an answer (a replayed update): the whole step is undone.
    await interview_flow.record_answer(db, interview=interview, position=0,
                                        answer=answer("q1", message_id=7))
    interview = await store.get_interview(db, interview_id=interview.id)
    assert await interview_flow.record_answer(db, interview=interview, position=1,
                                               answer=answer("q2", message_id=7)) is None
    after = await store.get_interview(db, interview_id=interview.id)
    assert (after.position, after.answered) == (1, 1)


async def test_stopped_interview_survives_reopen_and_is_compared_with(tmp_path):
    db = await Database.open(tmp_path / "c.sqlite3")
    interview = await begin(db)
    await interview_flow.record_answer(db, interview=interview, position=0,
                                        answer=answer("q1", right=False))
    await store.mark_asked(db, interview_id=interview.id, position=1, message_id=9,
                           asked_at_ms=123)
    await db.close()
    db = await Database.open(tmp_path / "c.sqlite3")
    resumed = await store.active_interview(db, user_id=1)
    assert (resumed.position, resumed.message_id, resumed.asked_at_ms) == (1, 9, 123)
    assert resumed.seen == ["q1", "q2"]
    later = T0 + timedelta(hours=1)
    assert await store.end_interview(db, interview_id=resumed.id, status="stopped", now=later)
    assert not await store.end_interview(db, interview_id=resumed.id, status="stopped", now=later)
    last = await store.last_interview(db, user_id=1)
    assert last.id == resumed.id and last.ended_at == later
    second = await store.start_interview(db, user_id=1, field="backend", level="junior",
                                         question_ids=["q4"], chat_id=1, now=later)
    previous = await store.previous_result(db, interview=second)
    assert (previous.answered, previous.correct, previous.ended_at) == (1, 0, later)
    await db.close()


async def test_erasing_a_user_takes_their_interviews_cards_and_review_logs(db):
    from storage.privacy import erase_user

    interview = await begin(db)
    await interview_flow.record_answer(db, interview=interview, position=0,
                                        answer=answer("q1", right=False))
    await erase_user(db, user_id=1)
    for table in ("interviews", "interview_answers", "review_cards", "review_logs",
                  "answer_pace", "level_stats", "answers"):
        assert (await db.fetchone(f"SELECT COUNT(*) FROM {table}"))[0] == 0, table
