"""100,000 stored reminders, many at 09:00: the due ones come from an index in milliseconds, and
draining a burst keeps one batch in memory however many are due.

`pytest tests/unit/test_reminders_scale.py -m slow -s` adds the timed checks and prints the
figures the README quotes.
"""

from __future__ import annotations

import time
import tracemalloc
from datetime import UTC, datetime
from pathlib import Path

import pytest

from domain import reminders, timezones
from domain.reminders import Schedule
from handlers.reminders import BATCH
from storage import reminders as store
from storage.db import Database

USERS = 100_000
NOW = datetime(2026, 3, 10, 5, 0, tzinfo=UTC)  # early morning in Europe: before everyone's 09:00
OTHER_ZONES = ("UTC", "Europe/Berlin", "Europe/London", "America/New_York", "Asia/Kolkata",
               "Asia/Tokyo", None)


def people(count: int):
    """Half the users in Istanbul, the rest spread over zones; 40% of everyone wants 09:00
    (20,000 at the same minute in Istanbul), the others one of 96 quarter-hours."""
    for user_id in range(1, count + 1):
        zone = "Europe/Istanbul" if user_id % 2 else OTHER_ZONES[user_id // 2 % len(OTHER_ZONES)]
        minute = 9 * 60 if user_id % 5 < 2 else (user_id * 15) % 1440
        yield user_id, zone, "tr" if user_id % 3 == 0 else "en", minute


async def fill(db: Database, count: int) -> float:
    """Bulk insert `count` users with reminders; returns the seconds it took."""
    started = time.perf_counter()
    cache: dict[tuple, tuple[str, int]] = {}
    user_rows, reminder_rows = [], []
    for user_id, zone, language, minute in people(count):
        key = (zone, language, minute)
        if key not in cache:
            day, due = reminders.next_occurrence(NOW, Schedule(minute),
                                                 timezones.zone(zone, language))
            cache[key] = (day.isoformat(), int(due.timestamp()))
        day, due = cache[key]
        user_rows.append((user_id, "U", language, zone, 0))
        reminder_rows.append((user_id, minute, 127, 0, due, day, 0))
    async with db.transaction() as conn:
        await conn.executemany("INSERT INTO users (user_id, first_name, language, timezone,"
                               " created_at) VALUES (?, ?, ?, ?, ?)", user_rows)
        await conn.executemany("INSERT INTO reminders (user_id, minute, weekdays, always, due_at,"
                               " due_day, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                               reminder_rows)
    await db.execute("ANALYZE")
    return time.perf_counter() - started


@pytest.fixture(scope="module")
def big_db(tmp_path_factory) -> tuple[Path, float]:
    import asyncio

    path = tmp_path_factory.mktemp("scale") / "reminders.sqlite3"

    async def build() -> float:
        db = await Database.open(path)
        try:
            return await fill(db, USERS)
        finally:
            await db.close()

    return path, asyncio.run(build())


async def timed(db: Database, sql: str, params: tuple, runs: int = 20) -> float:
    """The median milliseconds of `runs` executions."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        await db.fetchall(sql, params)
        times.append((time.perf_counter() - started) * 1000)
    return sorted(times)[len(times) // 2]


async def test_100k_reminders_the_due_ones_come_from_the_index_in_due_order(big_db):
    path, fill_seconds = big_db
    db = await Database.open(path)
    try:
        nine_istanbul = datetime(2026, 3, 10, 6, 0, tzinfo=UTC)
        total = (await db.fetchone("SELECT COUNT(*) FROM reminders"))[0]
        due = await store.due_count(db, now=nine_istanbul)
        plan = " ".join(r["detail"] for r in await db.fetchall(
            "EXPLAIN QUERY PLAN " + store._DUE, (0, BATCH)))
        query_ms = await timed(db, store._DUE, (int(nine_istanbul.timestamp()), BATCH))
        rows = await db.fetchall(store._DUE, (int(nine_istanbul.timestamp()), BATCH))
        started = time.perf_counter()
        claim = await store.claim_due(db, now=nine_istanbul, limit=BATCH)
        claim_ms = (time.perf_counter() - started) * 1000
        print(f"\n{total} reminders stored in {fill_seconds:.2f} s; {due} due at 09:00 Istanbul;"
              f" due query (LIMIT {BATCH}) {query_ms:.2f} ms median; claiming a batch"
              f" {claim_ms:.2f} ms")
        assert total == USERS and due > 20_000
        assert "USING INDEX reminders_due" in plan and "TEMP B-TREE" not in plan
        dues = [r["due_at"] for r in rows]
        assert dues == sorted(dues) and len(claim.due) == BATCH
    finally:
        await db.close()


@pytest.mark.slow
async def test_100k_reminders_timed_and_a_burst_drains_in_constant_memory(big_db):
    path, fill_seconds = big_db
    db = await Database.open(path)
    try:
        moment = datetime(2026, 3, 10, 6, 0, tzinfo=UTC)  # 09:00 in Istanbul
        query_ms = await timed(db, store._DUE, (int(moment.timestamp()), BATCH), runs=100)
        due = await store.due_count(db, now=moment)
        # Drain everything due, batch by batch, as the job does (sending left out).
        tracemalloc.start()
        started = time.perf_counter()
        claimed = settled = batches = 0
        while (claim := await store.claim_due(db, now=moment, limit=BATCH)).settled:
            claimed += len(claim.due)
            settled += claim.settled
            batches += 1
        drain_seconds = time.perf_counter() - started
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        per_job = await memory_per_ptb_job(1000)
        print(f"\ndue query {query_ms:.2f} ms median over 100 runs with {USERS} stored;"
              f" {due} due at 09:00 Istanbul drained in {batches} batches of {BATCH}:"
              f" {drain_seconds * 1000 / batches:.2f} ms per batch (database only),"
              f" peak Python memory while draining {peak / 1024:.0f} KiB;"
              f" one PTB JobQueue job per user would hold ~{per_job / 1024:.1f} KiB each,"
              f" {per_job * USERS / 2**20:.0f} MiB for {USERS}")
        assert claimed == settled == due > 20_000
        assert await store.due_count(db, now=moment) == 0
        assert query_ms < 10
        assert peak < 5 * 2**20  # a batch at a time, not a row per reminder
    finally:
        await db.close()


async def memory_per_ptb_job(count: int) -> float:
    """Bytes per daily job held by PTB's JobQueue: the design this feature avoids."""
    from datetime import time as clock_time

    from telegram.ext import ApplicationBuilder

    from tests.conftest import TEST_TOKEN

    app = ApplicationBuilder().token(TEST_TOKEN).build()
    await app.job_queue.start()

    async def remind(context) -> None:  # pragma: no cover - never runs
        pass

    tracemalloc.start()
    before, _ = tracemalloc.get_traced_memory()
    for user_id in range(count):
        app.job_queue.run_daily(remind, clock_time(9, 0, tzinfo=UTC), chat_id=user_id,
                                name=str(user_id))
    after, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    await app.job_queue.stop(wait=False)
    return (after - before) / count
