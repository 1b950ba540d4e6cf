"""Answers per field and level, and the once-only "try the next level" suggestion."""

from __future__ import annotations

from dataclasses import dataclass

import aiosqlite

from domain import levels
from storage.db import fetch_one


@dataclass(frozen=True)
class LevelUp:
    """Suggest `next` to a user who answered `answered` questions at `level`, `correct` right."""

    level: str
    next: str
    answered: int
    correct: int


async def count_level_answer(conn: aiosqlite.Connection, *, user_id: int, field: str,
                             level: str, is_correct: bool, may_suggest: bool) -> LevelUp | None:
    """Count the answer; when it earns the suggestion (and may show it), mark it given and return
    it. Runs inside record_answer's transaction."""
    row = await fetch_one(
        conn,
        "INSERT INTO level_stats (user_id, field, level, answered, correct) VALUES (?, ?, ?, 1, ?)"
        " ON CONFLICT (user_id, field, level) DO UPDATE SET answered = answered + 1,"
        " correct = correct + excluded.correct RETURNING answered, correct, suggested",
        (user_id, field, level, int(is_correct)))
    if not may_suggest or row["suggested"]:
        return None
    user = await fetch_one(conn, "SELECT field, level FROM users WHERE user_id = ?", (user_id,))
    # Only for the level the user practises now: after moving up, old levels stay quiet.
    if user is None or (user["field"], user["level"]) != (field, level):
        return None
    target = levels.suggestion(level, row["answered"], row["correct"], already_suggested=False)
    if target is None:
        return None
    await conn.execute(
        "UPDATE level_stats SET suggested = 1 WHERE user_id = ? AND field = ? AND level = ?",
        (user_id, field, level))
    return LevelUp(level, target, row["answered"], row["correct"])
