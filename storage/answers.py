"""Answers: stored once each with their per-question and per-topic totals, and read back for
selection and stats. The rules applied with each answer live in services/answers.py."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from questions.selection import Seen
from storage.db import Conn, Database, fetch_one


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
    day: date | None = None  # the user's local calendar day when they answered (their streak)
    difficulty: int | None = None  # the question's 1-3, for its starting rating


async def insert_answer(conn: Conn, answer: NewAnswer) -> int | None:
    """Store the answer once; its row id, or None for a repeat of a stored tap (same message).

    With its per-question progress and per-topic totals; runs in the caller's transaction
    (services/answers.py composes it with the streak, the review card and the level totals).
    """
    inserted = await fetch_one(
        conn,
        "INSERT INTO answers (user_id, question_id, field, topic, level, chosen, is_correct,"
        " answered_at, source, chat_id, message_id, elapsed_ms)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (user_id, chat_id, message_id) DO NOTHING RETURNING id",
        (answer.user_id, answer.question_id, answer.field, answer.topic, answer.level,
         answer.chosen, int(answer.is_correct), answer.answered_at, answer.source,
         answer.chat_id, answer.message_id, answer.elapsed_ms))
    if inserted is None:
        return None
    right = int(answer.is_correct)
    await conn.execute(
        "INSERT INTO progress (user_id, question_id, attempts, correct, last_is_correct,"
        " last_answered_at) VALUES (?, ?, 1, ?, ?, ?)"
        " ON CONFLICT (user_id, question_id) DO UPDATE SET"
        " attempts = progress.attempts + 1, correct = progress.correct + excluded.correct,"
        " last_is_correct = excluded.last_is_correct,"
        " last_answered_at = excluded.last_answered_at",
        (answer.user_id, answer.question_id, right, right, answer.answered_at))
    await conn.execute(
        "INSERT INTO topic_stats (user_id, field, topic, answered, correct) VALUES (?, ?, ?, 1, ?)"
        " ON CONFLICT (user_id, field, topic) DO UPDATE SET"
        " answered = topic_stats.answered + 1, correct = topic_stats.correct + excluded.correct",
        (answer.user_id, answer.field, answer.topic, right))
    return int(inserted[0])


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
