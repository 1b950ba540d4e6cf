"""Answers per field and level, and the once-only "try the next level" suggestion."""

from __future__ import annotations

from dataclasses import dataclass

from storage.db import Conn, fetch_row


@dataclass(frozen=True)
class LevelUp:
    """Suggest `next` to a user who answered `answered` questions at `level`, `correct` right,
    whose rating `rating` predicts `chance` percent right at `next`."""

    level: str
    next: str
    answered: int
    correct: int
    rating: int = 0
    chance: int = 0


@dataclass(frozen=True)
class LevelTotals:
    answered: int
    correct: int
    suggested: bool


async def count_level_answer(conn: Conn, *, user_id: int, field: str,
                             level: str, is_correct: bool) -> LevelTotals:
    """Count the answer at its field and level; the totals after it."""
    row = await fetch_row(
        conn,
        "INSERT INTO level_stats (user_id, field, level, answered, correct) VALUES (?, ?, ?, 1, ?)"
        " ON CONFLICT (user_id, field, level) DO UPDATE SET"
        " answered = level_stats.answered + 1, correct = level_stats.correct + excluded.correct"
        " RETURNING answered, correct, suggested",
        (user_id, field, level, int(is_correct)))
    return LevelTotals(row["answered"], row["correct"], bool(row["suggested"]))


async def mark_suggested(conn: Conn, *, user_id: int, field: str,
                         level: str) -> None:
    await conn.execute(
        "UPDATE level_stats SET suggested = 1 WHERE user_id = ? AND field = ? AND level = ?",
        (user_id, field, level))
