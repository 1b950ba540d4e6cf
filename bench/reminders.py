"""Part 4: 100,000 reminders due in the same minute: claiming them, memory, and the drain.

The database gets N users whose reminders are all due at the current minute. Claiming a
batch (the due query on the index, settling each row, marking it sent) is timed directly;
then the real `python -m bot` process drains them through its rate limiter into a fresh
FakeTelegram with Telegram's limits, and the fake counts what arrives and every 429.
"""

from __future__ import annotations

import asyncio
import importlib.util
import shutil
import tempfile
import time
import tracemalloc
from datetime import UTC, datetime
from pathlib import Path

from bench.e2e import start_process, stop_process, wait_ready
from bench.report import Result, check, median, ms, not_available, percentile

CAP = 30  # sends a second, Telegram's (and the fake's) overall limit
QUERY_SECONDS = 0.010
BATCH = 30  # handlers/reminders.BATCH: what the job claims at a time


def peak_rss_mb(pid: int, entry: str = "VmHWM") -> float | None:
    """The process's peak resident memory so far (VmHWM), or another memory entry of its
    /proc status (VmRSS: resident now), in MB."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(f"{entry}:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


async def fill(path: Path, count: int, now: datetime) -> None:
    """`count` users in UTC, each with a daily reminder at the current minute, due now."""
    from storage.db import Database

    minute_start = int(now.timestamp()) // 60 * 60
    minute = now.hour * 60 + now.minute
    today = now.date().isoformat()
    db = await Database.open(path)
    try:
        async with db.transaction() as conn:
            await conn.executemany(
                "INSERT INTO users (user_id, first_name, language, timezone, created_at)"
                " VALUES (?, 'Bench', ?, 'UTC', ?)",
                ((uid, "tr" if uid % 3 == 0 else "en", minute_start)
                 for uid in range(1, count + 1)))
            await conn.executemany(
                "INSERT INTO reminders (user_id, minute, weekdays, always, due_at, due_day,"
                " updated_at) VALUES (?, ?, 127, 0, ?, ?, ?)",
                ((uid, minute, minute_start, today, minute_start) for uid in range(1, count + 1)))
        await db.execute("ANALYZE")
    finally:
        await db.close()


async def time_claims(path: Path, batches: int) -> tuple[list[float], list[float], int]:
    """Seconds of the due query and of claiming a whole batch (after 5 warm-up batches), and
    the peak Python memory of claiming 10 more."""
    from storage import reminders as store
    from storage.db import Database

    db = await Database.open(path)
    try:
        now = datetime.now(UTC)
        moment = int(now.timestamp())
        for _ in range(5):
            await store.claim_due(db, now=now, limit=BATCH)
        queries, claims = [], []
        for _ in range(batches):
            started = time.perf_counter()
            await db.fetchall(store._DUE, (moment, BATCH))  # the query claim_due runs first
            queries.append(time.perf_counter() - started)
            started = time.perf_counter()
            await store.claim_due(db, now=now, limit=BATCH)
            claims.append(time.perf_counter() - started)
        tracemalloc.start()  # a separate pass: tracing slows what it traces
        for _ in range(10):
            await store.claim_due(db, now=now, limit=BATCH)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        return queries, claims, peak
    finally:
        await db.close()


async def drain(path: Path, count: int, seconds: float, warmup: float,
                questions_dir: Path | None = None) -> dict:
    """The bot process sends the due reminders; sends per second after `warmup` seconds."""
    from fake_telegram import FakeTelegram
    from fake_telegram.spec import SPEC_BESIDE_CHECKOUT, find_spec

    fake = FakeTelegram(spec_path=find_spec(default=SPEC_BESIDE_CHECKOUT), rate_limits=True)
    for user_id in range(1, count + 1):
        fake.user(user_id, "Bench", started=True)  # each has talked to the bot before
    await fake.start()
    extra = {"QUESTIONS_DIR": str(questions_dir)} if questions_dir else {}
    process = await start_process("coach", fake, path.parent, DATABASE_PATH=str(path), **extra)
    try:
        await wait_ready(fake, process, path.parent / "coach.log")
        await fake.wait_until(lambda: fake.stats.calls["sendMessage"], timeout=60)
        first = time.monotonic()
        await asyncio.sleep(warmup + seconds)
        rss = peak_rss_mb(process.pid)
    finally:
        await stop_process(process)
        await fake.stop()
    begin, end = first + warmup, first + warmup + seconds
    sends = [t for times in fake.stats.sends.values() for t in times if begin <= t < end]
    windows = fake.stats.max_per_second()
    return {"rate": len(sends) / seconds, "too_many": fake.stats.too_many_requests,
            "rss": rss, "max_per_second": windows}


async def measure(count: int, runs: int, drain_seconds: float, batches: int,
                  questions_dir: Path | None = None) -> Result:
    with tempfile.TemporaryDirectory(prefix="bench-reminders-") as tmp:
        filled, path = Path(tmp) / "filled.sqlite3", Path(tmp) / "coach.sqlite3"
        now = datetime.now(UTC)
        await fill(filled, count, now)
        shutil.copy(filled, path)
        queries, claims, peak = await time_claims(path, batches)
        drains = []
        for _ in range(runs):  # each drain starts from all `count` due
            shutil.copy(filled, path)
            drains.append(await drain(path, count, drain_seconds, min(2.0, drain_seconds / 3),
                                      questions_dir))
    rate = median([d["rate"] for d in drains])
    too_many = sum(d["too_many"] for d in drains)
    rss = max((d["rss"] for d in drains if d["rss"] is not None), default=float("nan"))
    p50, p99 = percentile(queries, 50), percentile(queries, 99)
    missed: list[str] = []
    marks = (check(missed, p99 < QUERY_SECONDS, f"due query p99 {ms(p99)}"),
             check(missed, too_many == 0, f"{too_many} x 429"),
             check(missed, rate >= 0.9 * (CAP - 1), f"drain {rate:.1f}/s"))
    whole = count / rate if rate else float("nan")
    busiest = max(d["max_per_second"] for d in drains)
    took = f"{whole / 60:.0f} min" if whole >= 120 else f"{whole:.0f} s"
    figures = (
        f"{count:,} reminders due in the same minute: due query (first {BATCH} on the index) "
        f"p50 {ms(p50)} p99 {ms(p99)}; claiming a batch (query, settle, mark sent) p50 "
        f"{ms(percentile(claims, 50))} p99 {ms(percentile(claims, 99))}, peak Python memory "
        f"{peak / 1024:.0f} KiB; drain {rate:.1f} reminders/s (most in any second: {busiest}), "
        f"{too_many} x 429, bot peak RSS {rss:.0f} MB; all {count:,} in {took}")
    targets = (f"due query p99 < 10 ms ({marks[0]}), zero 429s ({marks[1]}), drain at the "
               f"cap >= {0.9 * (CAP - 1):.0f}/s ({marks[2]})")
    how = (f"{len(claims)} batches timed after 5 warm-up batches; {runs} drain(s) of "
           f"{drain_seconds:.0f} s by the real bot process, the first seconds (up to 2) excluded")
    return Result("reminders", figures, targets, not missed, how, tuple(missed))


def run(count: int, runs: int, quick: bool = False, questions_dir: Path | None = None) -> Result:
    if importlib.util.find_spec("storage.reminders") is None:
        return not_available("reminders", "reminders (storage/reminders.py) are not on main")
    return asyncio.run(measure(count, runs, drain_seconds=2.0 if quick else 30.0,
                               batches=10 if quick else 200, questions_dir=questions_dir))
