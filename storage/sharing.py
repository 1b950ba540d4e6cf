"""Questions shared in inline mode: the shared message, everyone's first tap, the tally shown."""

from __future__ import annotations

from dataclasses import dataclass

from storage.db import Conn, Database


@dataclass(frozen=True)
class Shared:
    inline_message_id: str
    question_id: str
    language: str
    options_order: str
    shown_answered: int
    shown_right: int
    edited_at: int


@dataclass(frozen=True)
class Tally:
    answered: int
    right: int


def _shared(row) -> Shared:
    return Shared(row["inline_message_id"], row["question_id"], row["language"],
                  row["options_order"], row["shown_answered"], row["shown_right"],
                  row["edited_at"])


async def remember_shared(conn: Conn, *, inline_message_id: str,
                          question_id: str, language: str, options_order: str, now: int) -> None:
    """The shared message, on its first tap (Telegram tells the bot nothing before that)."""
    await conn.execute(
        "INSERT INTO shared_questions (inline_message_id, question_id, language, options_order,"
        " created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (inline_message_id) DO NOTHING",
        (inline_message_id, question_id, language, options_order, now))


async def insert_tap(conn: Conn, *, inline_message_id: str, user_id: int,
                     chosen: str, is_correct: bool, now: int) -> bool:
    """Store a first tap; False if this person had tapped already."""
    cur = await conn.execute(
        "INSERT INTO shared_answers (inline_message_id, user_id, chosen, is_correct, answered_at)"
        " VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
        (inline_message_id, user_id, chosen, int(is_correct), now))
    return cur.rowcount == 1


async def earlier_choice(db: Database, *, inline_message_id: str, user_id: int) -> str | None:
    row = await db.fetchone(
        "SELECT chosen FROM shared_answers WHERE inline_message_id = ? AND user_id = ?",
        (inline_message_id, user_id))
    return row["chosen"] if row else None


async def get_shared(db: Database, *, inline_message_id: str) -> Shared | None:
    row = await db.fetchone("SELECT * FROM shared_questions WHERE inline_message_id = ?",
                            (inline_message_id,))
    return _shared(row) if row else None


async def tally(db: Database, *, inline_message_id: str) -> Tally:
    row = await db.fetchone(
        "SELECT COUNT(*) AS answered, COALESCE(SUM(is_correct), 0) AS right"
        " FROM shared_answers WHERE inline_message_id = ?", (inline_message_id,))
    return Tally(row["answered"], row["right"]) if row else Tally(0, 0)


async def claim_edit(db: Database, *, inline_message_id: str, now: int, every: int) -> bool:
    """Take the message's next edit slot: True at most once every `every` seconds, so however
    many tap at once, one edit goes out (the database decides, not a lock in one process)."""
    changed = await db.execute(
        "UPDATE shared_questions SET edited_at = ? WHERE inline_message_id = ?"
        " AND edited_at <= ?", (now, inline_message_id, now - every))
    return changed == 1


async def set_edited(db: Database, *, inline_message_id: str, now: int) -> None:
    await db.execute("UPDATE shared_questions SET edited_at = ? WHERE inline_message_id = ?",
                     (now, inline_message_id))


async def mark_shown(db: Database, *, inline_message_id: str, shown: Tally) -> bool:
    """Record that the message now shows `shown`; False if it showed that already."""
    changed = await db.execute(
        "UPDATE shared_questions SET shown_answered = ?, shown_right = ?"
        " WHERE inline_message_id = ? AND (shown_answered != ? OR shown_right != ?)",
        (shown.answered, shown.right, inline_message_id, shown.answered, shown.right))
    return changed == 1


async def behind(db: Database, *, since: int) -> list[str]:
    """Shared messages with taps they do not show yet (an edit a restart interrupted)."""
    rows = await db.fetchall(
        "SELECT s.inline_message_id FROM shared_questions s WHERE s.created_at >= ? AND"
        " s.shown_answered < (SELECT COUNT(*) FROM shared_answers a"
        " WHERE a.inline_message_id = s.inline_message_id)", (since,))
    return [r["inline_message_id"] for r in rows]
