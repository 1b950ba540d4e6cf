"""Two instances of the real bot on one PostgreSQL database, behind a round-robin balancer in
webhook mode: any instance handles any update, a double tap that reaches both counts once, and
when one is killed with SIGKILL mid-round the other finishes the round, revealing each question
once. Also: two instances share Telegram's send budget instead of each spending all of it."""

from __future__ import annotations

import asyncio
import contextlib
import re
import signal
import time
from pathlib import Path

import asyncpg
import httpx
import pytest
from telegram.ext import ExtBot

from bot import callbacks, telegram_limits
from fake_telegram import FakeTelegram
from fake_telegram.balancer import Balancer, free_port
from questions.loader import load_bank
from storage.db import Database
from tests.conftest import TEST_BANK
from tests.e2e.test_process import start_bot_process
from tests.shared_files import API_SPEC

pytestmark = pytest.mark.postgres
GROUP = -1009876543210
SECRET = "two-instances-secret"


async def ready(port: int) -> None:
    async with httpx.AsyncClient() as client:
        for _ in range(300):
            with contextlib.suppress(httpx.HTTPError):
                if (await client.get(f"http://127.0.0.1:{port}/readyz")).status_code == 200:
                    return
            await asyncio.sleep(0.1)
    raise AssertionError(f"instance on port {port} never became ready")


def option_data(fake: FakeTelegram, message: dict, key: str) -> str:
    for row in fake.buttons(message):
        for _, data in row:
            parsed = callbacks.RoundAnswer.parse(data)
            if parsed is not None and parsed.option == key:
                return data
    raise AssertionError(f"no button for option {key} in {fake.buttons(message)}")


def question_messages(fake: FakeTelegram) -> list[dict]:
    """The round's questions, live (with buttons) or revealed."""
    return [m for m in fake.bot_messages(GROUP)
            if any((d or "").startswith("v1:g:") for row in fake.buttons(m) for _, d in row)
            or re.search(r"Question \d+/\d+", m.get("text", ""))]


async def test_a_round_survives_the_death_of_the_instance_running_it(tmp_path: Path,
                                                                     postgres_url: str):
    bank = load_bank(TEST_BANK)
    ports = [free_port(), free_port()]
    balancer = Balancer(ports)
    await balancer.start()
    fake = FakeTelegram(spec_path=API_SPEC)
    await fake.start()
    processes: dict[int, asyncio.subprocess.Process] = {}
    try:
        for index, port in enumerate(ports):
            folder = tmp_path / f"instance{index}"
            folder.mkdir()
            processes[port] = await start_bot_process(
                fake, folder, log_file=tmp_path / f"instance-{port}.log", DATABASE_URL=postgres_url, WEBHOOK_URL=balancer.url,
                WEBHOOK_PORT=str(port), WEBHOOK_LISTEN="127.0.0.1", WEBHOOK_SECRET=SECRET,
                ROUND_MIN_SECONDS="1", ROUND_PAUSE_SECONDS="0.5", ROUND_TICK_SECONDS="0",
                INSTANCE_LEASE_SECONDS="3", LOG_LEVEL="INFO")
        await asyncio.gather(*(ready(port) for port in ports))
        ada, bob, cem = fake.user(4101, "Ada"), fake.user(4102, "Bob"), fake.user(4103, "Cem")
        fake.group(GROUP, "Prep", members={ada: "administrator", bob: "member", cem: "member"})
        db = await Database.open(postgres_url)

        async def correct_key(message: dict) -> str:
            data = callbacks.RoundAnswer.parse(fake.buttons(message)[0][0][1])
            row = await db.fetchone("SELECT question_id FROM round_questions"
                                    " WHERE round_id = ? AND position = ?",
                                    (data.round_id, data.position))
            return bank.questions[row["question_id"]].correct

        fake.send_message(ada, "/round 3 4", chat_id=GROUP)
        await fake.wait_until(lambda: len(question_messages(fake)) >= 1, timeout=30)
        first = question_messages(fake)[0]
        right = option_data(fake, first, await correct_key(first))
        # A double tap: the balancer sends its two taps to the two instances.
        taps = [fake.tap(ada, first, right, chat_id=GROUP), fake.tap(ada, first, right,
                                                                     chat_id=GROUP)]
        toasts = [(await fake.wait_answer(t, timeout=15))["text"] for t in taps]
        assert sum("Locked in" in t for t in toasts) == 1, toasts

        # The instance that took /round set the round's timers: kill it without warning.
        victim = processes.pop(balancer.port_that_handled("/round 3 4"))
        victim.send_signal(signal.SIGKILL)
        await victim.wait()
        later = fake.tap(bob, first, right, chat_id=GROUP)
        assert "Locked in" in (await fake.wait_answer(later, timeout=15))["text"]

        # The other instance takes the round over and carries it to the end.
        for number in (2, 3):
            await fake.wait_until(lambda n=number: len(question_messages(fake)) >= n, timeout=40)
            message = question_messages(fake)[number - 1]
            tap = fake.tap(cem, message, option_data(fake, message, await correct_key(message)),
                           chat_id=GROUP)
            await fake.wait_answer(tap, timeout=15)
        try:
            await fake.wait_until(lambda: any("Round over" in m.get("text", "")
                                              for m in fake.bot_messages(GROUP)), timeout=40)
        except TimeoutError:
            raise AssertionError([m.get("text", "")[:80] for m in fake.bot_messages(GROUP)]) from None
        await asyncio.sleep(1.0)  # anything sent twice would have arrived by now

        texts = [m.get("text", "") for m in fake.bot_messages(GROUP)]
        assert len(question_messages(fake)) == 3
        assert sum("Round over" in t for t in texts) == 1
        # Each question revealed once: one results message per question.
        assert sum("Got it right" in t for t in texts) == 3, texts
        taps_stored = await db.fetchall("SELECT position, user_id FROM round_answers"
                                        " ORDER BY position, user_id")
        assert [(r["position"], r["user_id"]) for r in taps_stored] == [
            (1, ada.id), (1, bob.id), (2, cem.id), (3, cem.id)]
        group_answers = await db.fetchone("SELECT COUNT(*) FROM answers WHERE source = 'group'")
        assert group_answers[0] == 4
        assert fake.violations == []
        await db.close()
    finally:
        for process in processes.values():
            process.send_signal(signal.SIGTERM)
            process.send_signal(signal.SIGTERM)  # the second one skips the drain's grace
        for process in processes.values():
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(process.wait(), timeout=20)
        await fake.stop()
        await balancer.stop()


async def send_from_two_instances(fake: FakeTelegram, limiters, per_instance: int) -> float:
    """Each instance's bot sends `per_instance` messages to its own users at once; seconds."""
    bots = [ExtBot(fake.token, base_url=fake.base_url, rate_limiter=limiter)
            for limiter in limiters]
    users = [fake.user(6000 + i, f"U{i}") for i in range(per_instance * len(bots))]
    for user in users:
        fake.send_message(user, "/start")
    started = time.monotonic()
    for bot in bots:
        await bot.initialize()
    try:
        await asyncio.gather(*(
            bot.send_message(users[b * per_instance + i].id, "hi")
            for b, bot in enumerate(bots) for i in range(per_instance)))
    finally:
        for bot in bots:
            await bot.shutdown()
    return time.monotonic() - started


async def test_two_instances_share_telegrams_send_budget(postgres_url: str):
    databases = [await Database.open(postgres_url), await Database.open(postgres_url)]
    shared = [telegram_limits.shared_limiter() for _ in databases]
    for limiter, db in zip(shared, databases, strict=True):
        limiter.share_budget(db)
    async with FakeTelegram(spec_path=API_SPEC, rate_limits=True) as fake:
        seconds = await send_from_two_instances(fake, shared, 30)
        # Every send arrives, once: a 429 is retried with a new turn. Zero 429s is measured by
        # `make bench`'s instances part, with real processes (0 in every run). Here the fake and
        # both bots share one event loop, and on a busy machine a stall in it can bunch a few
        # arrivals into one of the fake's seconds (4 in one fresh-clone run on a slowed host).
        assert len([c for c in fake.calls_to("sendMessage") if c.ok]) == 60
        assert fake.stats.too_many_requests <= 5
        assert fake.stats.max_per_second() <= 30
        assert seconds >= 59 / (30 * telegram_limits.HEADROOM) - 0.1  # one budget, not two
    # Without it, each instance spends the whole budget on its own and Telegram refuses some.
    async with FakeTelegram(spec_path=API_SPEC, rate_limits=True) as fake:
        with contextlib.suppress(Exception):
            await send_from_two_instances(fake, [telegram_limits.limiter(),
                                                 telegram_limits.limiter()], 30)
        assert fake.stats.too_many_requests > 0
    for db in databases:
        await db.close()


async def test_the_group_budget_is_shared_too(postgres_url: str):
    """Per group: a burst of 10, then one every 6 s (10 a minute), whichever instance sends."""
    first, second = await Database.open(postgres_url), await Database.open(postgres_url)
    from storage.coordination import take_sends

    bucket = [("chat:-100", telegram_limits.SHARED_GROUP_PER_MINUTE / 60,
               telegram_limits.SHARED_GROUP_BURST)]
    waits = [await take_sends(db, bucket) for db in (first, second) * 6 + (first,)]
    assert all(w == 0 for w in waits[:10])
    assert [round(w) for w in waits[10:]] == [6, 12, 18]
    # Twenty sends in any minute at most: 10 at once, then 10 over the next 60 s.
    assert 10 + 60 * telegram_limits.SHARED_GROUP_PER_MINUTE / 60 <= 20
    with contextlib.suppress(asyncpg.PostgresError):
        await first.close()
    await second.close()


async def test_after_a_429_every_instance_pauses_and_the_retry_takes_a_new_turn(
        postgres_url: str):
    first, second = await Database.open(postgres_url), await Database.open(postgres_url)
    limiters = [telegram_limits.shared_limiter(), telegram_limits.shared_limiter()]
    for limiter, db in zip(limiters, (first, second), strict=True):
        limiter.share_budget(db)
    async with FakeTelegram(spec_path=API_SPEC) as fake:
        ada, bob = fake.user(6101, "Ada"), fake.user(6102, "Bob")
        for user in (ada, bob):
            fake.send_message(user, "/start")
        bots = [ExtBot(fake.token, base_url=fake.base_url, rate_limiter=limiter)
                for limiter in limiters]
        for bot in bots:
            await bot.initialize()
        try:
            fake.fail_next("sendMessage", 429, retry_after=1, chat_id=ada.id)
            started = time.monotonic()
            refused = asyncio.create_task(bots[0].send_message(ada.id, "retried"))
            await fake.wait_until(lambda: any(not c.ok for c in fake.calls), timeout=5)
            await asyncio.sleep(0.1)  # the pause is written
            # The other instance's send, made during the pause, waits for it too.
            other_started = time.monotonic()
            await bots[1].send_message(bob.id, "after the pause")
            assert time.monotonic() - other_started >= 0.7
            await refused
            assert time.monotonic() - started >= 0.9  # the retry waited Telegram's retry_after
            assert [m["text"] for m in fake.bot_messages(ada.id)] == ["retried"]
            assert [m["text"] for m in fake.bot_messages(bob.id)] == ["after the pause"]
            assert fake.stats.too_many_requests == 0  # the 429 was injected, not earned
        finally:
            for bot in bots:
                await bot.shutdown()
    await first.close()
    await second.close()


async def test_a_countdown_left_by_a_dead_instance_is_taken_over(tmp_path: Path,
                                                                 postgres_url: str,
                                                                 monkeypatch):
    """The instance that set a question's countdown refresh is gone (its in-memory timer with
    it): another instance finds the refresh overdue in the database and makes it, showing the
    time left as it is then, and sets the next one."""
    from services.rounds import remove_jobs, tick_name
    from tests.e2e.harness import BotRunner

    monkeypatch.setenv("DATABASE_URL", postgres_url)
    async with FakeTelegram(spec_path=API_SPEC) as fake:
        ada = fake.user(4201, "Ada")
        fake.group(GROUP, "Prep", members={ada: "administrator"})
        runner = BotRunner(fake, tmp_path, round_min_seconds=1, round_pause_seconds=0.1,
                           round_tick_seconds=10)
        await runner.start()
        try:
            fake.send_message(ada, "/round 1 30", chat_id=GROUP)
            await fake.wait_until(lambda: len(question_messages(fake)) == 1, timeout=10)
            engine = runner.app.bot_data["round_engine"]
            db = runner.services.db
            for _ in range(100):  # the refresh row is written right after the question is sent
                row = await db.fetchone("SELECT due_at_ms FROM timers WHERE name = ?",
                                        (tick_name(GROUP),))
                if row is not None:
                    break
                await asyncio.sleep(0.02)
            assert row is not None  # the next refresh (20 s left) is a row any instance sees
            remove_jobs(engine.jobs.jobs, tick_name(GROUP))  # as if its instance had died
            runner.clock.advance(seconds=13)  # 3 s past it: 17 s left
            await engine.take_over()
            await fake.wait_until(lambda: "17 s left" in question_messages(fake)[0]["text"],
                                  timeout=5)
            after = await db.fetchone("SELECT due_at_ms FROM timers WHERE name = ?",
                                      (tick_name(GROUP),))
            assert after is not None and after["due_at_ms"] == row["due_at_ms"] + 10_000
        finally:
            await runner.stop()
