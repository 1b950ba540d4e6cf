"""The /mistakes list: questions whose last answer was wrong, and right answers marked "I
guessed"; and the answer a guess refers to. The rules are in services/answers.py."""

from __future__ import annotations

from dataclasses import dataclass

from storage.db import Conn, Database, fetch_one


async def mistake_ids(db: Database, *, user_id: int) -> list[str]:
    """The user's mistakes, longest waiting first (a guess keeps its question until a right
    answer after it clears the mark; a wrong last answer keeps it until the next right one)."""
    rows = await db.fetchall(
        "SELECT p.question_id FROM progress p LEFT JOIN guessed g"
        " ON g.user_id = p.user_id AND g.question_id = p.question_id"
        " WHERE p.user_id = ? AND (p.last_is_correct = 0 OR g.question_id IS NOT NULL)"
        " ORDER BY p.last_answered_at, p.question_id", (user_id,))
    return [r["question_id"] for r in rows]


async def clear_guess(conn: Conn, *, user_id: int, question_id: str) -> None:
    """A right answer after a guess: the question leaves the list (in the answer's transaction)."""
    await conn.execute("DELETE FROM guessed WHERE user_id = ? AND question_id = ?",
                       (user_id, question_id))


async def mark_guessed(conn: Conn, *, user_id: int, question_id: str,
                       answer_id: int, now: int) -> bool:
    """Mark the answer as a guess; False when it already is (a second tap)."""
    cur = await conn.execute(
        "INSERT INTO guessed (user_id, question_id, answer_id, marked_at) VALUES (?, ?, ?, ?)"
        " ON CONFLICT (user_id, question_id) DO NOTHING",
        (user_id, question_id, answer_id, now))
    return cur.rowcount > 0


@dataclass(frozen=True)
class GuessTarget:
    """The answer an `I guessed` button refers to."""

    user_id: int
    question_id: str
    is_correct: bool
    latest: bool  # no later answer to the same question (its review card is this answer's)


async def guess_target(conn: Conn, *, answer_id: int) -> GuessTarget | None:
    row = await fetch_one(
        conn,
        "SELECT a.user_id, a.question_id, a.is_correct, NOT EXISTS (SELECT 1 FROM answers b"
        " WHERE b.user_id = a.user_id AND b.question_id = a.question_id AND b.id > a.id)"
        " AS latest FROM answers a WHERE a.id = ?", (answer_id,))
    if row is None:
        return None
    return GuessTarget(row["user_id"], row["question_id"], bool(row["is_correct"]),
                       bool(row["latest"]))
