"""`python -m storage.migrate`: a SQLite database the bot filled, copied into an empty PostgreSQL
one, reads the same through storage; new rows get fresh ids; a target with rows, an old SQLite
schema or two schemas that differ are refused; a failed copy leaves the target empty; the URL's
password is never printed."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

from domain.reminders import Schedule
from services import answers as recording
from services import interviews as interview_flow
from services import rounds as round_flow
from services import sharing as sharing_flow
from storage import (
    answers,
    coordination,
    flags,
    groups,
    interviews,
    jobmatch,
    keyboards,
    mistakes,
    privacy,
    ratings,
    reminders,
    review,
    rounds,
    sharing,
    users,
)
from storage.answers import NewAnswer
from storage.db import Database, migrations
from storage.migrate import Refused, copy_order, migrate, redact

asyncpg = pytest.importorskip("asyncpg")

pytestmark = pytest.mark.postgres

ROOT = Path(__file__).resolve().parents[2]
T0 = datetime(2026, 3, 10, 9, 0, tzinfo=UTC)
CHAT = -100
SHARED = "inline-abc"
PASSWORD = "Sw0rdfish-s3cret"


def answer(user_id: int, question_id: str, *, message_id: int, right: bool = True,
           day: int = 0, source: str = "practice", chat_id: int | None = None) -> NewAnswer:
    return NewAnswer(user_id=user_id, question_id=question_id, field="backend", topic="http",
                     level="mid", chosen="a" if right else "b", is_correct=right,
                     answered_at=int((T0 + timedelta(days=day)).timestamp()),
                     chat_id=user_id if chat_id is None else chat_id, message_id=message_id,
                     source=source, elapsed_ms=4000)


async def fill(db: Database) -> dict[str, int]:
    """A little of everything the bot stores, written by the bot's own functions; the ids a
    fresh row must go past."""
    for uid, name in ((1, "Ada"), (2, "Bob"), (3, "Cem")):
        await users.ensure_user(db, user_id=uid, first_name=name, language="en", now=1)
        await users.update_user(db, user_id=uid, field="backend", level="mid")
    await reminders.set_timezone(db, user_id=1, timezone="Europe/Istanbul", now=T0)
    await reminders.save_reminder(db, user_id=1, schedule=Schedule(570, always=True), now=T0)
    # Practice over three days (a streak), one wrong answer, one lucky guess.
    for i, (qid, right, day) in enumerate([("q1", True, 0), ("q2", False, 0), ("q3", True, 1),
                                           ("q1", True, 2), ("q4", True, 2)]):
        await recording.record(db, answer(1, qid, message_id=100 + i, right=right, day=day))
    guessed = await recording.record(db, answer(2, "q5", message_id=200))
    assert guessed.answer_id is not None
    assert await recording.mark_guessed(db, user_id=2, answer_id=guessed.answer_id,
                                        now=T0) == "marked"
    # A finished mock interview.
    interview = await interviews.start_interview(db, user_id=1, field="backend", level="mid",
                                                 question_ids=["q6", "q7"], chat_id=1, now=T0)
    for position, qid in enumerate(["q6", "q7"]):
        interview = await interviews.get_interview(db, interview_id=interview.id)
        assert await interview_flow.record_answer(
            db, interview=interview, position=position,
            answer=answer(1, qid, message_id=300 + position, right=position == 0,
                          source="interview"))
    # A finished group round with taps from two members.
    await groups.update_group(db, chat_id=CHAT, field="backend", level="mid", now=1)
    rnd = await rounds.create_round(db, chat_id=CHAT, started_by=1, language="en", seconds=30,
                                    question_ids=["q8", "q9"], now=1000)
    assert rnd is not None
    await rounds.open_question(db, round_id=rnd.id, position=1, opened_at_ms=0,
                               deadline_ms=30_000)
    for uid, right, points in ((1, True, 140), (2, False, 0)):
        tap = answer(uid, "q8", message_id=400, right=right, source="group", chat_id=CHAT)
        await round_flow.record_tap(db, round_id=rnd.id, position=1, answer=tap, points=points)
    await rounds.close_question(db, round_id=rnd.id, position=1, now_ms=30_000)
    await rounds.end_round(db, round_id=rnd.id, status="finished", now=2000)
    await keyboards.remember_owner(db, chat_id=CHAT, message_id=401, user_id=2, now=1)
    await coordination.set_timer(db, name=f"round:{CHAT}", due_at_ms=5000, payload="x")
    # Reports: Bob's waits for its comment; Cem's goes when Cem erases himself, so the highest
    # flag id ever given is above the highest left.
    bob_flag = await flags.add_flag(db, question_id="q2", user_id=2, reason="key", now=5,
                                    comment_until=10**10)
    assert bob_flag is not None
    cem_flag = await flags.add_flag(db, question_id="q3", user_id=3, reason="typo", now=6,
                                    comment_until=None)
    assert cem_flag is not None and cem_flag > bob_flag
    await privacy.erase_user(db, user_id=3)
    # Job ads: Ada's match stays, Bob's is cancelled (its id must not come back).
    ranking = [jobmatch.RankedField("backend", 0.8, ("http", "sql")),
               jobmatch.RankedField("devops", 0.2, ("docker",))]
    ada_match = await jobmatch.save_match(db, user_id=1, level="mid", ranking=ranking, now=7)
    bob_match = await jobmatch.save_match(db, user_id=2, level="senior", ranking=ranking, now=8)
    assert await jobmatch.discard_match(db, match_id=bob_match, user_id=2)
    plan_match = await jobmatch.save_match(db, user_id=2, level="mid", ranking=ranking, now=9)
    assert await jobmatch.adopt_match(db, match_id=plan_match, user_id=2, field="backend",
                                      level="mid", topics=["http"], now=9)
    # A shared question: a user of the bot (also in their /stats) and someone who is not.
    for uid, personal in ((2, answer(2, "q10", message_id=500)), (99, None)):
        assert await sharing_flow.record_tap(
            db, inline_message_id=SHARED, question_id="q10", language="en",
            options_order="abcd", user_id=uid, chosen="a", is_correct=True, now=11,
            personal=personal)
    await sharing.mark_shown(db, inline_message_id=SHARED, shown=sharing.Tally(2, 2))
    last_answer = await db.fetchone("SELECT MAX(id) FROM answers")
    assert last_answer is not None
    return {"answers": last_answer[0], "interviews": interview.id, "rounds": rnd.id,
            "flags": cem_flag, "matches": plan_match, "ada's match": ada_match}


async def observe(db: Database, ids: dict[str, int]) -> dict[str, object]:
    """What the bot reads back, through its own storage functions."""
    now = T0 + timedelta(days=5)
    last = await interviews.last_interview(db, user_id=1)
    assert last is not None
    return {
        "users": [await users.get_user(db, user_id=uid) for uid in (1, 2, 3)],
        "reminder": await reminders.get_reminder(db, user_id=1),
        "due reminders": await reminders.due_count(db, now=now),
        "topics": [await answers.topic_totals(db, user_id=uid) for uid in (1, 2)],
        "seen": await answers.seen_questions(db, user_id=1),
        "review due": await review.due_count(db, user_id=1, now=now),
        "review logs": await review.review_logs(db, user_id=1),
        "mistakes": [await mistakes.mistake_ids(db, user_id=uid) for uid in (1, 2)],
        "rating": await ratings.user_rating(db, user_id=1, field="backend"),
        "interview": (last, await interviews.interview_results(db, interview_id=last.id)),
        "leaderboard": await rounds.leaderboard(db, chat_id=CHAT),
        "recent round questions": await rounds.recent_question_ids(db, chat_id=CHAT),
        "group": await groups.get_group(db, chat_id=CHAT),
        "keyboard owner": await keyboards.owner_of(db, chat_id=CHAT, message_id=401),
        "timer": await coordination.get_timer(db, name=f"round:{CHAT}"),
        "flags": await flags.open_flags(db),
        "waiting flag": await flags.waiting_flag(db, user_id=2, now=100),
        "plan": await jobmatch.get_plan(db, user_id=2),
        "match": await jobmatch.get_match(db, match_id=ids["ada's match"], user_id=1),
        "shared": (await sharing.get_shared(db, inline_message_id=SHARED),
                   await sharing.tally(db, inline_message_id=SHARED)),
    }


async def filled_sqlite(tmp_path: Path) -> tuple[Path, dict[str, int], dict[str, object]]:
    path = tmp_path / "coach.sqlite3"
    db = await Database.open(path)
    try:
        ids = await fill(db)
        seen = await observe(db, ids)
    finally:
        await db.close()
    return path, ids, seen


async def rows_in(url: str) -> dict[str, int]:
    """Rows per table of the PostgreSQL database, schema_version aside."""
    conn = await asyncpg.connect(url)
    try:
        names = [r["tablename"] for r in await conn.fetch(
            "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"
            " AND tablename <> 'schema_version'")]
        return {name: await conn.fetchval(f'SELECT COUNT(*) FROM "{name}"') for name in names}
    finally:
        await conn.close()


def with_password(url: str) -> str:
    """The same database with a password in the URL (the test server trusts 127.0.0.1, so the
    password is accepted and ignored)."""
    parts = urlsplit(url)
    user, _, host = parts.netloc.rpartition("@")
    return urlunsplit(parts._replace(netloc=f"{user}:{PASSWORD}@{host}"))


async def test_everything_is_copied_and_reads_the_same(tmp_path, postgres_url):
    path, ids, before = await filled_sqlite(tmp_path)
    lines: list[str] = []
    report = await migrate(path, postgres_url, batch_rows=2, say=lines.append)

    # Every table once, referenced tables first, and one line each plus a summary.
    order = [t.table for t in report.tables]
    for first, then in (("users", "answers"), ("answers", "review_logs"),
                        ("rounds", "round_questions"), ("round_questions", "round_answers"),
                        ("interviews", "interview_answers"), ("question_flags", "flag_waiting"),
                        ("shared_questions", "shared_answers")):
        assert order.index(first) < order.index(then), (first, then)
    with sqlite3.connect(path) as conn:
        expected = {name: conn.execute(f'SELECT COUNT(*) FROM "{name}"').fetchone()[0]
                    for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE"
                                                " type = 'table' AND name NOT LIKE 'sqlite_%'")}
    assert {t.table: t.rows for t in report.tables} == expected == await rows_in(postgres_url)
    assert expected["answers"] == 11 and expected["round_answers"] == 2
    assert len(lines) == len(expected) + 1 and lines[-1].startswith(f"copied {report.rows:,} rows")

    db = await Database.open(postgres_url)
    try:
        after = await observe(db, ids)
        assert after == before
        ada, bob, cem = await asyncio.gather(*(users.get_user(db, user_id=uid)
                                               for uid in (1, 2, 3)))
        assert ada is not None and bob is not None and cem is None
        assert (ada.answered, ada.correct, ada.streak_best) == (8, 6, 3)
        assert (bob.answered, bob.group_answered) == (3, 1)
        board = await rounds.leaderboard(db, chat_id=CHAT)
        assert [(s.name, s.points) for s in board] == [("Ada", 140), ("Bob", 0)]
        reminder = await reminders.get_reminder(db, user_id=1)
        assert reminder is not None and reminder.schedule.minute == 570
        assert await jobmatch.get_match(db, match_id=ids["ada's match"], user_id=1)
        assert sorted(await mistakes.mistake_ids(db, user_id=2)) == ["q5", "q8"]

        # New rows get ids past every id SQLite gave, also the deleted ones.
        new = await recording.record(db, answer(2, "q11", message_id=600))
        assert new.inserted and new.answer_id > ids["answers"]
        rnd = await rounds.create_round(db, chat_id=CHAT, started_by=2, language="en",
                                        seconds=30, question_ids=["q1"], now=3000)
        assert rnd is not None and rnd.id > ids["rounds"]
        interview = await interviews.start_interview(db, user_id=2, field="backend",
                                                     level="mid", question_ids=["q1"],
                                                     chat_id=2, now=T0)
        assert interview.id > ids["interviews"]
        flag = await flags.add_flag(db, question_id="q9", user_id=1, reason="unclear", now=12,
                                    comment_until=None)
        assert flag is not None and flag > ids["flags"]
        match = await jobmatch.save_match(db, user_id=1, level="junior",
                                          ranking=[jobmatch.RankedField("qa", 1.0, ())], now=13)
        assert match > ids["matches"]
    finally:
        await db.close()

    # A second run finds rows in the target and writes nothing.
    counts = await rows_in(postgres_url)
    with pytest.raises(Refused, match="not empty"):
        await migrate(path, postgres_url, say=lines.append)
    assert await rows_in(postgres_url) == counts


async def test_an_older_sqlite_schema_is_refused(tmp_path, postgres_url):
    path = tmp_path / "old.sqlite3"
    version, _, sql = migrations()[0]
    with sqlite3.connect(path) as conn:
        conn.executescript(sql)
        conn.execute(f"PRAGMA user_version = {version}")
    with pytest.raises(Refused, match="start the bot once on SQLite"):
        await migrate(path, postgres_url)
    assert await rows_in(postgres_url) == {}  # not even the schema was created
    with sqlite3.connect(path) as conn:  # and the file is as it was
        assert conn.execute("PRAGMA user_version").fetchone()[0] == version


async def test_a_missing_file_and_differing_tables_are_refused(tmp_path, postgres_url):
    with pytest.raises(Refused, match="does not exist"):
        await migrate(tmp_path / "nowhere.sqlite3", postgres_url)
    path, _, _ = await filled_sqlite(tmp_path)
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE notes (x TEXT)")
        conn.execute("ALTER TABLE users ADD COLUMN nickname TEXT")
    with pytest.raises(Refused, match=r"tables only in SQLite: notes.*users\.nickname"):
        await migrate(path, postgres_url)
    assert not any((await rows_in(postgres_url)).values())
    # SQLite's loose typing: text in an INTEGER column is named before anything is copied.
    with sqlite3.connect(path) as conn:
        conn.execute("DROP TABLE notes")
        conn.execute("ALTER TABLE users DROP COLUMN nickname")
        conn.execute("UPDATE users SET answered = 'lots' WHERE user_id = 2")
    with pytest.raises(Refused, match="users.answered holds 'lots'"):
        await migrate(path, postgres_url)
    assert not any((await rows_in(postgres_url)).values())


async def test_a_failed_copy_leaves_the_target_empty(tmp_path, postgres_url):
    path, _, _ = await filled_sqlite(tmp_path)
    # A row whose user is gone (written with foreign keys off): PostgreSQL refuses it, late in
    # the copy, after many tables went in.
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA foreign_keys = OFF")
        conn.execute("INSERT INTO user_ratings (user_id, field, rating) VALUES (777, 'qa', 1)")
    with pytest.raises(Exception, match="copying user_ratings failed"):
        await migrate(path, postgres_url)
    assert not any((await rows_in(postgres_url)).values())
    # With the stray row gone, the same target takes the copy.
    with sqlite3.connect(path) as conn:
        conn.execute("DELETE FROM user_ratings WHERE user_id = 777")
    report = await migrate(path, postgres_url, say=lambda _: None)
    assert report.rows == sum((await rows_in(postgres_url)).values())


async def test_a_target_in_use_is_refused(tmp_path, postgres_url, monkeypatch):
    path, _, _ = await filled_sqlite(tmp_path)
    db = await Database.open(postgres_url)  # the schema of an empty database: allowed
    await db.close()
    monkeypatch.setattr("storage.migrate.LOCK_TIMEOUT", "200ms")
    other = await asyncpg.connect(postgres_url)
    try:
        async with other.transaction():
            await other.execute("LOCK TABLE users IN ACCESS SHARE MODE")
            with pytest.raises(Refused, match="in use"):
                await migrate(path, postgres_url)
    finally:
        await other.close()
    assert not any((await rows_in(postgres_url)).values())


def test_copy_order_puts_referenced_tables_first_and_refuses_a_cycle():
    assert copy_order(["c", "b", "a"], [("c", "b"), ("b", "a"), ("a", "a")]) == ["a", "b", "c"]
    with pytest.raises(Refused, match="cycle"):
        copy_order(["a", "b"], [("a", "b"), ("b", "a")])


def test_redact_hides_the_password_in_every_form():
    url = "postgresql://bot:p%40ss@db:5432/coach?password=p@ss&sslmode=require"
    shown = redact(url)
    assert "p%40ss" not in shown and "p@ss" not in shown and "bot:***@db:5432" in shown


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "DATABASE_PATH")}
    return subprocess.run([sys.executable, "-m", "storage.migrate", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


async def test_the_command_copies_then_refuses_without_printing_the_password(tmp_path,
                                                                            postgres_url):
    path, _, _ = await filled_sqlite(tmp_path)
    url = with_password(postgres_url)
    done = run_cli(str(path), url)
    assert done.returncode == 0, done.stderr
    assert "users" in done.stdout and "copied" in done.stdout.splitlines()[-1]
    again = run_cli(str(path), url)
    assert again.returncode == 2
    assert again.stderr.count("\n") == 1 and "not empty" in again.stderr
    assert "***" in again.stderr
    for run in (done, again):
        assert PASSWORD not in run.stdout + run.stderr
