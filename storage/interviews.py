"""Mock interviews in SQLite: the planned questions, the position reached and every answer."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime

from domain.interviews import Previous, Result
from storage.answers import NewAnswer
from storage.db import Conn, Database, Row

ACTIVE = "active"
ENDINGS = frozenset({"finished", "stopped", "expired"})


@dataclass(frozen=True)
class Interview:
    id: int
    user_id: int
    field: str
    level: str
    question_ids: list[str]
    position: int
    answered: int
    correct: int
    status: str
    chat_id: int
    message_id: int | None
    asked_at_ms: int | None
    started_at: datetime
    ended_at: datetime | None

    @property
    def total(self) -> int:
        return len(self.question_ids)

    @property
    def current(self) -> str | None:
        """The id of the question being asked, or None past the last one."""
        return self.question_ids[self.position] if self.position < self.total else None

    @property
    def seen(self) -> list[str]:
        """The questions the user was shown (the current one included)."""
        return self.question_ids[: self.position + 1]


def _interview(row: Row) -> Interview:
    return Interview(
        id=row["id"], user_id=row["user_id"], field=row["field"], level=row["level"],
        question_ids=json.loads(row["question_ids"]), position=row["position"],
        answered=row["answered"], correct=row["correct"], status=row["status"],
        chat_id=row["chat_id"], message_id=row["message_id"], asked_at_ms=row["asked_at_ms"],
        started_at=datetime.fromtimestamp(row["started_at"], UTC),
        ended_at=datetime.fromtimestamp(row["ended_at"], UTC) if row["ended_at"] else None)


async def get_interview(db: Database, *, interview_id: int) -> Interview | None:
    row = await db.fetchone("SELECT * FROM interviews WHERE id = ?", (interview_id,))
    return _interview(row) if row else None


async def active_interview(db: Database, *, user_id: int) -> Interview | None:
    row = await db.fetchone("SELECT * FROM interviews WHERE user_id = ? AND status = 'active'",
                            (user_id,))
    return _interview(row) if row else None


async def last_interview(db: Database, *, user_id: int) -> Interview | None:
    """The user's most recent interview that is over."""
    row = await db.fetchone(
        "SELECT * FROM interviews WHERE user_id = ? AND status != 'active' ORDER BY id DESC LIMIT 1",
        (user_id,))
    return _interview(row) if row else None


async def start_interview(db: Database, *, user_id: int, field: str, level: str,
                          question_ids: list[str], chat_id: int, now: datetime) -> Interview:
    """A new active interview, or the one already active (two /interview at once start one)."""
    async with db.transaction() as conn:
        await conn.execute(
            "INSERT INTO interviews (user_id, field, level, question_ids, chat_id, started_at)"
            " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            (user_id, field, level, json.dumps(question_ids), chat_id, int(now.timestamp())))
        async with conn.execute("SELECT * FROM interviews WHERE user_id = ? AND status = 'active'",
                                (user_id,)) as cur:
            row = await cur.fetchone()
    assert row is not None  # inserted or already active, in this transaction
    return _interview(row)


async def mark_asked(db: Database, *, interview_id: int, position: int, message_id: int,
                     asked_at_ms: int) -> None:
    """The message now showing question `position`, and when it was sent (to time the answer)."""
    await db.execute(
        "UPDATE interviews SET message_id = ?, asked_at_ms = ? WHERE id = ? AND position = ?"
        " AND status = 'active'", (message_id, asked_at_ms, interview_id, position))


async def take_position(conn: Conn, *, interview: Interview, position: int,
                        answer: NewAnswer) -> bool:
    """Move the interview past `position` with this answer (the last one finishes it); False
    when that question was already answered or the interview is over (a double or late tap)."""
    done = position + 1 >= interview.total
    cur = await conn.execute(
        "UPDATE interviews SET position = position + 1, answered = answered + 1,"
        " correct = correct + ?, status = CASE WHEN ? THEN 'finished' ELSE status END,"
        " ended_at = CASE WHEN ? THEN ? ELSE ended_at END"
        " WHERE id = ? AND position = ? AND status = 'active'",
        (int(answer.is_correct), done, done, answer.answered_at, interview.id, position))
    return cur.rowcount == 1


async def add_answer(conn: Conn, *, interview_id: int, position: int,
                     answer: NewAnswer) -> None:
    await conn.execute(
        "INSERT INTO interview_answers (interview_id, position, question_id, topic, chosen,"
        " is_correct, elapsed_ms) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (interview_id, position, answer.question_id, answer.topic, answer.chosen,
         int(answer.is_correct), answer.elapsed_ms))


async def skip_question(db: Database, *, interview_id: int, position: int, now: datetime) -> None:
    """Move past a question that left the bank (after an update), finishing if it was the last."""
    await db.execute(
        "UPDATE interviews SET position = position + 1,"
        " status = CASE WHEN position + 1 >= json_array_length(question_ids) THEN 'finished'"
        " ELSE status END, ended_at = CASE WHEN position + 1 >= json_array_length(question_ids)"
        " THEN ? ELSE ended_at END WHERE id = ? AND position = ? AND status = 'active'",
        (int(now.timestamp()), interview_id, position))


async def end_interview(db: Database, *, interview_id: int, status: str, now: datetime) -> bool:
    """Stop or expire an active interview; False when it had already ended."""
    if status not in ENDINGS:
        raise ValueError(f"not an ending: {status}")
    changed = await db.execute(
        "UPDATE interviews SET status = ?, ended_at = ? WHERE id = ? AND status = 'active'",
        (status, int(now.timestamp()), interview_id))
    return changed > 0


async def interview_results(db: Database, *, interview_id: int) -> list[Result]:
    """The answers given, in order."""
    rows = await db.fetchall(
        "SELECT position, question_id, topic, chosen, is_correct, elapsed_ms"
        " FROM interview_answers WHERE interview_id = ? ORDER BY position", (interview_id,))
    return [Result(r["position"], r["question_id"], r["topic"], r["chosen"],
                   bool(r["is_correct"]), r["elapsed_ms"]) for r in rows]


async def previous_result(db: Database, *, interview: Interview,
                          min_answers: int = 1) -> Previous | None:
    """The user's last earlier interview in the same field and level with at least
    `min_answers` answers (or all its questions answered, when it had fewer)."""
    row = await db.fetchone(
        "SELECT answered, correct, COALESCE(ended_at, started_at) AS ended FROM interviews"
        " WHERE user_id = ? AND id < ? AND field = ? AND level = ? AND answered > 0"
        " AND (answered >= ? OR answered >= json_array_length(question_ids))"
        " AND status != 'active' ORDER BY id DESC LIMIT 1",
        (interview.user_id, interview.id, interview.field, interview.level, min_answers))
    if row is None:
        return None
    return Previous(row["answered"], row["correct"], datetime.fromtimestamp(row["ended"], UTC))
