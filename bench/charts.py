"""Part "charts": do taps wait behind progress charts? The real bot process; 20 users who have
answered send /stats at once, again and again, while other users keep answering; their
tap -> answerCallbackQuery latency is compared with the same load without the charts.
"""

from __future__ import annotations

import asyncio
import random
import tempfile
from pathlib import Path

from bench.e2e import (
    RunFigures,
    one_user,
    seed_coach_users,
    start_process,
    stop_process,
    wait_ready,
)
from bench.report import Result, check, ms, percentile

CHART_USERS, TAPPERS, P99_SECONDS = 20, 4, 0.300


async def run_once(with_charts: bool, answers: int, bursts: int,
                   questions_dir: Path | None) -> list[float]:
    from fake_telegram import FakeTelegram
    from fake_telegram.spec import SPEC_BESIDE_CHECKOUT, find_spec

    charted = [20_000 + i for i in range(CHART_USERS)]
    tappers = [30_000 + i for i in range(TAPPERS)]
    with tempfile.TemporaryDirectory(prefix="bench-charts-") as tmp:
        workdir = Path(tmp)
        await seed_coach_users(workdir / "coach.sqlite3", charted + tappers)
        fake = FakeTelegram(spec_path=find_spec(default=SPEC_BESIDE_CHECKOUT))
        await fake.start()
        extra = {"QUESTIONS_DIR": str(questions_dir)} if questions_dir else {}
        process = await start_process("coach", fake, workdir, **extra)
        try:
            await wait_ready(fake, process, workdir / "coach.log")
            rng = random.Random(7)
            # Each chart user answers once, so /stats has a chart to draw.
            await asyncio.gather(*(one_user(fake, u, 1, rng, RunFigures(), []) for u in charted))
            queries: list[str] = []

            async def charts() -> None:
                for _ in range(bursts):
                    waits = []
                    for user_id in charted:
                        user = fake.user(user_id, "Bench")
                        before = len(fake.bot_messages(user_id))
                        fake.send_message(user, "/stats")
                        waits.append(fake.wait_until(
                            lambda u=user_id, b=before: len(fake.bot_messages(u)) >= b + 2, 60))
                    await asyncio.gather(*waits)

            taps = asyncio.gather(*(one_user(fake, u, answers, rng, RunFigures(), queries)
                                    for u in tappers))
            if with_charts:
                await asyncio.gather(charts(), taps)
            else:
                await taps
            latency = fake.stats.callback_latency
            return [latency[q] for q in queries if q in latency]
        finally:
            await stop_process(process)
            await fake.stop()


async def measure(answers: int, bursts: int, questions_dir: Path | None) -> Result:
    quiet = await run_once(False, answers, bursts, questions_dir)
    busy = await run_once(True, answers, bursts, questions_dir)
    q99, b99 = percentile(quiet, 99), percentile(busy, 99)
    missed: list[str] = []
    mark = check(missed, b99 < P99_SECONDS, f"tap p99 {ms(b99)} during charts")
    figures = (f"{TAPPERS} users answering ({len(busy)} taps) while {CHART_USERS} users send "
               f"/stats at once, {bursts} times: tap->answerCallbackQuery p50 "
               f"{ms(percentile(busy, 50))} p99 {ms(b99)}; the same taps without charts p50 "
               f"{ms(percentile(quiet, 50))} p99 {ms(q99)} (ratio of p99s {b99 / q99:.2f}x)")
    targets = f"tap p99 < {P99_SECONDS * 1000:.0f} ms while charts are drawn ({mark})"
    how = ("the real bot process, charts drawn in its chart process; one run with and one "
           "without the /stats bursts")
    return Result("charts", figures, targets, not missed, how, tuple(missed))


def run(answers: int, bursts: int, questions_dir: Path | None = None) -> Result:
    return asyncio.run(measure(answers, bursts, questions_dir))
