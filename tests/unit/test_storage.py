"""Storage against real SQLite files: answers once, aggregates, migrations, restarts."""

import asyncio
import os
import stat
from datetime import date

import pytest

from services import answers as recording
from storage import answers, users
from storage.db import Database, SchemaTooNew, latest_version

# Run on SQLite and again on PostgreSQL (tests/conftest.py).
pytestmark = pytest.mark.both_databases


def answer(**kw):
    base = dict(user_id=1, question_id="q1", field="backend", topic="t", level="mid", chosen="a",
                is_correct=True, answered_at=1000, chat_id=1, message_id=10)
    base.update(kw)
    return answers.NewAnswer(**base)


async def test_answer_is_stored_once_with_aggregates(db):
    await users.ensure_user(db, user_id=1, first_name="Ada", language="en", now=1)
    first = await recording.record(db, answer(), today=date(2026, 3, 10))
    again = await recording.record(db, answer(chosen="b"), today=date(2026, 3, 10))
    assert first.inserted and not again.inserted
    await recording.record(db, answer(message_id=11, is_correct=False, answered_at=2000),
                                today=date(2026, 3, 11))
    user = await users.get_user(db, user_id=1)
    assert (user.answered, user.correct, user.streak_current, user.streak_best) == (2, 1, 2, 2)
    seen = await answers.seen_questions(db, user_id=1)
    assert seen["q1"].last_is_correct is False and seen["q1"].last_answered_at == 2000
    [total] = await answers.topic_totals(db, user_id=1)
    assert (total.answered, total.correct) == (2, 1)
    rows = await db.fetchall("SELECT COUNT(*) AS n FROM answers")
    assert rows[0]["n"] == 2


async def test_data_survives_reopen_and_file_is_private(tmp_path):
    path = tmp_path / "sub" / "coach.sqlite3"
    db = await Database.open(path)
    await users.ensure_user(db, user_id=5, first_name="Bo", language="tr", now=1)
    await users.update_user(db, user_id=5, field="backend", level="senior")
    await db.close()
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    db = await Database.open(path)
    user = await users.get_user(db, user_id=5)
    assert (user.language, user.field, user.level) == ("tr", "backend", "senior")
    journal = await db.fetchone("PRAGMA journal_mode")
    assert journal[0] == "wal"
    await db.close()


async def test_newer_schema_is_refused(tmp_path):
    path = tmp_path / "c.sqlite3"
    db = await Database.open(path)
    assert await db.version() == latest_version()
    await db.conn.execute(f"PRAGMA user_version = {latest_version() + 1}")
    await db.close()
    with pytest.raises(SchemaTooNew, match="newer than this bot knows"):
        await Database.open(path)


async def test_update_user_rejects_unknown_columns(db):
    with pytest.raises(ValueError):
        await users.update_user(db, user_id=1, answered="5")


async def test_failed_transaction_changes_nothing(db):
    await users.ensure_user(db, user_id=1, first_name="A", language="en", now=1)
    with pytest.raises(RuntimeError):
        async with db.transaction() as conn:
            await conn.execute("UPDATE users SET field = 'x' WHERE user_id = 1")
            raise RuntimeError("boom")
    assert (await users.get_user(db, user_id=1)).field is None


async def test_online_backup_of_a_live_database(tmp_path):
    import sqlite3

    from storage.backup import main as backup_main

    db = await Database.open(tmp_path / "live.sqlite3")
    await users.ensure_user(db, user_id=9, first_name="Ada", language="en", now=1)
    dest = tmp_path / "backups" / "copy.sqlite3"
    assert backup_main([str(dest), "--db", str(tmp_path / "live.sqlite3")]) == 0
    await db.close()
    with sqlite3.connect(dest) as copy:
        assert copy.execute("SELECT first_name FROM users").fetchone() == ("Ada",)
    assert stat.S_IMODE(os.stat(dest).st_mode) == 0o600


def test_backup_refuses_when_the_data_is_in_postgresql(tmp_path, monkeypatch, capsys):
    from storage.backup import main as backup_main

    monkeypatch.setenv("DATABASE_URL", "postgresql://coach:pw@db/coach")
    assert backup_main([str(tmp_path / "copy.sqlite3")]) == 2
    assert "pg_dump" in capsys.readouterr().err and not (tmp_path / "copy.sqlite3").exists()


async def test_an_older_schema_is_migrated_with_its_data(tmp_path):
    import sqlite3

    from storage.db import migrations

    path = tmp_path / "old.sqlite3"
    first = migrations()[0]
    with sqlite3.connect(path) as conn:
        conn.executescript(first[2])
        conn.execute(f"PRAGMA user_version = {first[0]}")
        conn.execute("INSERT INTO users (user_id, first_name, created_at) VALUES (1, 'Ada', 0)")
    db = await Database.open(path)
    assert await db.version() == latest_version()
    assert (await users.get_user(db, user_id=1)).first_name == "Ada"
    await db.close()


async def test_background_checkpoints_copy_the_log_into_the_file(tmp_path):
    path = tmp_path / "c.sqlite3"
    db = await Database.open(path)
    try:
        await db.start_background_checkpoints(every=0.02)
        before = path.stat().st_size
        for i in range(200):
            await users.ensure_user(db, user_id=i + 1, first_name="x" * 60, language="en", now=1)
        await asyncio.sleep(0.2)
        # Only a checkpoint writes pages into the main file; the connection's own would wait
        # for 10,000 pages of log.
        assert path.stat().st_size > before
    finally:
        await db.close()
    db = await Database.open(path)
    assert (await users.get_user(db, user_id=200)).first_name == "x" * 60
    await db.close()


async def test_a_new_first_name_replaces_the_stored_one_and_the_same_writes_nothing(db):
    if db.dialect != "sqlite":
        pytest.skip("counts writes with SQLite's total_changes")
    await users.ensure_user(db, user_id=21, first_name="Ada", language="en", now=1)
    before = db.writer.total_changes
    same = await users.ensure_user(db, user_id=21, first_name="Ada", language="en", now=2)
    assert same.first_name == "Ada" and db.writer.total_changes == before
    renamed = await users.ensure_user(db, user_id=21, first_name="Ada L.", language="tr", now=3)
    assert renamed.first_name == "Ada L." and renamed.language == "en"
    assert (await users.get_user(db, user_id=21)).first_name == "Ada L."
