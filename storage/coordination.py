"""What instances sharing one database coordinate through it (storage/migrations 0013):
timers any instance can fire once, leases held by one instance at a time, buttons handled
once, and Telegram's send budget. Only databases several processes share (PostgreSQL) use
them; one process on SQLite keeps this in memory, and its tables stay empty.

Claims and leases are timed by the wall clock in milliseconds (`now_ms` from the caller), and
each is a single conditional statement, so two instances can never both win one.
"""

from __future__ import annotations

from dataclasses import dataclass

from storage.db import Database


@dataclass(frozen=True)
class Timer:
    name: str
    payload: str
    generation: int


async def set_timer(db: Database, *, name: str, due_at_ms: int, payload: str = "") -> int:
    """Set (or move) the timer; its new generation. A run of an older generation that is still
    going neither deletes nor blocks the new time."""
    row = await db.fetchone(
        "INSERT INTO timers (name, due_at_ms, payload) VALUES (?, ?, ?)"
        " ON CONFLICT (name) DO UPDATE SET due_at_ms = excluded.due_at_ms,"
        " payload = excluded.payload, generation = timers.generation + 1, claimed_until_ms = 0"
        " RETURNING generation", (name, due_at_ms, payload))
    assert row is not None
    return int(row[0])


async def cancel_timer(db: Database, *, name: str) -> None:
    await db.execute("DELETE FROM timers WHERE name = ?", (name,))


async def get_timer(db: Database, *, name: str) -> Timer | None:
    row = await db.fetchone("SELECT name, payload, generation FROM timers WHERE name = ?",
                            (name,))
    return Timer(row["name"], row["payload"], int(row["generation"])) if row else None


async def claim_timer(db: Database, *, name: str, generation: int, now_ms: int,
                      lease_ms: int) -> bool:
    """Claim this generation of the timer for `lease_ms`; False when another instance holds it,
    it has been moved or cancelled, or it already ran."""
    changed = await db.execute(
        "UPDATE timers SET claimed_until_ms = ? WHERE name = ? AND generation = ?"
        " AND claimed_until_ms <= ?", (now_ms + lease_ms, name, generation, now_ms))
    return changed == 1


async def claim_due_timer(db: Database, *, name: str, due_by_ms: int, now_ms: int,
                          lease_ms: int) -> int | None:
    """Claim this timer if it is due by `due_by_ms` and nobody holds it; its generation."""
    row = await db.fetchone(
        "UPDATE timers SET claimed_until_ms = ? WHERE name = ? AND due_at_ms <= ?"
        " AND claimed_until_ms <= ? RETURNING generation",
        (now_ms + lease_ms, name, due_by_ms, now_ms))
    return int(row[0]) if row else None


async def claim_due_timers(db: Database, *, due_by_ms: int, now_ms: int, lease_ms: int,
                           limit: int = 20) -> list[Timer]:
    """Claim timers due by `due_by_ms` that nobody holds (their instance died, or never got to
    them), earliest first. Instances polling at once skip each other's rows instead of waiting
    (PostgreSQL's SKIP LOCKED; SQLite has one writer anyway)."""
    lock = " FOR UPDATE SKIP LOCKED" if db.dialect == "postgres" else ""
    rows = await db.fetchall(
        "UPDATE timers SET claimed_until_ms = ? WHERE name IN ("
        " SELECT name FROM timers WHERE due_at_ms <= ? AND claimed_until_ms <= ?"
        f" ORDER BY due_at_ms LIMIT ?{lock}) RETURNING name, payload, generation",
        (now_ms + lease_ms, due_by_ms, now_ms, limit))
    return [Timer(r["name"], r["payload"], int(r["generation"])) for r in rows]


async def renew_claim(db: Database, *, name: str, generation: int, now_ms: int,
                      lease_ms: int) -> None:
    await db.execute("UPDATE timers SET claimed_until_ms = ? WHERE name = ? AND generation = ?",
                     (now_ms + lease_ms, name, generation))


async def finish_timer(db: Database, *, name: str, generation: int) -> None:
    """The run is over: remove the timer unless it was set again meanwhile."""
    await db.execute("DELETE FROM timers WHERE name = ? AND generation = ?", (name, generation))


async def take_lease(db: Database, *, name: str, holder: str, now_ms: int,
                     lease_ms: int) -> bool:
    """Hold `name` until now + lease_ms, unless another holder's lease is still running."""
    row = await db.fetchone(
        "INSERT INTO leases (name, holder, until_ms) VALUES (?, ?, ?)"
        " ON CONFLICT (name) DO UPDATE SET holder = excluded.holder,"
        " until_ms = excluded.until_ms"
        " WHERE leases.until_ms <= ? OR leases.holder = excluded.holder RETURNING holder",
        (name, holder, now_ms + lease_ms, now_ms))
    return row is not None


async def renew_lease(db: Database, *, name: str, holder: str, now_ms: int,
                      lease_ms: int) -> bool:
    """Keep holding `name` (a step that waits on Telegram's limits outlasts one lease)."""
    return await db.execute("UPDATE leases SET until_ms = ? WHERE name = ? AND holder = ?",
                            (now_ms + lease_ms, name, holder)) == 1


async def release_lease(db: Database, *, name: str, holder: str) -> None:
    await db.execute("DELETE FROM leases WHERE name = ? AND holder = ?", (name, holder))


async def first_handling(db: Database, *, chat_id: int, message_id: int, data: str,
                         now: int) -> bool:
    """True for the first time this button of this message is handled, on any instance."""
    changed = await db.execute(
        "INSERT INTO handled_buttons (chat_id, message_id, data, handled_at)"
        " VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING", (chat_id, message_id, data, now))
    return changed == 1


async def prune(db: Database, *, handled_before: int, leases_before_ms: int) -> int:
    """Forget buttons handled long ago (a tap on a day-old button acts again, as a restart
    allowed before), leases that ran out and the send buckets of chats quiet since then; rows
    removed. (A bucket left alone that long is full again: removing it changes nothing.)"""
    removed = await db.execute("DELETE FROM handled_buttons WHERE handled_at < ?",
                               (handled_before,))
    removed += await db.execute("DELETE FROM send_budget WHERE updated_ms < ?",
                                (leases_before_ms,))
    return removed + await db.execute("DELETE FROM leases WHERE until_ms < ?",
                                      (leases_before_ms,))


# Take one send from each bucket in one statement, on credit: a bucket that is empty goes below
# zero, and the caller waits until it has refilled that far. The clock is the database
# server's, the one clock all instances share.
_TAKE_SENDS = (
    "WITH now AS (SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS ms)"
    " INSERT INTO send_budget AS b (scope, tokens, per_second, burst, updated_ms)"
    " SELECT s.scope, s.burst - 1, s.per_second, s.burst, now.ms"
    " FROM unnest(?::text[], ?::float8[], ?::float8[]) AS s(scope, per_second, burst), now"
    " ON CONFLICT (scope) DO UPDATE SET"
    " tokens = LEAST(excluded.burst, b.tokens + GREATEST(excluded.updated_ms - b.updated_ms, 0)"
    " * excluded.per_second / 1000.0) - 1,"
    " updated_ms = GREATEST(excluded.updated_ms, b.updated_ms),"
    " per_second = excluded.per_second, burst = excluded.burst"
    " RETURNING tokens, per_second")


async def pause_sends(db: Database, *, seconds: float) -> None:
    """Telegram answered 429: every instance's next turn comes `seconds` later."""
    await db.execute("UPDATE send_budget SET tokens = LEAST(tokens, 0) - ? * per_second"
                     " WHERE scope = 'all'", (seconds,))


async def take_sends(db: Database, buckets: list[tuple[str, float, float]]) -> float:
    """Take one send from each (scope, per_second, burst) bucket; seconds to wait before
    sending (0: at once). PostgreSQL only: one process on SQLite paces itself in memory."""
    scopes, rates, bursts = zip(*buckets, strict=True)
    rows = await db.fetchall(_TAKE_SENDS, (list(scopes), list(rates), list(bursts)))
    return max((max(-r["tokens"], 0.0) / r["per_second"] for r in rows), default=0.0)
