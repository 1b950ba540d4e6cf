"""Group rounds in SQLite: the round, its questions' progress, first taps, scores, leaderboards.

Everything a round needs to carry on after a restart is here; the job queue only holds timers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from domain.rounds import QuestionState, Standing
from storage.answers import NewAnswer
from storage.db import Conn, Database, integrity_errors

RUNNING: Final = "running"
FINISHED: Final = "finished"
STOPPED: Final = "stopped"


@dataclass(frozen=True)
class Round:
    id: int
    chat_id: int
    started_by: int
    language: str
    seconds: int
    status: str
    started_at: int
    question_count: int
    thread_id: int | None = None  # the forum topic it posts in

    @property
    def is_running(self) -> bool:
        return self.status == RUNNING


_ROUND_SQL = (
    "SELECT r.id, r.chat_id, r.started_by, r.language, r.seconds, r.status, r.started_at,"
    " (SELECT COUNT(*) FROM round_questions q WHERE q.round_id = r.id) AS question_count,"
    " r.thread_id FROM rounds r")


def _round(row) -> Round:
    return Round(row["id"], row["chat_id"], row["started_by"], row["language"], row["seconds"],
                 row["status"], row["started_at"], row["question_count"], row["thread_id"])


def _question(row) -> QuestionState:
    return QuestionState(row["position"], row["question_id"], row["message_id"],
                         row["opened_at_ms"], row["deadline_ms"], row["closed_at_ms"],
                         row["reported_at_ms"])


async def create_round(db: Database, *, chat_id: int, started_by: int, language: str,
                       seconds: int, question_ids: list[str], now: int,
                       thread_id: int | None = None) -> Round | None:
    """The new round (posting in forum topic `thread_id`, if any), or None when the group
    already has one running."""
    try:
        async with db.transaction() as conn:
            cur = await conn.execute(
                "INSERT INTO rounds (chat_id, started_by, language, seconds, started_at,"
                " thread_id) VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
                (chat_id, started_by, language, seconds, now, thread_id))
            round_id = (await cur.fetchone())[0]
            await cur.close()
            assert round_id is not None
            await conn.executemany(
                "INSERT INTO round_questions (round_id, position, question_id) VALUES (?, ?, ?)",
                [(round_id, position, qid) for position, qid in enumerate(question_ids, 1)])
    except integrity_errors():
        return None
    return Round(round_id, chat_id, started_by, language, seconds, RUNNING, now,
                 len(question_ids), thread_id)


async def get_round(db: Database, *, round_id: int) -> Round | None:
    row = await db.fetchone(f"{_ROUND_SQL} WHERE r.id = ?", (round_id,))
    return _round(row) if row else None


async def running_round(db: Database, *, chat_id: int) -> Round | None:
    row = await db.fetchone(f"{_ROUND_SQL} WHERE r.chat_id = ? AND r.status = ?",
                            (chat_id, RUNNING))
    return _round(row) if row else None


async def running_rounds(db: Database) -> list[Round]:
    return [_round(r) for r in await db.fetchall(f"{_ROUND_SQL} WHERE r.status = ?", (RUNNING,))]


async def end_round(db: Database, *, round_id: int, status: Literal["finished", "stopped"],
                    now: int) -> bool:
    """Mark a running round finished or stopped; False if it had already ended."""
    changed = await db.execute(
        "UPDATE rounds SET status = ?, ended_at = ? WHERE id = ? AND status = ?",
        (status, now, round_id, RUNNING))
    return changed == 1


async def round_questions(db: Database, *, round_id: int) -> list[QuestionState]:
    rows = await db.fetchall(
        "SELECT * FROM round_questions WHERE round_id = ? ORDER BY position", (round_id,))
    return [_question(r) for r in rows]


async def tap_target(db: Database, *, round_id: int,
                     position: int) -> tuple[Round, QuestionState] | None:
    """The round and the question a tap is for, in one query (taps come in bursts)."""
    row = await db.fetchone(
        "SELECT r.id, r.chat_id, r.started_by, r.language, r.seconds, r.status, r.started_at,"
        " (SELECT COUNT(*) FROM round_questions c WHERE c.round_id = r.id) AS question_count,"
        " r.thread_id, q.* FROM rounds r JOIN round_questions q ON q.round_id = r.id"
        " WHERE r.id = ? AND q.position = ?", (round_id, position))
    return (_round(row), _question(row)) if row else None


async def get_question(db: Database, *, round_id: int, position: int) -> QuestionState | None:
    row = await db.fetchone(
        "SELECT * FROM round_questions WHERE round_id = ? AND position = ?", (round_id, position))
    return _question(row) if row else None


async def open_question(db: Database, *, round_id: int, position: int, opened_at_ms: int,
                        deadline_ms: int) -> None:
    """Start the clock before the question is sent, so no early tap finds it closed."""
    await db.execute(
        "UPDATE round_questions SET opened_at_ms = ?, deadline_ms = ?, message_id = NULL"
        " WHERE round_id = ? AND position = ?", (opened_at_ms, deadline_ms, round_id, position))


async def set_message(db: Database, *, round_id: int, position: int, message_id: int) -> None:
    await db.execute(
        "UPDATE round_questions SET message_id = ? WHERE round_id = ? AND position = ?",
        (message_id, round_id, position))


async def forget_messages(db: Database, *, round_id: int) -> None:
    """The group moved to a new chat id: messages not yet revealed cannot be edited there, so
    an open question is asked again in the new chat and a closed one is reported without one."""
    await db.execute(
        "UPDATE round_questions SET message_id = NULL WHERE round_id = ?"
        " AND reported_at_ms IS NULL", (round_id,))


async def close_question(db: Database, *, round_id: int, position: int, now_ms: int) -> bool:
    """No more taps count; False if it was closed already."""
    changed = await db.execute(
        "UPDATE round_questions SET closed_at_ms = ? WHERE round_id = ? AND position = ?"
        " AND closed_at_ms IS NULL", (now_ms, round_id, position))
    return changed == 1


async def mark_reported(db: Database, *, round_id: int, position: int, now_ms: int) -> None:
    await db.execute(
        "UPDATE round_questions SET reported_at_ms = ? WHERE round_id = ? AND position = ?",
        (now_ms, round_id, position))


@dataclass(frozen=True)
class Tap:
    """What became of a tap: `recorded`, `already` (an earlier tap counts) or `closed`."""

    outcome: Literal["recorded", "already", "closed"]
    chosen: str | None = None


async def insert_tap(conn: Conn, *, round_id: int, position: int,
                     answer: NewAnswer, points: int) -> bool:
    """Store a member's first tap on an open question of a running round; False when they had
    tapped already or the question has closed (the reveal closes it in its own transaction)."""
    # One statement for the common case (a first tap on an open question): taps come in
    # bursts, and each round trip to SQLite's thread counts.
    cur = await conn.execute(
        "INSERT INTO round_answers (round_id, position, user_id, chosen, is_correct,"
        " elapsed_ms, points, answered_at) SELECT ?, ?, ?, ?, ?, ?, ?, ?"
        " WHERE EXISTS (SELECT 1 FROM round_questions q JOIN rounds r ON r.id = q.round_id"
        " WHERE q.round_id = ? AND q.position = ? AND q.closed_at_ms IS NULL"
        " AND r.status = ?) ON CONFLICT DO NOTHING",
        (round_id, position, answer.user_id, answer.chosen, int(answer.is_correct),
         answer.elapsed_ms or 0, points, answer.answered_at, round_id, position, RUNNING))
    return cur.rowcount == 1


async def earlier_tap(conn: Conn, *, round_id: int, position: int,
                      user_id: int) -> str | None:
    """The option a member chose before on this question, if any."""
    rows = await conn.execute_fetchall(
        "SELECT chosen FROM round_answers WHERE round_id = ? AND position = ?"
        " AND user_id = ?", (round_id, position, user_id))
    return next((row["chosen"] for row in rows), None)


async def answer_count(db: Database, *, round_id: int, position: int) -> int:
    row = await db.fetchone(
        "SELECT COUNT(*) AS n FROM round_answers WHERE round_id = ? AND position = ?",
        (round_id, position))
    return row["n"] if row else 0


@dataclass(frozen=True)
class Result:
    user_id: int
    name: str
    chosen: str
    is_correct: bool
    elapsed_ms: int
    points: int


async def question_results(db: Database, *, round_id: int, position: int) -> list[Result]:
    """Every counted answer to one question, fastest first."""
    rows = await db.fetchall(
        "SELECT a.user_id, u.first_name, a.chosen, a.is_correct, a.elapsed_ms, a.points"
        " FROM round_answers a JOIN users u ON u.user_id = a.user_id"
        " WHERE a.round_id = ? AND a.position = ? ORDER BY a.elapsed_ms, a.answered_at, a.user_id",
        (round_id, position))
    return [Result(r["user_id"], r["first_name"], r["chosen"], bool(r["is_correct"]),
                   r["elapsed_ms"], r["points"]) for r in rows]


async def round_standings(db: Database, *, round_id: int) -> list[Standing]:
    """Each player of one round: points and right answers."""
    rows = await db.fetchall(
        "SELECT a.user_id, u.first_name, SUM(a.points) AS points, SUM(a.is_correct) AS right"
        " FROM round_answers a JOIN users u ON u.user_id = a.user_id"
        " WHERE a.round_id = ? GROUP BY a.user_id, u.first_name", (round_id,))
    return [Standing(r["user_id"], r["first_name"], r["points"], r["right"], 1) for r in rows]


async def leaderboard(db: Database, *, chat_id: int, since: int | None = None) -> list[Standing]:
    """Each player's points, right answers and rounds played in the group (since a time)."""
    rows = await db.fetchall(
        "SELECT a.user_id, u.first_name, SUM(a.points) AS points, SUM(a.is_correct) AS right,"
        " COUNT(DISTINCT a.round_id) AS rounds"
        " FROM round_answers a JOIN rounds r ON r.id = a.round_id"
        " JOIN users u ON u.user_id = a.user_id"
        " WHERE r.chat_id = ? AND a.answered_at >= ? GROUP BY a.user_id, u.first_name",
        (chat_id, since if since is not None else 0))
    return [Standing(r["user_id"], r["first_name"], r["points"], r["right"], r["rounds"])
            for r in rows]


async def recent_question_ids(db: Database, *, chat_id: int, limit: int = 200) -> list[str]:
    """Questions the group had in its latest rounds, so a new round prefers others."""
    rows = await db.fetchall(
        "SELECT q.question_id FROM round_questions q JOIN rounds r ON r.id = q.round_id"
        " WHERE r.chat_id = ? ORDER BY r.id DESC, q.position LIMIT ?", (chat_id, limit))
    return [r["question_id"] for r in rows]
