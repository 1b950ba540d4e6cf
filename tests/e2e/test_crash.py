"""SIGKILL in the middle of a burst of taps: nothing answered is lost, nothing is doubled."""

from __future__ import annotations

import asyncio
import random
import signal
import sqlite3
from pathlib import Path

import pytest

from tests.e2e.test_process import start_bot_process, wait_polling

USERS = 30


def seed_users(path: Path) -> None:
    """Users who already chose backend/junior, written before the bot starts."""
    from storage.db import latest_version, migrations

    with sqlite3.connect(path) as conn:
        for _, _, sql in migrations():
            conn.executescript(sql)
        conn.execute(f"PRAGMA user_version = {latest_version()}")
        conn.executemany(
            "INSERT INTO users (user_id, first_name, language, field, level, created_at)"
            " VALUES (?, ?, 'en', 'backend', 'junior', 0)",
            [(5000 + i, f"U{i}") for i in range(USERS)])


async def crash_once(fake, tmp_path: Path, kill_after: float) -> tuple[int, int]:
    """One burst, killed after `kill_after` s; returns (answered taps, stored answers)."""
    db_path = tmp_path / "coach.sqlite3"
    seed_users(db_path)
    users = [fake.user(5000 + i, f"U{i}") for i in range(USERS)]
    process = await start_bot_process(fake, tmp_path, LOG_LEVEL="WARNING")
    questions = []
    try:
        for user in users:
            fake.send_message(user, "/quiz")
        for user in users:
            [question] = await fake.wait_for_bot_messages(user.id, 1, timeout=30)
            questions.append(question)
        taps = [fake.tap(u, q, fake.buttons(q)[0][0][1]) for u, q in zip(users, questions,
                                                                          strict=True)]
        await asyncio.sleep(kill_after)
        process.send_signal(signal.SIGKILL)
        await process.wait()
        answered_before = {t for t in taps if fake.callback_queries[t].answer is not None}
        # PTB confirms fetched updates with its next getUpdates call, so taps that were in
        # flight may not come back; their buttons are still there, and the user taps again.
        generation = fake.poll_generation
        process = await start_bot_process(fake, tmp_path, LOG_LEVEL="WARNING")
        await wait_polling(fake, after=generation)
        retaps = [fake.tap(fake.callback_queries[t].user, fake.callback_queries[t].message_id,
                           fake.callback_queries[t].data)
                  for t in taps if t not in answered_before]
        for retap in retaps:
            answer = await fake.wait_answer(retap, timeout=15)
            assert answer.get("text"), "a tap after the restart got an empty answer"
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)
            await process.wait()
    with sqlite3.connect(db_path) as conn:
        rows = conn.execute("SELECT user_id, message_id, COUNT(*) FROM answers"
                            " GROUP BY user_id, chat_id, message_id").fetchall()
        totals = dict(conn.execute("SELECT user_id, answered FROM users").fetchall())
    stored = {(u, m) for u, m, _ in rows}
    assert all(count == 1 for *_, count in rows)
    for tap_id in answered_before:
        query = fake.callback_queries[tap_id]
        assert (query.user.id, query.message_id) in stored, "an answered tap was lost"
    # Every tap ends up stored exactly once, and the per-user totals agree.
    assert len(stored) == USERS
    assert all(totals[5000 + i] == 1 for i in range(USERS))
    return len(answered_before), len(stored)


async def test_crash_mid_burst_once(fake, tmp_path):
    await crash_once(fake, tmp_path, kill_after=0.05)


@pytest.mark.slow
@pytest.mark.parametrize("run", range(20))
async def test_crash_mid_burst_many_times(fake, tmp_path, run):
    rng = random.Random(run)
    answered, stored = await crash_once(fake, tmp_path, kill_after=rng.uniform(0.0, 0.4))
    print(f"run {run}: {answered} taps answered before the kill, {stored} stored after restart")
