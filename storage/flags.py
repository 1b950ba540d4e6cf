"""Reports on questions: who reported which question for what reason, the comment wait, and the
open reports grouped by question for admins (/flags) and pack authors (python -m questions)."""

from __future__ import annotations

from dataclasses import dataclass

from storage.db import Database

REASONS = ("key", "unclear", "outdated", "typo")


@dataclass(frozen=True)
class FlaggedQuestion:
    """The open reports on one question: counts per reason, and the comments left."""

    question_id: str
    first_flag_id: int  # stands for the question on the fixed / dismissed buttons
    reports: int
    reasons: dict[str, int]
    comments: list[str]
    first_at: int


async def add_flag(db: Database, *, question_id: str, user_id: int, reason: str,
                   now: int, comment_until: int | None) -> int | None:
    """Store the report and, with `comment_until`, wait for its comment until then; its id, or
    None if this user already reported this question for this reason."""
    async with db.transaction() as conn:
        cur = await conn.execute(
            "INSERT INTO question_flags (question_id, user_id, reason, created_at)"
            " VALUES (?, ?, ?, ?) ON CONFLICT (question_id, user_id, reason) DO NOTHING"
            " RETURNING id",
            (question_id, user_id, reason, now))
        row = await cur.fetchone()
        await cur.close()
        if row is None:
            return None
        flag_id = row[0]
        if comment_until is None:
            return flag_id
        await conn.execute(
            "INSERT INTO flag_waiting (user_id, flag_id, until) VALUES (?, ?, ?)"
            " ON CONFLICT (user_id) DO UPDATE SET flag_id = excluded.flag_id,"
            " until = excluded.until", (user_id, flag_id, comment_until))
        return flag_id


async def waiting_flag(db: Database, *, user_id: int, now: int) -> int | None:
    """The report whose comment the user's next message is, or None."""
    row = await db.fetchone("SELECT flag_id, until FROM flag_waiting WHERE user_id = ?",
                            (user_id,))
    return row["flag_id"] if row is not None and row["until"] > now else None


async def stop_waiting(db: Database, *, user_id: int) -> None:
    await db.execute("DELETE FROM flag_waiting WHERE user_id = ?", (user_id,))


async def save_comment(db: Database, *, user_id: int, flag_id: int, comment: str) -> bool:
    """Attach the comment to the user's own report and end the wait; False if it is gone."""
    async with db.transaction() as conn:
        await conn.execute("DELETE FROM flag_waiting WHERE user_id = ?", (user_id,))
        cur = await conn.execute(
            "UPDATE question_flags SET comment = ? WHERE id = ? AND user_id = ?",
            (comment, flag_id, user_id))
        return cur.rowcount > 0


async def open_flags(db: Database) -> list[FlaggedQuestion]:
    """Every question with open reports, most reported first (then the oldest first)."""
    rows = await db.fetchall(
        "SELECT id, question_id, reason, comment, created_at FROM question_flags"
        " WHERE status = 'open' ORDER BY question_id, id")
    grouped: dict[str, list] = {}
    for row in rows:
        grouped.setdefault(row["question_id"], []).append(row)
    result = []
    for question_id, flags in grouped.items():
        reasons: dict[str, int] = {}
        for flag in flags:
            reasons[flag["reason"]] = reasons.get(flag["reason"], 0) + 1
        result.append(FlaggedQuestion(
            question_id, flags[0]["id"], len(flags), reasons,
            [f["comment"] for f in flags if f["comment"]], flags[0]["created_at"]))
    result.sort(key=lambda f: (-f.reports, f.first_at, f.question_id))
    return result


async def resolve_question(db: Database, *, flag_id: int, status: str, now: int) -> int:
    """Close every open report on the question `flag_id` belongs to; how many were closed."""
    assert status in ("fixed", "dismissed")
    return await db.execute(
        "UPDATE question_flags SET status = ?, resolved_at = ? WHERE status = 'open'"
        " AND question_id = (SELECT question_id FROM question_flags WHERE id = ?)",
        (status, now, flag_id))
