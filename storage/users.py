"""Users and their choices (language, field, level, time zone)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date

from storage.db import Conn, Database, fetch_row

EDITABLE = frozenset({"first_name", "language", "field", "level", "timezone", "pending_question"})


@dataclass
class User:
    user_id: int
    first_name: str
    language: str | None
    field: str | None
    level: str | None
    timezone: str | None
    answered: int
    correct: int
    group_answered: int
    streak_current: int
    streak_best: int
    last_active_day: date | None
    private_since: int | None = None  # when they first wrote to the bot in private


def _user(row) -> User:
    last = row["last_active_day"]
    return User(
        user_id=row["user_id"], first_name=row["first_name"], language=row["language"],
        field=row["field"], level=row["level"], timezone=row["timezone"],
        answered=row["answered"], correct=row["correct"],
        group_answered=row["group_answered"],
        streak_current=row["streak_current"], streak_best=row["streak_best"],
        last_active_day=date.fromisoformat(last) if last else None,
        private_since=row["private_since"],
    )


async def get_user(db: Database, *, user_id: int) -> User | None:
    row = await db.fetchone("SELECT * FROM users WHERE user_id = ?", (user_id,))
    return _user(row) if row else None


async def ensure_user(db: Database, *, user_id: int, first_name: str, language: str | None,
                      now: int) -> User:
    """The stored user, created on first contact with the language Telegram reported; a first
    name Telegram now reports differently replaces the stored one (scoreboards show it)."""
    first_name = first_name[:64]
    row = await db.fetchone("SELECT * FROM users WHERE user_id = ?", (user_id,))
    if row is not None and (not first_name or row["first_name"] == first_name):
        return _user(row)  # the usual case: one read, no write transaction
    if row is not None:
        await db.execute("UPDATE users SET first_name = ? WHERE user_id = ?",
                         (first_name, user_id))
        return replace(_user(row), first_name=first_name)
    async with db.transaction() as conn:
        await conn.execute(
            "INSERT INTO users (user_id, first_name, language, created_at) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (user_id) DO NOTHING",
            (user_id, first_name, language, now))
        [row] = await conn.execute_fetchall("SELECT * FROM users WHERE user_id = ?", (user_id,))
    return _user(row)


async def update_user(db: Database, *, user_id: int, **values: str | None) -> None:
    unknown = set(values) - EDITABLE
    if unknown:
        raise ValueError(f"not editable: {sorted(unknown)}")
    if not values:
        return
    assignments = ", ".join(f"{column} = ?" for column in values)
    await db.execute(f"UPDATE users SET {assignments} WHERE user_id = ?",
                     (*values.values(), user_id))


@dataclass(frozen=True)
class Activity:
    """What an answer changes on the user's row: the streak and the practice choices."""

    streak_current: int
    streak_best: int
    last_active_day: date | None
    field: str | None
    level: str | None


async def read_activity(conn: Conn, *, user_id: int) -> Activity:
    row = await fetch_row(
        conn, "SELECT streak_current, streak_best, last_active_day, field, level FROM users"
        " WHERE user_id = ?", (user_id,))
    last = row["last_active_day"]
    return Activity(row["streak_current"], row["streak_best"],
                    date.fromisoformat(last) if last else None, row["field"], row["level"])


async def count_answer(conn: Conn, *, user_id: int, is_correct: bool,
                       in_group: bool, streak: int, best: int, active_day: date) -> None:
    await conn.execute(
        "UPDATE users SET answered = answered + 1, correct = correct + ?, streak_current = ?,"
        " streak_best = ?, last_active_day = ?, group_answered = group_answered + ?"
        " WHERE user_id = ?",
        (int(is_correct), streak, best, active_day.isoformat(), int(in_group), user_id))


async def take_pending_question(db: Database, *, user_id: int) -> str | None:
    """The question the user opened the bot on before setting up, once (it is cleared)."""
    async with db.transaction() as conn:
        rows = list(await conn.execute_fetchall(
            "SELECT pending_question FROM users WHERE user_id = ?", (user_id,)))
        pending = rows[0]["pending_question"] if rows else None
        if pending is not None:
            await conn.execute("UPDATE users SET pending_question = NULL WHERE user_id = ?",
                               (user_id,))
    return pending


async def mark_private(db: Database, *, user_id: int, now: int) -> None:
    """The user wrote to the bot in private: from now on the bot may write to them first."""
    await db.execute("UPDATE users SET private_since = ? WHERE user_id = ? AND private_since IS NULL",
                     (now, user_id))
