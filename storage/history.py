"""Answers per local day over a time window, for the progress chart (one indexed range query)."""

from __future__ import annotations

from datetime import date

from domain.activity import Tally, from_day_number
from storage.db import Database


async def daily_tallies(db: Database, *, user_id: int, since: int,
                        utc_offset: int) -> dict[date, Tally]:
    """Answered and right per local day from `since` (unix seconds); `utc_offset` in seconds.

    A range on the answers_user_time index; grouping by day happens in SQLite, so only one row
    per day comes back however many answers there were.
    """
    rows = await db.fetchall(
        "SELECT (answered_at + ?) / 86400 AS day, COUNT(*) AS answered, SUM(is_correct) AS correct"
        " FROM answers WHERE user_id = ? AND answered_at >= ? GROUP BY day",
        (utc_offset, user_id, since))
    return {from_day_number(r["day"]): Tally(r["answered"], r["correct"]) for r in rows}
