"""PostgreSQL's side of storage/db.py: versions refused when newer than the code, instances
that start together migrate once, and the placeholders and row counts storage relies on."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from storage.db import Database, SchemaTooNew, latest_version, to_postgres

pytestmark = pytest.mark.postgres


def test_placeholders_outside_string_literals_become_numbered():
    text, returns = to_postgres("SELECT '?' AS q, a FROM t WHERE b = ? AND c = 'it''s ?' AND d = ?")
    assert text == "SELECT '?' AS q, a FROM t WHERE b = $1 AND c = 'it''s ?' AND d = $2"
    assert returns
    assert to_postgres("UPDATE t SET a = ? WHERE b = ?") == (
        "UPDATE t SET a = $1 WHERE b = $2", False)
    assert to_postgres("INSERT INTO t (a) VALUES (?) RETURNING id")[1]


async def test_instances_starting_together_migrate_once(postgres_url):
    first, second, third = await asyncio.gather(
        *(Database.open(postgres_url) for _ in range(3)))
    try:
        rows = await first.fetchall("SELECT version FROM schema_version ORDER BY version")
        assert [r["version"] for r in rows] == [12, latest_version()]
        assert await second.version() == await third.version() == latest_version()
    finally:
        for db in (first, second, third):
            await db.close()


async def test_a_database_from_a_newer_bot_is_refused(postgres_url):
    db = await Database.open(postgres_url)
    await db.execute("INSERT INTO schema_version (version) VALUES (?)", (latest_version() + 1,))
    await db.close()
    with pytest.raises(SchemaTooNew, match="newer than this bot"):
        await Database.open(postgres_url)


async def test_rowcounts_returning_and_rollback(postgres_url):
    db = await Database.open(postgres_url)
    try:
        await db.execute("INSERT INTO users (user_id, created_at) VALUES (?, ?)", (7, 1))
        assert await db.execute("UPDATE users SET answered = answered + 1 WHERE user_id = ?",
                                (7,)) == 1
        assert await db.execute("UPDATE users SET answered = 0 WHERE user_id = ?", (8,)) == 0
        with pytest.raises(RuntimeError):
            async with db.transaction() as conn:
                await conn.execute("DELETE FROM users WHERE user_id = ?", (7,))
                raise RuntimeError("undo")
        assert (await db.fetchone("SELECT answered FROM users WHERE user_id = ?", (7,)))[0] == 1
        with pytest.raises(asyncpg.UniqueViolationError):
            await db.execute("INSERT INTO users (user_id, created_at) VALUES (?, ?)", (7, 2))
    finally:
        await db.close()


async def test_check_reads_postgresql_without_showing_the_password(postgres_url, capsys,
                                                                    tmp_path):
    from bot import cli
    from tests.conftest import make_settings

    with_password = postgres_url.replace("postgres@", "postgres:sekrit@")
    settings = make_settings(tmp_path, database_url=with_password)
    assert await asyncio.to_thread(cli.check, settings) == 0
    out = capsys.readouterr().out
    assert f"schema v0, will migrate to v{latest_version()}" in out
    unreachable = make_settings(tmp_path, database_url=with_password.replace(
        postgres_url.split(":")[2].split("/")[0], "1"))
    assert await asyncio.to_thread(cli.check, unreachable) == 1
    out = capsys.readouterr().out
    assert "cannot read PostgreSQL" in out and "sekrit" not in out
