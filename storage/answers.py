"""Recording answers (once each, with their aggregates) and reading them back for selection and stats."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import aiosqlite
from fsrs import Rating

from domain import streaks
from questions.selection import Seen
from storage import levels, review
from storage.db import Database, fetch_one

# Answers from these flows may show the level-up suggestion right away (not mid-interview).
SUGGESTING_SOURCES = frozenset({"practice", "review"})


@dataclass(frozen=True)
class NewAnswer:
    user_id: int
    question_id: str
    field: str
    topic: str
    level: str
    chosen: str
    is_correct: bool
    answered_at: int
    chat_id: int
    message_id: int
    source: str = "practice"
    elapsed_ms: int | None = None


@dataclass(frozen=True)
class Recorded:
    """The outcome of storing an answer; `inserted` is False for a repeat of a stored tap."""

    inserted: bool
    streak: int = 0
    streak_best: int = 0
    milestone: int | None = None
    rating: Rating | None = None
    level_up: levels.LevelUp | None = None


async def record_answer(db: Database, answer: NewAnswer, *, today: date) -> Recorded:
    """Store the answer and update progress, topic totals, the streak, the review card and the
    level totals in one transaction."""
    async with db.transaction() as conn:
        return await insert_answer(conn, answer, today=today)


async def insert_answer(conn: aiosqlite.Connection, answer: NewAnswer, *, today: date) -> Recorded:
    """`record_answer` inside a transaction the caller holds (an interview moves on to its next
    question, a group round stores the member's score, in the same one)."""
    cur = await conn.execute(
        "INSERT INTO answers (user_id, question_id, field, topic, level, chosen, is_correct,"
        " answered_at, source, chat_id, message_id, elapsed_ms)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (user_id, chat_id, message_id) DO NOTHING",
        (answer.user_id, answer.question_id, answer.field, answer.topic, answer.level,
         answer.chosen, int(answer.is_correct), answer.answered_at, answer.source,
         answer.chat_id, answer.message_id, answer.elapsed_ms))
    if cur.rowcount == 0:
        return Recorded(inserted=False)
    right = int(answer.is_correct)
    await conn.execute(
        "INSERT INTO progress (user_id, question_id, attempts, correct, last_is_correct,"
        " last_answered_at) VALUES (?, ?, 1, ?, ?, ?)"
        " ON CONFLICT (user_id, question_id) DO UPDATE SET attempts = attempts + 1,"
        " correct = correct + excluded.correct, last_is_correct = excluded.last_is_correct,"
        " last_answered_at = excluded.last_answered_at",
        (answer.user_id, answer.question_id, right, right, answer.answered_at))
    await conn.execute(
        "INSERT INTO topic_stats (user_id, field, topic, answered, correct) VALUES (?, ?, ?, 1, ?)"
        " ON CONFLICT (user_id, field, topic) DO UPDATE SET answered = answered + 1,"
        " correct = correct + excluded.correct",
        (answer.user_id, answer.field, answer.topic, right))
    row = await fetch_one(
        conn, "SELECT streak_current, streak_best, last_active_day FROM users WHERE user_id = ?",
        (answer.user_id,))
    last = date.fromisoformat(row["last_active_day"]) if row["last_active_day"] else None
    before = streaks.current(last, row["streak_current"], today)
    streak, best = streaks.advance(last, row["streak_current"], row["streak_best"], today)
    # Never move the last active day backwards (after a change to a zone further west).
    active = max(last, today) if last else today
    await conn.execute(
        "UPDATE users SET answered = answered + 1, correct = correct + ?, streak_current = ?,"
        " streak_best = ?, last_active_day = ?, group_answered = group_answered + ?"
        " WHERE user_id = ?",
        (right, streak, best, active.isoformat(), int(answer.source == "group"),
         answer.user_id))
    rating = await review.review_answer(
        conn, answer_id=cur.lastrowid, user_id=answer.user_id, question_id=answer.question_id,
        is_correct=answer.is_correct, answered_at=answer.answered_at,
        elapsed_ms=answer.elapsed_ms)
    level_up = await levels.count_level_answer(
        conn, user_id=answer.user_id, field=answer.field, level=answer.level,
        is_correct=answer.is_correct, may_suggest=answer.source in SUGGESTING_SOURCES)
    return Recorded(True, streak, best, streaks.milestone_reached(before, streak), rating,
                    level_up)


async def seen_questions(db: Database, *, user_id: int) -> dict[str, Seen]:
    """Per question the user answered: was the last answer right, and when (one row each)."""
    rows = await db.fetchall(
        "SELECT question_id, last_is_correct, last_answered_at FROM progress WHERE user_id = ?",
        (user_id,))
    return {r["question_id"]: Seen(bool(r["last_is_correct"]), r["last_answered_at"])
            for r in rows}


@dataclass(frozen=True)
class TopicTotal:
    field: str
    topic: str
    answered: int
    correct: int

    @property
    def accuracy(self) -> float:
        return self.correct / self.answered if self.answered else 0.0


async def topic_totals(db: Database, *, user_id: int, field: str | None = None) -> list[TopicTotal]:
    sql = "SELECT field, topic, answered, correct FROM topic_stats WHERE user_id = ?"
    params: tuple = (user_id,)
    if field is not None:
        sql += " AND field = ?"
        params = (user_id, field)
    rows = await db.fetchall(sql, params)
    return [TopicTotal(r["field"], r["topic"], r["answered"], r["correct"]) for r in rows]
