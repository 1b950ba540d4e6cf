"""Part 1: the real `python -m bot` process and a bare PTB baseline under the same load.

Each run starts a fresh FakeTelegram with Telegram's limits (30 sends/s overall, ~1/s per
private chat, 429 beyond) and one bot process; N users in their own private chats each send
/quiz, tap an option and wait for the explanation, all at once. CPU time comes from the
kernel's accounting of the bot process (/proc/<pid>/stat) over the measured window only;
tap -> answerCallbackQuery latency from the fake, which stamps both ends.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bench.report import ROOT, Result, check, median, ms, percentile
from fake_telegram import FakeTelegram
from fake_telegram.spec import SPEC_BESIDE_CHECKOUT, find_spec

# "baseline" is python-telegram-bot as it comes (httpx), what issue #21's target compares with;
# "baseline-aiohttp" is the same bot on the coach's transport (bot/http.py), so that the row also
# shows what the coach's own work costs, apart from the transport it chose.
BOTS = {"coach": ("-m", "bot"), "baseline": ("-m", "bench.baseline_bot"),
        "baseline-aiohttp": ("-m", "bench.baseline_bot", "--transport", "aiohttp")}
STEP_TIMEOUT = 60.0  # seconds a user waits for one reply before counting the answer as failed
IGNORED_CALLS = frozenset({"getUpdates"})
CPU_RATIO = 1.3  # CPU per answer at most this times the bare PTB bot's (issue #21)


@dataclass(frozen=True)
class Load:
    users: int = 40
    answers: int = 8
    runs: int = 3
    warmup: int = 5  # users who each answer one question before the clock starts
    questions_dir: Path | None = None  # the bundled bank unless given


@dataclass
class RunFigures:
    answers: int = 0
    failed: int = 0
    seconds: float = 0.0
    cpu_seconds: float | None = None
    # CPU of a database server the bot talks to (PostgreSQL), when the caller measures one.
    server_cpu_seconds: float | None = None
    latencies: list[float] = field(default_factory=list)
    calls: int = 0
    too_many: int = 0

    @property
    def rate(self) -> float:
        return self.answers / self.seconds if self.seconds else 0.0

    @property
    def cpu_per_answer(self) -> float | None:
        if self.cpu_seconds is None or not self.answers:
            return None
        return self.cpu_seconds / self.answers

    @property
    def server_cpu_per_answer(self) -> float | None:
        if self.server_cpu_seconds is None or not self.answers:
            return None
        return self.server_cpu_seconds / self.answers


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU time the kernel has charged to the process (all its threads)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def seed_coach_users(path: Path | str, user_ids: list[int]) -> None:
    """Users who already chose English, backend and mid: the load starts at /quiz. `path` is
    the SQLite file or a PostgreSQL URL."""
    from storage.db import Database
    from storage.users import ensure_user, update_user

    db = await Database.open(path)
    try:
        for user_id in user_ids:
            await ensure_user(db, user_id=user_id, first_name="Bench", language="en",
                              now=int(time.time()))
            await update_user(db, user_id=user_id, language="en", field="backend", level="mid")
    finally:
        await db.close()


async def start_process(kind: str, fake: FakeTelegram, workdir: Path,
                        **extra: str) -> asyncio.subprocess.Process:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BOT_", "WEBHOOK_"))}
    env.update({
        "BOT_TOKEN": fake.token, "BOT_API_BASE_URL": fake.base_url,
        "BOT_API_BASE_FILE_URL": fake.base_file_url,
        "DATABASE_PATH": str(workdir / "coach.sqlite3"), "LOG_LEVEL": "WARNING",
        "PYTHONPATH": str(ROOT), **extra,
    })
    log = (workdir / f"{kind}.log").open("wb")
    process = await asyncio.create_subprocess_exec(
        sys.executable, *BOTS[kind], cwd=workdir, env=env, stdout=log, stderr=log)
    log.close()
    return process


async def stop_process(process: asyncio.subprocess.Process) -> None:
    if process.returncode is not None:
        return
    process.send_signal(signal.SIGTERM)
    try:
        await asyncio.wait_for(process.wait(), timeout=20)
    except TimeoutError:
        process.kill()
        await process.wait()


async def wait_ready(fake: FakeTelegram, process: asyncio.subprocess.Process, log: Path) -> None:
    """Until the bot polls for updates; a bot that exits first is an error with its log."""
    deadline = time.monotonic() + 60
    while not fake.stats.calls["getUpdates"]:  # counted when the (long) poll arrives
        if process.returncode is not None or time.monotonic() > deadline:
            tail = log.read_text(errors="replace")[-2000:]  # noqa: ASYNC240 - once, on failure
            raise RuntimeError(
                f"the bot did not start polling (exit {process.returncode}):\n{tail}")
        await asyncio.sleep(0.05)


async def one_user(fake: FakeTelegram, user_id: int, answers: int, rng: random.Random,
                   figures: RunFigures, queries: list[str]) -> None:
    """/quiz, wait for the question, tap an option, wait for the answer and explanation."""
    user = fake.user(user_id, "Bench", language_code="en")
    for _ in range(answers):
        try:
            before = len(fake.bot_messages(user_id))
            fake.send_message(user, "/quiz")
            sent = await fake.wait_for_bot_messages(user_id, before + 1, STEP_TIMEOUT)
            question = next(m for m in sent[before:] if fake.buttons(m))
            options = [data for row in fake.buttons(question) for _, data in row if data]
            query_id = fake.tap(user, question, rng.choice(options))
            queries.append(query_id)
            await fake.wait_answer(query_id, STEP_TIMEOUT)
            await fake.wait_for_bot_messages(user_id, before + 2, STEP_TIMEOUT)
            figures.answers += 1
        except (TimeoutError, StopIteration):
            figures.failed += 1


async def drive(fake: FakeTelegram, load: Load, users: list[int], warm: list[int], seed: int,
                cpu: Callable[[], float | None],
                server_cpu: Callable[[], float | None] | None = None) -> RunFigures:
    """The warm-up users (excluded), then the measured users all at once against a bot that is
    ready; `cpu` (and `server_cpu`) read cumulative CPU seconds at both ends of the window."""
    figures = RunFigures()
    rng = random.Random(seed)
    ignored: list[str] = []
    if warm:
        await asyncio.gather(*(one_user(fake, u, 1, rng, RunFigures(), ignored) for u in warm))
        await asyncio.sleep(1.5)  # the fake's one-second window empties
    queries: list[str] = []
    first_call = len(fake.calls)
    cpu_before = cpu()
    server_before = server_cpu() if server_cpu else None
    started = time.monotonic()
    await asyncio.gather(*(one_user(fake, u, load.answers, rng, figures, queries)
                           for u in users))
    figures.seconds = time.monotonic() - started
    cpu_after = cpu()
    server_after = server_cpu() if server_cpu else None
    if cpu_before is not None and cpu_after is not None:
        figures.cpu_seconds = cpu_after - cpu_before
    if server_before is not None and server_after is not None:
        figures.server_cpu_seconds = server_after - server_before
    window = [c for c in fake.calls[first_call:] if c.method not in IGNORED_CALLS]
    figures.calls = len(window)
    figures.too_many = sum(1 for c in window if c.error_code == 429)
    latency = fake.stats.callback_latency
    figures.latencies = [latency[q] for q in queries if q in latency]
    return figures


async def run_once(kind: str, load: Load, seed: int, *, database_url: str | None = None,
                   server_cpu: Callable[[], float | None] | None = None) -> RunFigures:
    """One bot process against a fresh fake: warm-up (excluded), then the measured load. With
    `database_url` the coach runs on that (empty) PostgreSQL database instead of a SQLite file,
    and `server_cpu` reads the database server's CPU seconds over the same window."""
    users = [10_000 + i for i in range(load.users)]
    warm = [90_000 + i for i in range(load.warmup)]
    with tempfile.TemporaryDirectory(prefix=f"bench-{kind}-") as tmp:
        workdir = Path(tmp)
        if kind == "coach":
            await seed_coach_users(database_url or workdir / "coach.sqlite3", users + warm)
        fake = FakeTelegram(spec_path=find_spec(default=SPEC_BESIDE_CHECKOUT),
                            rate_limits=True)
        await fake.start()
        extra = {"QUESTIONS_DIR": str(load.questions_dir)} if load.questions_dir else {}
        if database_url:
            extra["DATABASE_URL"] = database_url
        process = await start_process(kind, fake, workdir, **extra)
        try:
            await wait_ready(fake, process, workdir / f"{kind}.log")
            return await drive(fake, load, users, warm, seed,
                               lambda: cpu_seconds(process.pid), server_cpu)
        finally:
            await stop_process(process)
            await fake.stop()


def summary(runs: list[RunFigures]) -> dict[str, float]:
    answers = sum(r.answers for r in runs)
    cpu = [c for r in runs if (c := r.cpu_per_answer) is not None]
    latencies = [x for r in runs for x in r.latencies]
    return {
        "rate": median([r.rate for r in runs]),
        "cpu": median(cpu) if cpu else float("nan"),
        "p50": percentile(latencies, 50),
        "p99": percentile(latencies, 99),
        "calls": sum(r.calls for r in runs) / answers if answers else float("nan"),
        "too_many": sum(r.too_many for r in runs),
        "failed": sum(r.failed for r in runs),
    }


def describe(name: str, s: dict[str, float]) -> str:
    failed = f", {s['failed']:.0f} failed" if s["failed"] else ""
    return (f"{name} {s['rate']:.2f} answers/s, {ms(s['cpu'])} CPU/answer, "
            f"tap->answerCallbackQuery p50 {ms(s['p50'])} p99 {ms(s['p99'])}, "
            f"{s['calls']:.2f} API calls/answer ({s['too_many']:.0f} x 429){failed}")


async def measure(load: Load) -> Result:
    kinds = ("coach", "baseline", "baseline-aiohttp")
    runs: dict[str, list[RunFigures]] = {kind: [] for kind in kinds}
    for index in range(load.runs):
        # Rotate who goes first, so that no bot always meets a warmer (or busier) machine.
        for kind in kinds[index % 3:] + kinds[:index % 3]:
            runs[kind].append(await run_once(kind, load, seed=index))
    coach, base = summary(runs["coach"]), summary(runs["baseline"])
    same = summary(runs["baseline-aiohttp"])
    throughput = coach["rate"] / base["rate"] if base["rate"] else float("nan")
    cpu = coach["cpu"] / base["cpu"] if base["cpu"] else float("nan")
    own = coach["cpu"] / same["cpu"] if same["cpu"] else float("nan")
    faster = base["p99"] / coach["p99"] if coach["p99"] else float("nan")
    missed: list[str] = []
    marks = (check(missed, throughput >= 0.8, f"throughput {throughput:.2f}x the baseline"),
             check(missed, cpu <= CPU_RATIO, f"CPU per answer {cpu:.2f}x the baseline"),
             check(missed, coach["p99"] < 1.0, f"tap p99 {ms(coach['p99'])}"))
    figures = (f"{describe('coach', coach)}; {describe('baseline', base)}; "
               f"{describe('baseline on aiohttp', same)}; ratios: throughput "
               f"{throughput:.2f}x, CPU/answer {cpu:.2f}x (against the baseline on the coach's "
               f"transport: {own:.2f}x), the baseline's tap p99 is {faster:.1f}x the coach's")
    targets = (f"throughput >= 0.8x ({marks[0]}), CPU/answer <= {CPU_RATIO}x ({marks[1]}), "
               f"tap p99 < 1 s while sends are saturated ({marks[2]})")
    how = (f"{load.users} users x {load.answers} answers in private chats, {load.runs} run(s) "
           f"per bot; medians over runs, latency percentiles over all taps; {load.warmup} "
           "warm-up answers per run excluded")
    return Result("e2e", figures, targets, not missed, how, tuple(missed))


def run(load: Load) -> Result:
    return asyncio.run(measure(load))
