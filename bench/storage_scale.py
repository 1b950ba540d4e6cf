"""Storage at scale: builds a database of 100,000 users and 10 million answers, then times the
hot paths through the real code: choosing the next question (for any user, and for users with a
rating, whose pool is ranked by predicted chance), recording an answer (with its FSRS
card update), building the /stats text, and (for information) the chart's per-day query.

    python -m bench.storage_scale --answers 10000000          # full size: a few minutes
    python -m bench.storage_scale --answers 100000 --users 1000 --samples 200   # a quick look

The rows are generated inside SQLite (INSERT ... SELECT over a recursive CTE, one transaction,
journal off while loading); the aggregates (progress, topic totals, review cards, level totals)
are derived from the answers with GROUP BY, as if every answer had gone through record_answer.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sqlite3
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path

from bot.services import Services
from bot.settings import BUNDLED_BANK, Settings
from bot.texts import Texts
from domain import activity, review
from handlers.practice import pick_question
from handlers.stats import stats_text
from questions.loader import Bank, load_bank
from services.answers import record as record_answer
from storage.answers import NewAnswer
from storage.db import Database
from storage.history import daily_tallies
from storage.users import get_user

NOW = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)
HISTORY_DAYS = 180
BENCH_TOKEN = "123456:BENCH-TOKEN-abcdefghijklmnopqrst"


@dataclass(frozen=True)
class Timing:
    """Wall-clock and CPU seconds of each call (CPU: this process, all threads). On a shared
    machine the wall-clock tail includes time other processes held the CPU; the CPU time is
    what the call itself cost."""

    name: str
    samples: list[float]
    cpu: list[float]

    def percentile(self, p: float, cpu: bool = False) -> float:
        ordered = sorted(self.cpu if cpu else self.samples)
        return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]

    def line(self) -> str:
        ms = 1000
        return (f"{self.name:<28} p50 {self.percentile(50) * ms:7.3f} ms   "
                f"p99 {self.percentile(99) * ms:7.3f} ms   max {max(self.samples) * ms:8.3f} ms"
                f"   | CPU p50 {self.percentile(50, cpu=True) * ms:6.3f} ms"
                f"  p99 {self.percentile(99, cpu=True) * ms:6.3f} ms")


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def build(path: Path, bank: Bank, *, users: int, answers: int) -> None:
    """Fill a migrated, empty database with `users` users and `answers` answers."""
    fields = sorted(bank.fields)
    pool_size = min(len(bank.pool(f)) for f in fields)  # one size for every field: simpler SQL
    pools = {f: random.Random(0).sample(bank.pool(f), pool_size) for f in fields}
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = OFF")  # a throwaway database: no journal while loading
    conn.execute("PRAGMA synchronous = OFF")
    conn.execute("PRAGMA cache_size = -1000000")  # 1 GB
    conn.execute("PRAGMA temp_store = MEMORY")
    conn.execute("BEGIN")
    conn.execute("CREATE TEMP TABLE bench_questions (field_no INTEGER, no INTEGER,"
                 " question_id TEXT, field TEXT, topic TEXT, level TEXT,"
                 " PRIMARY KEY (field_no, no))")
    conn.executemany("INSERT INTO bench_questions VALUES (?, ?, ?, ?, ?, ?)",
                     [(i, n, q.id, q.field, q.topic, q.seniority)
                      for i, f in enumerate(fields) for n, q in enumerate(pools[f])])
    now = int(NOW.timestamp())
    start = now - HISTORY_DAYS * 86400
    per_user = max(1, answers // users)
    step = max(1, HISTORY_DAYS * 86400 // per_user)

    t = time.perf_counter()
    conn.execute(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)"
        " INSERT INTO users (user_id, first_name, language, field, level, created_at,"
        " last_active_day) SELECT i, 'User' || i, CASE WHEN i % 3 = 0 THEN 'tr' ELSE 'en' END,"
        " (SELECT field FROM bench_questions WHERE field_no = i % ? AND no = 0),"
        " CASE i % 3 WHEN 0 THEN 'junior' WHEN 1 THEN 'mid' ELSE 'senior' END, ?, ? FROM n",
        (users, len(fields), start, NOW.date().isoformat()))
    # Answers in user order, each user's spread over the history: both answer indexes grow at
    # their end, which keeps the load fast.
    conn.execute(
        "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ? - 1)"
        " INSERT INTO answers (id, user_id, question_id, field, topic, level, chosen, is_correct,"
        " answered_at, source, chat_id, message_id, elapsed_ms)"
        " SELECT i + 1, u, q.question_id, q.field, q.topic, q.level, 'a',"
        " abs(random()) % 100 < 70, ? + (i % ?) * ? + abs(random()) % ?, 'practice', u, i + 1,"
        " 2000 + abs(random()) % 58000"
        " FROM (SELECT i, 1 + (i / ?) % ? AS u FROM n) JOIN bench_questions q"
        " ON q.field_no = u % ? AND q.no = (i * 7 + u) % ?",
        (answers, start, per_user, step, step, per_user, users, len(fields), pool_size))
    log(f"  users and answers: {time.perf_counter() - t:.1f} s")

    t = time.perf_counter()
    # One pass over the answers per aggregate; SQLite takes the bare columns of a MAX() row
    # from that row, which gives each card and progress row its last answer.
    conn.execute(
        "CREATE TEMP TABLE per_question AS SELECT user_id, question_id, field, topic, level,"
        " COUNT(*) AS attempts, SUM(is_correct) AS correct, is_correct AS last_is_correct,"
        " MAX(answered_at) AS last_at, MIN(id) AS first_id FROM answers"
        " GROUP BY user_id, question_id")
    conn.execute("INSERT INTO progress SELECT user_id, question_id, attempts, correct,"
                 " last_is_correct, last_at FROM per_question")
    conn.execute(
        "INSERT INTO review_cards SELECT user_id, question_id, first_id, 2, NULL,"
        " 0.5 + abs(random()) % 3000 / 100.0, 1 + abs(random()) % 900 / 100.0,"
        " ? - 20 * 86400 + abs(random()) % (60 * 86400), last_at FROM per_question",
        (now,))
    # The other totals come from the per-question ones (half as many rows as answers).
    conn.execute(
        "INSERT INTO topic_stats SELECT user_id, field, topic, SUM(attempts), SUM(correct)"
        " FROM per_question GROUP BY user_id, field, topic")
    conn.execute(
        "INSERT INTO level_stats (user_id, field, level, answered, correct) SELECT user_id,"
        " field, level, SUM(attempts), SUM(correct) FROM per_question"
        " GROUP BY user_id, field, level")
    conn.execute(
        "UPDATE users SET answered = t.answered, correct = t.correct, streak_current = 3,"
        " streak_best = 9 FROM (SELECT user_id, SUM(attempts) AS answered,"
        " SUM(correct) AS correct FROM per_question GROUP BY user_id) AS t"
        " WHERE users.user_id = t.user_id")
    log(f"  progress, topics, levels, cards: {time.perf_counter() - t:.1f} s")

    t = time.perf_counter()
    # Elo ratings (adaptive difficulty): every question rated near its level, and a rating per
    # field for the users with an even id (the others answered before ratings existed, as after
    # an upgrade, and are chosen for at their level's starting rating).
    conn.execute(
        "INSERT INTO question_ratings (question_id, field, level, rating, answers)"
        " SELECT question_id, field, level, CASE level WHEN 'junior' THEN 1300"
        " WHEN 'mid' THEN 1500 ELSE 1700 END + abs(random()) % 400 - 200, 50"
        " FROM bench_questions")
    conn.execute(
        "INSERT INTO user_ratings (user_id, field, rating, answers) SELECT user_id, field,"
        " 1200 + 600.0 * SUM(correct) / SUM(attempts), COUNT(*) FROM per_question"
        " WHERE user_id % 2 = 0 GROUP BY user_id, field")
    log(f"  ratings: {time.perf_counter() - t:.1f} s")

    t = time.perf_counter()
    conn.execute(
        "INSERT INTO review_logs SELECT a.id, c.card_id, CASE WHEN a.is_correct THEN 3 ELSE 1 END,"
        " a.answered_at, a.elapsed_ms FROM answers a JOIN review_cards c"
        " ON c.user_id = a.user_id AND c.question_id = a.question_id")
    rng = random.Random(1)
    conn.executemany("INSERT INTO answer_pace VALUES (?, ?)",
                     ((u, json.dumps([rng.randint(2000, 60000) for _ in range(review.PACE_WINDOW)]))
                      for u in range(1, users + 1)))
    log(f"  review logs and pace: {time.perf_counter() - t:.1f} s")
    conn.execute("COMMIT")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.close()
    # Written with sync off: flush it now, or the first checkpoint's fsync would wait for
    # gigabytes of the build and be timed as if it were the bot's.
    t = time.perf_counter()
    with path.open("rb+") as file:
        os.fsync(file.fileno())
    log(f"  flushed to disk: {time.perf_counter() - t:.1f} s")


async def measure(name: str, samples: int, call: Callable[[int], Awaitable[object]]) -> Timing:
    for i in range(min(50, samples)):  # warm-up: the first calls pay for imports and caches
        await call(-1 - i)
    timings, cpu = [], []
    for i in range(samples):
        started, started_cpu = time.perf_counter(), time.process_time()
        await call(i)
        timings.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
    return Timing(name, timings, cpu)


async def run(path: Path, bank: Bank, *, users: int, samples: int, seed: int) -> list[Timing]:
    settings = Settings(bot_token=BENCH_TOKEN, database_path=path, _env_file=None)
    db = await Database.open(path)
    await db.start_background_checkpoints()  # as the bot does (bot/app.py)
    services = Services(settings=settings, db=db, bank=bank, texts=Texts.load(),
                        rng=random.Random(5), clock=lambda: NOW)
    rng = random.Random(seed)  # another seed for another run: new users, new cards
    picked = [rng.randint(1, users) for _ in range(samples + 50)]
    try:
        async def choose(i: int) -> object:
            user = await get_user(db, user_id=picked[i])
            return await pick_question(services, user)

        rated = [u if u % 2 == 0 else max(2, u - 1) for u in picked]

        async def choose_rated(i: int) -> object:
            user = await get_user(db, user_id=rated[i])
            return await pick_question(services, user)

        async def answer(i: int) -> object:
            user_id = picked[i]
            question = rng.choice(bank.pool(None))
            return await record_answer(db, NewAnswer(
                user_id=user_id, question_id=question.id, field=question.field,
                topic=question.topic, level=question.seniority, chosen="a",
                is_correct=question.correct == "a", answered_at=int(NOW.timestamp()),
                chat_id=user_id, message_id=10**9 + i, elapsed_ms=rng.randint(2000, 60000)),
                today=date(2026, 3, 10))

        async def stats(i: int) -> object:
            return await stats_text(services, picked[i], "en")

        async def chart_data(i: int) -> object:
            first = activity.first_day(NOW.date())
            return await daily_tallies(db, user_id=picked[i], utc_offset=0,
                                       since=activity.day_number(first) * 86400)

        return [await measure("choose next question", samples, choose),
                await measure("choose next (rated user)", samples, choose_rated),
                await measure("record answer + card", samples, answer),
                await measure("/stats text", samples, stats),
                await measure("/stats chart data (query)", samples, chart_data)]
    finally:
        await db.close()


def main(argv: list[str] | None = None) -> list[Timing]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--answers", type=int, default=10_000_000)
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--samples", type=int, default=2000, help="timed calls per operation")
    parser.add_argument("--db", type=Path, help="database file (default: a temporary one)")
    parser.add_argument("--reuse", action="store_true",
                        help="time an existing --db built earlier instead of building it again")
    parser.add_argument("--seed", type=int, default=9,
                        help="picks the users and questions timed (change it with --reuse)")
    args = parser.parse_args(argv)
    bank = load_bank(BUNDLED_BANK)
    with tempfile.TemporaryDirectory(prefix="coach-bench-") as tmp:
        path = args.db or Path(tmp) / "scale.sqlite3"
        if not (args.reuse and path.exists()):
            if path.exists():
                path.unlink()
            asyncio.run(_migrate(path))
            log(f"building {args.users:,} users and {args.answers:,} answers in {path}")
            started = time.perf_counter()
            build(path, bank, users=args.users, answers=args.answers)
            log(f"built in {time.perf_counter() - started:.1f} s, "
                f"{path.stat().st_size / 2**20:,.0f} MB")
        warm_cache(path)
        timings = asyncio.run(run(path, bank, users=args.users, samples=args.samples,
                                  seed=args.seed))
    for timing in timings:
        print(timing.line())
    return timings


def warm_cache(path: Path) -> None:
    """Read the file once, so timings see it in the OS page cache, as on a running server."""
    started = time.perf_counter()
    with path.open("rb") as file:
        while file.read(16 * 2**20):
            pass
    log(f"read into the page cache in {time.perf_counter() - started:.1f} s")


async def _migrate(path: Path) -> None:
    db = await Database.open(path)
    await db.close()


if __name__ == "__main__":
    main()
