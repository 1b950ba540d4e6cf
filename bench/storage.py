"""Part 2: storage at 100,000 users and 10,000,000 answers against the same at 10,000 answers.

The databases are built and timed by bench/storage_scale.py (choosing the next question,
recording an answer with its review card, building /stats, through the real code); this part
adds a group-round tap and compares the two sizes. Both sizes give each user the same history
length, so the growth ratio shows what the size of the tables costs.
"""

from __future__ import annotations

import asyncio
import importlib.util
import random
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from bench.report import Result, check, median, ms, not_available, percentile

SMALL = 10_000
P99_SECONDS, GROWTH = 0.010, 2.0


async def migrate(path: Path) -> None:
    from storage.db import Database

    db = await Database.open(path)
    await db.close()


async def round_taps(path: Path, bank, *, users: int, samples: int,
                     seed: int) -> tuple[list[float], list[float]]:
    """Wall-clock and CPU seconds per group-round tap: a member's first answer in a round,
    stored with the personal answer it also counts as."""
    from services import rounds as round_flow
    from storage import rounds
    from storage.answers import NewAnswer
    from storage.db import Database

    db = await Database.open(path)
    await db.start_background_checkpoints()  # as the bot does
    rng = random.Random(seed)
    now = datetime.now(UTC)
    try:
        questions = rng.sample(list(bank.questions.values()), 10)
        taps, cpu = [], []
        for index in range(samples + 50):  # the first 50 are warm-up
            if index % 200 == 0:  # a fresh round (own group) every 200 taps
                chat_id = -1_000_000_000 - seed * 100_000 - index  # new groups each run
                started = await rounds.create_round(
                    db, chat_id=chat_id, started_by=1, language="en", seconds=30,
                    question_ids=[q.id for q in questions], now=int(now.timestamp()))
                assert started is not None
                for position in range(1, len(questions) + 1):
                    await rounds.open_question(db, round_id=started.id, position=position,
                                               opened_at_ms=int(now.timestamp() * 1000),
                                               deadline_ms=int(now.timestamp() * 1000) + 30_000)
            position = index % len(questions) + 1
            question = questions[position - 1]
            user_id = rng.randint(1, users)
            answer = NewAnswer(
                user_id=user_id, question_id=question.id, field=question.field,
                topic=question.topic, level=question.seniority, chosen="a",
                is_correct=question.correct == "a", answered_at=int(now.timestamp()),
                chat_id=chat_id, message_id=2 * 10**9 + index, source="group", elapsed_ms=4000)
            begin, begin_cpu = time.perf_counter(), time.process_time()
            await round_flow.record_tap(db, round_id=started.id, position=position,
                                             answer=answer, points=10)
            taps.append(time.perf_counter() - begin)
            cpu.append(time.process_time() - begin_cpu)
        return taps[50:], cpu[50:]
    finally:
        await db.close()


def measure_size(users: int, answers: int, runs: int, samples: int, bank) -> dict[str, list]:
    """Per operation, the (p50, p99, CPU p99) of each run on one database of this size."""
    from bench import storage_scale as scale

    found: dict[str, list] = {}
    with tempfile.TemporaryDirectory(prefix="bench-storage-") as tmp:
        path = Path(tmp) / "scale.sqlite3"
        asyncio.run(migrate(path))
        scale.build(path, bank, users=users, answers=answers)
        if hasattr(scale, "warm_cache"):
            scale.warm_cache(path)  # in the page cache, as on a running server
        for index in range(runs):  # each run times other users and questions
            timings = {t.name: (t.samples, t.cpu) for t in asyncio.run(
                scale.run(path, bank, users=users, samples=samples, seed=9 + index))}
            if importlib.util.find_spec("storage.rounds") is not None:
                timings["group-round tap"] = asyncio.run(
                    round_taps(path, bank, users=users, samples=samples, seed=9 + index))
            for name, (wall, cpu) in timings.items():
                found.setdefault(name, []).append(
                    (percentile(wall, 50), percentile(wall, 99), percentile(cpu, 99)))
    return found


def run(users: int, answers: int, runs: int, samples: int = 2000) -> Result:
    if importlib.util.find_spec("bench.storage_scale") is None:
        return not_available("storage", "the storage-scale script (bench/storage_scale.py, "
                                        "from the coach work) is not on main")
    from bot.settings import BUNDLED_BANK
    from questions.loader import load_bank

    bank = load_bank(BUNDLED_BANK)
    small = min(SMALL, max(1, answers // 10))
    small_users = max(1, users * small // answers)
    at_small = measure_size(small_users, small, runs, samples, bank)
    at_large = measure_size(users, answers, runs, samples, bank)
    missed: list[str] = []
    parts = []
    for name, results in at_large.items():
        p50, p99, cpu99 = (median([r[i] for r in results]) for i in (0, 1, 2))
        s50, s99 = (median([r[i] for r in at_small[name]]) for i in (0, 1))
        growth = p50 / s50 if s50 else float("nan")
        check(missed, p99 < P99_SECONDS, f"{name} p99 {ms(p99)}")
        check(missed, growth <= GROWTH, f"{name} grows {growth:.1f}x")
        parts.append(f"{name} p50/p99 {ms(s50)}/{ms(s99)} -> {ms(p50)}/{ms(p99)} "
                     f"(CPU p99 {ms(cpu99)}; growth {growth:.2f}x)")
    if "group-round tap" not in at_large:
        parts.append("group-round tap: not available yet (storage/rounds.py is not on main)")
    figures = f"{small:,} -> {answers:,} answers ({small_users:,} -> {users:,} users): " + \
        "; ".join(parts)
    targets = "growth of p50 <= 2x and every p99 < 10 ms at the large size"
    how = (f"{samples} timed calls per operation after 50 warm-up calls, median of {runs} "
           "run(s); growth = p50 at the large size / p50 at the small one")
    return Result("storage", figures, targets, not missed, how, tuple(missed))
