"""FSRS review cards and logs: updated with each answer, and the due queue read back in order."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime

from fsrs import Card, ReviewLog

from storage.db import Conn, Database, Row, fetch_one


def _when(seconds: int | None) -> str | None:
    return datetime.fromtimestamp(seconds, UTC).isoformat() if seconds is not None else None


def _seconds(iso: str | None) -> int | None:
    return int(datetime.fromisoformat(iso).timestamp()) if iso else None


def card_from_row(row: Row) -> Card:
    return Card.from_dict({
        "card_id": row["card_id"], "state": row["state"], "step": row["step"],
        "stability": row["stability"], "difficulty": row["difficulty"],
        "due": _when(row["due_at"]) or "", "last_review": _when(row["last_review_at"]),
    })


async def recent_pace(conn: Conn, *, user_id: int) -> list[int]:
    """The user's recent answer times (ms), from which a review's speed rating is judged."""
    row = await fetch_one(conn, "SELECT recent_ms FROM answer_pace WHERE user_id = ?", (user_id,))
    return json.loads(row["recent_ms"]) if row else []


async def save_pace(conn: Conn, *, user_id: int, recent: list[int]) -> None:
    await conn.execute(
        "INSERT INTO answer_pace (user_id, recent_ms) VALUES (?, ?)"
        " ON CONFLICT (user_id) DO UPDATE SET recent_ms = excluded.recent_ms",
        (user_id, json.dumps(recent)))


async def card_in(conn: Conn, *, user_id: int, question_id: str) -> Card | None:
    """The card inside a transaction the caller holds."""
    row = await fetch_one(conn, "SELECT * FROM review_cards WHERE user_id = ? AND question_id = ?",
                          (user_id, question_id))
    return card_from_row(row) if row else None


async def save_review(conn: Conn, *, user_id: int, question_id: str,
                      answer_id: int, card: Card, log: ReviewLog) -> None:
    """The card after a review, and the review's log row (tied to the answer that caused it)."""
    stored = card.to_dict()
    await conn.execute(
        "INSERT INTO review_cards (user_id, question_id, card_id, state, step, stability,"
        " difficulty, due_at, last_review_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (user_id, question_id) DO UPDATE SET state = excluded.state,"
        " step = excluded.step, stability = excluded.stability,"
        " difficulty = excluded.difficulty, due_at = excluded.due_at,"
        " last_review_at = excluded.last_review_at",
        (user_id, question_id, stored["card_id"], stored["state"], stored["step"],
         stored["stability"], stored["difficulty"], _seconds(stored["due"]),
         _seconds(stored["last_review"])))
    entry = log.to_dict()
    await conn.execute(
        "INSERT INTO review_logs (answer_id, card_id, rating, reviewed_at, duration_ms)"
        " VALUES (?, ?, ?, ?, ?)",
        (answer_id, entry["card_id"], entry["rating"], _seconds(entry["review_datetime"]),
         entry["review_duration"]))


@dataclass(frozen=True)
class Due:
    question_id: str
    due_at: datetime


async def due_count(db: Database, *, user_id: int, now: datetime) -> int:
    """How many of the user's cards are due at `now` (the reminder message shows it)."""
    row = await db.fetchone(
        "SELECT COUNT(*) FROM review_cards WHERE user_id = ? AND due_at <= ?",
        (user_id, int(now.timestamp())))
    return int(row[0]) if row else 0


async def due_cards(db: Database, *, user_id: int, now: datetime, limit: int = 10) -> list[Due]:
    """The due cards, most overdue first."""
    rows = await db.fetchall(
        "SELECT question_id, due_at FROM review_cards WHERE user_id = ? AND due_at <= ?"
        " ORDER BY due_at, question_id LIMIT ?",
        (user_id, int(now.timestamp()), limit))
    return [Due(r["question_id"], datetime.fromtimestamp(r["due_at"], UTC)) for r in rows]


async def next_due(db: Database, *, user_id: int) -> datetime | None:
    """When the user's earliest card is due (None without cards)."""
    row = await db.fetchone("SELECT MIN(due_at) FROM review_cards WHERE user_id = ?", (user_id,))
    return datetime.fromtimestamp(row[0], UTC) if row and row[0] is not None else None


async def get_card(db: Database, *, user_id: int, question_id: str) -> Card | None:
    row = await db.fetchone("SELECT * FROM review_cards WHERE user_id = ? AND question_id = ?",
                            (user_id, question_id))
    return card_from_row(row) if row else None


async def forget_cards(db: Database, *, user_id: int, question_ids: list[str]) -> None:
    """Drop cards whose questions left the bank, so they stop counting as due."""
    async with db.transaction() as conn:
        await conn.executemany(
            "DELETE FROM review_cards WHERE user_id = ? AND question_id = ?",
            [(user_id, qid) for qid in question_ids])


async def review_logs(db: Database, *, user_id: int) -> list[ReviewLog]:
    """Every review the user made, oldest first (for re-scheduling or fitting FSRS parameters)."""
    rows = await db.fetchall(
        "SELECT l.card_id, l.rating, l.reviewed_at, l.duration_ms FROM answers a"
        " JOIN review_logs l ON l.answer_id = a.id WHERE a.user_id = ?"
        " ORDER BY a.answered_at, a.id", (user_id,))
    return [ReviewLog.from_dict({"card_id": r["card_id"], "rating": r["rating"],
                                 "review_datetime": _when(r["reviewed_at"]) or "",
                                 "review_duration": r["duration_ms"]}) for r in rows]


@dataclass(frozen=True)
class PastReview:
    answer_id: int
    rating: int
    reviewed_at: datetime
    duration_ms: int | None


async def card_reviews(conn: Conn, *, user_id: int, question_id: str,
                       card_id: int) -> list[PastReview]:
    """Every review of the user's card for the question, oldest first (to replay it)."""
    rows = await conn.execute_fetchall(
        "SELECT l.answer_id, l.rating, l.reviewed_at, l.duration_ms FROM answers a"
        " JOIN review_logs l ON l.answer_id = a.id"
        " WHERE a.user_id = ? AND a.question_id = ? AND l.card_id = ? ORDER BY a.id",
        (user_id, question_id, card_id))
    return [PastReview(r["answer_id"], r["rating"], datetime.fromtimestamp(r["reviewed_at"], UTC),
                       r["duration_ms"]) for r in rows]


async def save_rerated(conn: Conn, *, user_id: int, question_id: str,
                       answer_id: int, card: Card, rating: int) -> None:
    """The card after its last review was rated again, and that review's new rating."""
    stored = card.to_dict()
    await conn.execute(
        "UPDATE review_cards SET state = ?, step = ?, stability = ?, difficulty = ?, due_at = ?,"
        " last_review_at = ? WHERE user_id = ? AND question_id = ?",
        (stored["state"], stored["step"], stored["stability"], stored["difficulty"],
         _seconds(stored["due"]), _seconds(stored["last_review"]), user_id, question_id))
    await conn.execute("UPDATE review_logs SET rating = ? WHERE answer_id = ?",
                       (rating, answer_id))
