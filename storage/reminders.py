"""Reminders and time zones in SQLite: set, switch off, reschedule, and claim the due ones.

Claiming marks a day as sent in the same transaction that finds it due, before anything is
sent: a crash or a second process can then lose that day's reminder, but never send it twice.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime

from domain import reminders, streaks, timezones
from domain.reminders import Schedule
from storage.db import Conn, Database, Row


@dataclass(frozen=True)
class Reminder:
    user_id: int
    schedule: Schedule
    due_at: datetime | None   # None while reminders are off
    due_day: date | None
    sent_day: date | None

    @property
    def on(self) -> bool:
        return self.due_at is not None


@dataclass(frozen=True)
class DueReminder:
    """A reminder claimed for sending, with what its message needs."""

    user_id: int
    language: str | None
    due_day: date
    due_at: datetime
    streak: int
    practised_today: bool = False  # an `always` reminder to someone who already practised


@dataclass(frozen=True)
class Claim:
    due: list[DueReminder]   # to send now, earliest first
    settled: int             # rows looked at (sent, skipped or moved); 0 when nothing was due


def _day(text: str | None) -> date | None:
    return date.fromisoformat(text) if text else None


def _instant(seconds: int | None) -> datetime | None:
    return datetime.fromtimestamp(seconds, UTC) if seconds is not None else None


def _reminder(row: Row) -> Reminder:
    return Reminder(
        user_id=row["user_id"],
        schedule=Schedule(row["minute"], row["weekdays"], bool(row["always"])),
        due_at=_instant(row["due_at"]), due_day=_day(row["due_day"]),
        sent_day=_day(row["sent_day"]))


async def get_reminder(db: Database, *, user_id: int) -> Reminder | None:
    row = await db.fetchone("SELECT * FROM reminders WHERE user_id = ?", (user_id,))
    return _reminder(row) if row else None


async def _zone_of(conn: Conn, user_id: int):
    async with conn.execute("SELECT timezone, language FROM users WHERE user_id = ?",
                            (user_id,)) as cur:
        row = await cur.fetchone()
    if row is None:
        raise LookupError(f"no user {user_id}")
    return timezones.zone(row["timezone"], row["language"])


async def _reschedule(conn: Conn, user_id: int, now: datetime) -> None:
    """Recompute the next reminder of a user whose reminders are on (after any change)."""
    async with conn.execute("SELECT * FROM reminders WHERE user_id = ? AND due_at IS NOT NULL",
                            (user_id,)) as cur:
        row = await cur.fetchone()
    if row is None:
        return
    current = _reminder(row)
    day, due = reminders.next_occurrence(now, current.schedule, await _zone_of(conn, user_id),
                                         sent_day=current.sent_day)
    await conn.execute(
        "UPDATE reminders SET due_at = ?, due_day = ?, updated_at = ? WHERE user_id = ?",
        (int(due.timestamp()), day.isoformat(), int(now.timestamp()), user_id))


async def save_reminder(db: Database, *, user_id: int, schedule: Schedule,
                        now: datetime) -> Reminder:
    """Switch reminders on with this schedule; the next one is never on a day already sent."""
    async with db.transaction() as conn:
        async with conn.execute("SELECT sent_day FROM reminders WHERE user_id = ?",
                                (user_id,)) as cur:
            row = await cur.fetchone()
        sent_day = _day(row["sent_day"]) if row else None
        day, due = reminders.next_occurrence(now, schedule, await _zone_of(conn, user_id),
                                             sent_day=sent_day)
        await conn.execute(
            "INSERT INTO reminders (user_id, minute, weekdays, always, due_at, due_day,"
            " updated_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (user_id) DO UPDATE SET"
            " minute = excluded.minute, weekdays = excluded.weekdays,"
            " always = excluded.always, due_at = excluded.due_at, due_day = excluded.due_day,"
            " updated_at = excluded.updated_at",
            (user_id, schedule.minute, schedule.weekdays, int(schedule.always),
             int(due.timestamp()), day.isoformat(), int(now.timestamp())))
    return Reminder(user_id, schedule, due, day, sent_day)


async def turn_off(db: Database, *, user_id: int, now: datetime) -> bool:
    """Stop reminders (the schedule and the last sent day are kept); False if none were on."""
    changed = await db.execute(
        "UPDATE reminders SET due_at = NULL, due_day = NULL, updated_at = ?"
        " WHERE user_id = ? AND due_at IS NOT NULL", (int(now.timestamp()), user_id))
    return changed > 0


async def set_timezone(db: Database, *, user_id: int, timezone: str, now: datetime) -> None:
    """Store the user's zone and move their next reminder to the same local time there."""
    async with db.transaction() as conn:
        await conn.execute("UPDATE users SET timezone = ? WHERE user_id = ?", (timezone, user_id))
        await _reschedule(conn, user_id, now)


_DUE = (
    "SELECT r.user_id, r.minute, r.weekdays, r.always, r.due_at, r.due_day, r.sent_day,"
    " u.timezone, u.language, u.last_active_day, u.streak_current"
    " FROM reminders r JOIN users u ON u.user_id = r.user_id"
    " WHERE r.due_at <= ? ORDER BY r.due_at, r.user_id LIMIT ?")


async def claim_due(db: Database, *, now: datetime, limit: int) -> Claim:
    """Settle up to `limit` due reminders, earliest first, in one transaction.

    Each row gets its next instant; those to send are marked sent for their day before the
    transaction commits, and returned.
    """
    moment = int(now.timestamp())
    due: list[DueReminder] = []
    updates: list[tuple] = []
    # Several instances drain at once: each locks the rows it settles and skips those another
    # holds, so every reminder is claimed by one (SQLite's one writer needs no such clause).
    query = _DUE + (" FOR UPDATE OF r SKIP LOCKED" if db.dialect == "postgres" else "")
    async with db.transaction() as conn:
        async with conn.execute(query, (moment, limit)) as cur:
            rows = list(await cur.fetchall())
        for row in rows:
            tz = timezones.zone(row["timezone"], row["language"])
            schedule = Schedule(row["minute"], row["weekdays"], bool(row["always"]))
            due_at = datetime.fromtimestamp(row["due_at"], UTC)  # NOT NULL in the due query
            due_day = _day(row["due_day"]) or streaks.local_day(due_at, tz)
            active = _day(row["last_active_day"])
            decision = reminders.settle(schedule, tz, due_day=due_day, now=now,
                                        sent_day=_day(row["sent_day"]), active_day=active)
            updates.append((int(decision.next_due.timestamp()), decision.next_day.isoformat(),
                            decision.sent_day.isoformat() if decision.sent_day else None,
                            row["user_id"]))
            if decision.send:
                today = streaks.local_day(now, tz)
                due.append(DueReminder(
                    user_id=row["user_id"], language=row["language"], due_day=due_day,
                    due_at=due_at,
                    streak=streaks.current(active, row["streak_current"], today),
                    practised_today=active is not None and active >= today))
        await conn.executemany(
            "UPDATE reminders SET due_at = ?, due_day = ?, sent_day = ? WHERE user_id = ?",
            updates)
    return Claim(due, len(rows))


async def due_count(db: Database, *, now: datetime) -> int:
    """How many reminders are due at `now` (for logs and tests)."""
    row = await db.fetchone("SELECT COUNT(*) FROM reminders WHERE due_at <= ?",
                            (int(now.timestamp()),))
    return int(row[0]) if row else 0
