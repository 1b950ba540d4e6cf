"""Part 7 (issue #22): what PostgreSQL and a second instance cost and bring, side by side.

1. CPU per answer and tap -> answer latency on SQLite and on PostgreSQL: the e2e part's load
   (bench/e2e.py: simulated users against the real `python -m bot` process polling a fake
   Telegram with Telegram's limits), once with DATABASE_PATH and once with DATABASE_URL to a
   fresh database on a throwaway cluster. The postgres server's processes do part of the work
   that SQLite does inside the bot's process, so their CPU is read too (the postmaster and its
   children, from /proc) and reported beside the bot's.
2. Answered taps per second with one instance and with two, in webhook mode behind a small
   round-robin balancer, on PostgreSQL, under the fake's rate limits. The instances take turns
   from one send budget in the database, so the fake must count no 429 at all. Telegram's overall
   limit of 30 messages a second caps one instance and two alike: while the bot is not CPU-bound,
   a ratio near 1 is the expected finding.

Needs PostgreSQL (tests/postgres.py starts the cluster); without it the part says why it skipped.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

import aiohttp

from bench.e2e import (
    Load,
    RunFigures,
    cpu_seconds,
    drive,
    run_once,
    seed_coach_users,
    start_process,
    stop_process,
    summary,
)
from bench.report import Result, check, median, ms
from bot.telegram_limits import SHARED_PER_SECOND
from fake_telegram import FakeTelegram
from fake_telegram.balancer import Balancer
from fake_telegram.spec import SPEC_BESIDE_CHECKOUT, find_spec
from tests.postgres import PostgresServer, free_port, missing

SECRET = "bench-instances-secret"
READY_SECONDS = 90.0  # a loaded machine starts the bot slowly; beyond this, it is broken


@dataclass(frozen=True)
class Sizes:
    compare: Load  # SQLite against PostgreSQL: the e2e part's load
    instances: Load  # one instance against two


def _stat_fields(pid: int) -> list[str] | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()  # [0] state, [1] ppid, [11:15] utime..cstime


def cluster_cpu_seconds(data: Path) -> float | None:
    """CPU seconds of a PostgreSQL cluster: its postmaster (from `data`/postmaster.pid) and the
    postmaster's children (backends, background workers), found by their parent id in /proc.
    Each process counts its own time and that of its exited children, so a backend that ends
    mid-window is still counted, in the postmaster's total, once it is reaped."""
    try:
        postmaster = int((data / "postmaster.pid").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    ticks = 0
    found = False
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        fields = _stat_fields(int(entry.name))
        if fields is None:
            continue
        if int(entry.name) == postmaster or fields[1] == str(postmaster):
            ticks += sum(int(f) for f in fields[11:15])
            found = found or int(entry.name) == postmaster
    return ticks / os.sysconf("SC_CLK_TCK") if found else None


async def wait_webhooks_ready(processes: list[asyncio.subprocess.Process], ports: list[int],
                              logs: list[Path], fake: FakeTelegram) -> None:
    """Until every instance answers /readyz with 200 and has set the webhook."""
    deadline = time.monotonic() + READY_SECONDS
    async with aiohttp.ClientSession() as session:
        waiting = set(range(len(ports)))
        while waiting or fake.stats.calls["setWebhook"] < len(ports):
            for index in sorted(waiting):
                with contextlib.suppress(aiohttp.ClientError, TimeoutError):
                    async with session.get(f"http://127.0.0.1:{ports[index]}/readyz",
                                           timeout=aiohttp.ClientTimeout(total=2)) as answer:
                        if answer.status == 200:
                            waiting.discard(index)
            broken = [i for i, p in enumerate(processes) if p.returncode is not None]
            if broken or time.monotonic() > deadline:
                index = broken[0] if broken else min(waiting, default=0)
                tail = logs[index].read_text(errors="replace")[-2000:]  # noqa: ASYNC240
                raise RuntimeError(f"instance {index} did not get ready "
                                   f"(exit {processes[index].returncode}):\n{tail}")
            await asyncio.sleep(0.1)


async def run_instances(count: int, load: Load, seed: int, server: PostgresServer) -> RunFigures:
    """`count` webhook instances of the real bot behind the balancer, on a fresh PostgreSQL
    database, against a fresh fake with Telegram's limits; warm-up excluded. `too_many` is
    every 429 the fake counted in the whole run, warm-up included."""
    users = [10_000 + i for i in range(load.users)]
    warm = [90_000 + i for i in range(load.warmup)]
    url = await server.create_database()
    ports = [free_port() for _ in range(count)]
    balancer = Balancer(ports)
    fake = FakeTelegram(spec_path=find_spec(default=SPEC_BESIDE_CHECKOUT), rate_limits=True)
    processes: list[asyncio.subprocess.Process] = []
    with tempfile.TemporaryDirectory(prefix="bench-instances-") as tmp:
        try:
            await seed_coach_users(url, users + warm)
            await balancer.start()
            await fake.start()
            logs = []
            for index, port in enumerate(ports):
                workdir = Path(tmp) / f"instance{index}"
                workdir.mkdir()
                logs.append(workdir / "coach.log")
                extra = {"QUESTIONS_DIR": str(load.questions_dir)} if load.questions_dir else {}
                processes.append(await start_process(
                    "coach", fake, workdir, DATABASE_URL=url, WEBHOOK_URL=balancer.url,
                    WEBHOOK_PORT=str(port), WEBHOOK_LISTEN="127.0.0.1", WEBHOOK_SECRET=SECRET,
                    **extra))
            await wait_webhooks_ready(processes, ports, logs, fake)

            def bots_cpu() -> float | None:
                each = [cpu_seconds(p.pid) for p in processes]
                return None if None in each else sum(c for c in each if c is not None)

            figures = await drive(fake, load, users, warm, seed, bots_cpu,
                                  lambda: cluster_cpu_seconds(server.data))
            figures.too_many = fake.stats.too_many_requests
            return figures
        finally:
            for process in processes:  # the first SIGTERM starts the drain...
                if process.returncode is None:
                    process.send_signal(signal.SIGTERM)
            # ...and stop_process's second one cuts its 5 s grace short.
            await asyncio.gather(*(stop_process(p) for p in processes))
            await fake.stop()
            await balancer.stop()
            with contextlib.suppress(Exception):
                await server.drop_database(url)


async def run_on_postgres(load: Load, seed: int, server: PostgresServer) -> RunFigures:
    url = await server.create_database()
    try:
        return await run_once("coach", load, seed, database_url=url,
                              server_cpu=lambda: cluster_cpu_seconds(server.data))
    finally:
        with contextlib.suppress(Exception):
            await server.drop_database(url)


def server_cpu(runs: list[RunFigures]) -> float:
    values = [c for r in runs if (c := r.server_cpu_per_answer) is not None]
    return median(values) if values else float("nan")


def ratio(a: float, b: float) -> float:
    return a / b if b else float("nan")


def failed(s: dict[str, float]) -> str:
    return f", {s['failed']:.0f} failed" if s["failed"] else ""


async def measure(sizes: Sizes, runs: int, server: PostgresServer) -> Result:
    compare: dict[str, list[RunFigures]] = {"sqlite": [], "postgres": []}
    counts: dict[int, list[RunFigures]] = {1: [], 2: []}
    for index in range(runs):
        # Alternate who goes first, so neither always meets a warmer (or busier) machine.
        for kind in (("sqlite", "postgres") if index % 2 == 0 else ("postgres", "sqlite")):
            compare[kind].append(
                await run_once("coach", sizes.compare, seed=index) if kind == "sqlite"
                else await run_on_postgres(sizes.compare, index, server))
        for count in ((1, 2) if index % 2 == 0 else (2, 1)):
            counts[count].append(await run_instances(count, sizes.instances, index, server))

    lite, pg = summary(compare["sqlite"]), summary(compare["postgres"])
    pg_server = server_cpu(compare["postgres"])
    one, two = summary(counts[1]), summary(counts[2])
    one_server, two_server = server_cpu(counts[1]), server_cpu(counts[2])
    too_many = {n: sum(r.too_many for r in counts[n]) for n in counts}
    # Every call in the window but getUpdates, less each answer's one answerCallbackQuery
    # (unpaced): the sends and edits that Telegram's overall limit counts.
    sends = median([one["calls"], two["calls"]]) - 1

    missed: list[str] = []
    mark = check(missed, too_many[1] == 0 and too_many[2] == 0,
                 f"429s: {too_many[1]} with one instance, {too_many[2]} with two")
    figures = (
        f"SQLite {lite['rate']:.2f} answers/s, bot CPU {ms(lite['cpu'])}/answer, tap->answer "
        f"p50 {ms(lite['p50'])} p99 {ms(lite['p99'])} ({lite['too_many']:.0f} x 429"
        f"{failed(lite)}); PostgreSQL {pg['rate']:.2f} answers/s, bot CPU {ms(pg['cpu'])}/answer"
        f" + postgres server {ms(pg_server)}/answer = {ms(pg['cpu'] + pg_server)}, tap->answer "
        f"p50 {ms(pg['p50'])} p99 {ms(pg['p99'])} ({pg['too_many']:.0f} x 429{failed(pg)}); "
        f"PostgreSQL/SQLite CPU per answer: bot {ratio(pg['cpu'], lite['cpu']):.2f}x, bot + "
        f"server {ratio(pg['cpu'] + pg_server, lite['cpu']):.2f}x. Webhook mode on PostgreSQL "
        f"behind a round-robin balancer: one instance {one['rate']:.2f} answered taps/s, tap->"
        f"answer p50 {ms(one['p50'])} p99 {ms(one['p99'])}, bot CPU {ms(one['cpu'])}/answer + "
        f"postgres {ms(one_server)}, {too_many[1]} x 429{failed(one)}; two instances "
        f"{two['rate']:.2f} answered taps/s, p50 {ms(two['p50'])} p99 {ms(two['p99'])}, bots' "
        f"CPU {ms(two['cpu'])}/answer + postgres {ms(two_server)}, {too_many[2]} x 429"
        f"{failed(two)}; two/one {ratio(two['rate'], one['rate']):.2f}x. Telegram's overall "
        f"limit of 30 messages/s caps both (the bot paces itself at {SHARED_PER_SECOND:.0f}/s): "
        f"at {sends:.2f} sends and edits per answer that is {SHARED_PER_SECOND / sends:.1f} "
        "answers/s with one instance as with two, so while neither is CPU-bound a ratio near 1 "
        "is the finding, not a failure")
    targets = f"zero 429s with one and with two instances sharing the send budget ({mark})"
    how = (f"SQLite vs PostgreSQL: {sizes.compare.users} users x {sizes.compare.answers} answers,"
           f" polling; one vs two instances: {sizes.instances.users} users x "
           f"{sizes.instances.answers} answers, webhook; {runs} run(s) each, alternating order; "
           f"medians over runs, latency percentiles over all taps; {sizes.compare.warmup} "
           "warm-up answers per run excluded; postgres CPU = its postmaster and children, /proc")
    return Result("instances", figures, targets, not missed, how, tuple(missed))


async def measure_on_a_cluster(sizes: Sizes, runs: int) -> Result:
    server = await asyncio.to_thread(PostgresServer.start)
    try:
        return await measure(sizes, runs, server)
    finally:
        await asyncio.to_thread(server.stop)


def run(compare: Load, users: int) -> Result:
    """`compare` is the e2e load (SQLite against PostgreSQL) with the runs of each half; the
    instances' half runs `users` users with the same answers each, warm-up and bank."""
    reason = missing()
    if reason is not None:
        return Result("instances", f"skipped: {reason}", "zero 429s", None)
    sizes = Sizes(compare, replace(compare, users=users))
    return asyncio.run(measure_on_a_cluster(sizes, compare.runs))

