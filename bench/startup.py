"""Part "startup": the real bot process with the bundled bank and with a 30,000-question bank,
side by side: how long a first start (empty cache) and a restart (the cache of the validated bank
and the job-ad matcher in place) take until the bot polls, how long /jd takes after each, and
the process's peak memory after that /jd. Ratios, since the machine is shared and noisy.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
import time
from pathlib import Path

from bench.bank import ADS, generate
from bench.e2e import start_process, stop_process, wait_ready
from bench.reminders import peak_rss_mb
from bench.report import Result, check, median

RESTART_RATIO, FIRST_RATIO, PEAK_MB, JD_SECONDS, IDLE_MB = 1.5, 3.0, 350, 1.0, 120
STEP_TIMEOUT = 120.0
SETTLE_SECONDS = 3.0  # after ready, before the idle memory is read



async def one_start(workdir: Path, questions: Path | None) -> dict:
    """Start the bot, time it until it polls, send one /jd, time the answer, read its memory."""
    from fake_telegram import FakeTelegram
    from fake_telegram.spec import SPEC_BESIDE_CHECKOUT, find_spec

    fake = FakeTelegram(spec_path=find_spec(default=SPEC_BESIDE_CHECKOUT))
    await fake.start()
    extra = {"CACHE_DIR": str(workdir / "cache")}
    if questions is not None:
        extra["QUESTIONS_DIR"] = str(questions)
    started = time.monotonic()
    process = await start_process("coach", fake, workdir, **extra)
    try:
        await wait_ready(fake, process, workdir / "coach.log")
        ready = time.monotonic() - started
        await asyncio.sleep(SETTLE_SECONDS)
        idle = peak_rss_mb(process.pid, "VmRSS")
        user = fake.user(777, "Bench", language_code="en")
        sent = time.monotonic()
        fake.send_message(user, "/jd " + ADS[0])
        await fake.wait_for_bot_messages(user.id, 1, STEP_TIMEOUT)
        jd = time.monotonic() - sent
        rss = peak_rss_mb(process.pid)
    finally:
        await stop_process(process)
        await fake.stop()
    return {"ready": ready, "jd": jd, "rss": rss, "idle": idle}


async def starts(questions: Path | None, runs: int) -> dict:
    """`runs` first starts (each with an empty cache) and restarts (each on the cache its
    first start left)."""
    firsts, restarts = [], []
    for _ in range(runs):
        with tempfile.TemporaryDirectory(prefix="bench-start-") as tmp:
            workdir = Path(tmp)
            firsts.append(await one_start(workdir, questions))
            restarts.append(await one_start(workdir, questions))
    return {"first": firsts, "restart": restarts}


def summary(runs: list[dict], key: str) -> float:
    return median([r[key] for r in runs])


async def measure(count: int, runs: int, baseline: Path | None = None) -> Result:
    with tempfile.TemporaryDirectory(prefix="bench-startup-bank-") as tmp:
        big = Path(tmp) / "bank"
        written = generate(big, count)
        bundled = await starts(baseline, runs)
        large = await starts(big, runs)
        shutil.rmtree(big, ignore_errors=True)
    first_ratio = summary(large["first"], "ready") / summary(bundled["first"], "ready")
    restart_ratio = summary(large["restart"], "ready") / summary(bundled["restart"], "ready")
    peak = max(r["rss"] or 0.0 for r in large["first"] + large["restart"])
    jd_restart = max(r["jd"] for r in large["restart"])
    idle = max(r["idle"] or 0.0 for r in bundled["restart"])
    missed: list[str] = []
    marks = (check(missed, restart_ratio <= RESTART_RATIO, f"restart {restart_ratio:.2f}x"),
             check(missed, first_ratio <= FIRST_RATIO, f"first start {first_ratio:.2f}x"),
             check(missed, peak < PEAK_MB, f"peak {peak:.0f} MB"),
             check(missed, jd_restart < JD_SECONDS, f"/jd {jd_restart:.2f} s"),
             check(missed, idle < IDLE_MB, f"idle {idle:.0f} MB"))

    def line(name: str, figures: dict) -> str:
        return (f"{name}: first start ready in {summary(figures['first'], 'ready'):.2f} s "
                f"(/jd {summary(figures['first'], 'jd'):.2f} s), restart "
                f"{summary(figures['restart'], 'ready'):.2f} s (/jd "
                f"{summary(figures['restart'], 'jd'):.2f} s), peak RSS after /jd "
                f"{max(r['rss'] or 0.0 for r in figures['first'] + figures['restart']):.0f} MB")

    figures = (f"{line('bundled bank', bundled)}, idle after a restart {idle:.0f} MB; "
               f"{line(f'{written:,} questions', large)}; "
               f"ratios: first start {first_ratio:.2f}x, restart {restart_ratio:.2f}x")
    targets = (f"restart <= {RESTART_RATIO}x ({marks[0]}), first start <= {FIRST_RATIO}x "
               f"({marks[1]}), peak < {PEAK_MB} MB ({marks[2]}), /jd after a restart < "
               f"{JD_SECONDS:.0f} s ({marks[3]}), bundled bot idle < {IDLE_MB} MB ({marks[4]})")
    how = (f"{runs} first start(s) and restart(s) of the real bot process per bank, medians; "
           "ready = process spawned until its first getUpdates; idle memory (VmRSS) "
           f"{SETTLE_SECONDS:.0f} s later, then one /jd")
    return Result("startup", figures, targets, not missed, how, tuple(missed))


def run(count: int, runs: int, baseline: Path | None = None) -> Result:
    """`baseline`: the bank to compare with (default the bundled one; quick runs: the tests')."""
    return asyncio.run(measure(count, runs, baseline))
