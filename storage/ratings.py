"""Elo ratings for adaptive difficulty: per question and per user and field (rules in
domain/ratings.py, applied with each answer in services/answers.py)."""

from __future__ import annotations

from dataclasses import dataclass

from storage.db import Conn, Database, fetch_one


@dataclass(frozen=True)
class Rated:
    rating: float
    answers: int


async def is_first_answer(conn: Conn, *, user_id: int, question_id: str) -> bool:
    """True when the answer just stored is the user's first to this question."""
    row = await fetch_one(conn, "SELECT attempts FROM progress WHERE user_id = ? AND question_id = ?",
                          (user_id, question_id))
    return row is not None and row["attempts"] == 1


async def question_rating_in(conn: Conn, *, question_id: str) -> Rated | None:
    row = await fetch_one(conn, "SELECT rating, answers FROM question_ratings"
                          " WHERE question_id = ?", (question_id,))
    return Rated(row["rating"], row["answers"]) if row else None


async def user_rating_in(conn: Conn, *, user_id: int, field: str) -> Rated | None:
    row = await fetch_one(conn, "SELECT rating, answers FROM user_ratings"
                          " WHERE user_id = ? AND field = ?", (user_id, field))
    return Rated(row["rating"], row["answers"]) if row else None


async def save_ratings(conn: Conn, *, user_id: int, field: str, user: Rated,
                       question_id: str, level: str, question: Rated) -> None:
    await conn.execute(
        "INSERT INTO user_ratings (user_id, field, rating, answers) VALUES (?, ?, ?, ?)"
        " ON CONFLICT (user_id, field) DO UPDATE SET rating = excluded.rating,"
        " answers = excluded.answers", (user_id, field, user.rating, user.answers))
    await conn.execute(
        "INSERT INTO question_ratings (question_id, field, level, rating, answers)"
        " VALUES (?, ?, ?, ?, ?) ON CONFLICT (question_id) DO UPDATE SET"
        " rating = excluded.rating, answers = excluded.answers",
        (question_id, field, level, question.rating, question.answers))


async def level_rating_in(conn: Conn, *, field: str, level: str) -> float | None:
    """The mean rating of the rated questions of a field's level, or None if none is rated."""
    row = await fetch_one(conn, "SELECT AVG(rating) AS mean FROM question_ratings"
                          " WHERE field = ? AND level = ?", (field, level))
    return row["mean"] if row and row["mean"] is not None else None


async def user_rating(db: Database, *, user_id: int, field: str) -> Rated | None:
    row = await db.fetchone("SELECT rating, answers FROM user_ratings"
                            " WHERE user_id = ? AND field = ?", (user_id, field))
    return Rated(row["rating"], row["answers"]) if row else None


async def question_ratings(db: Database, *, field: str, level: str | None) -> dict[str, float]:
    """The rated questions of a field (and level), by id."""
    if level is None:
        rows = await db.fetchall("SELECT question_id, rating FROM question_ratings"
                                 " WHERE field = ?", (field,))
    else:
        rows = await db.fetchall("SELECT question_id, rating FROM question_ratings"
                                 " WHERE field = ? AND level = ?", (field, level))
    return {r["question_id"]: r["rating"] for r in rows}
