"""The throwaway PostgreSQL server: each test gets a working, empty database of its own."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.postgres import PostgresServer

asyncpg = pytest.importorskip("asyncpg")

pytestmark = pytest.mark.postgres


async def test_a_database_stores_and_returns_a_row(postgres_url: str) -> None:
    connection = await asyncpg.connect(postgres_url)
    try:
        await connection.execute("CREATE TABLE answers (user_id BIGINT, correct BOOLEAN)")
        await connection.execute("INSERT INTO answers VALUES ($1, $2)", 42, True)
        row = await connection.fetchrow("SELECT user_id, correct FROM answers")
    finally:
        await connection.close()
    assert tuple(row) == (42, True)


@pytest.fixture
async def second_postgres_url(postgres_server: PostgresServer) -> AsyncIterator[str]:
    """A second database, made the way `postgres_url` makes one (a fixture runs once a test)."""
    url = await postgres_server.create_database()
    yield url
    await postgres_server.drop_database(url)


async def test_each_database_is_its_own(postgres_url: str, second_postgres_url: str) -> None:
    assert postgres_url != second_postgres_url
    first = await asyncpg.connect(postgres_url)
    second = await asyncpg.connect(second_postgres_url)
    try:
        await first.execute("CREATE TABLE only_here (id INT)")
        assert await first.fetchval("SELECT to_regclass('only_here') IS NOT NULL")
        assert not await second.fetchval("SELECT to_regclass('only_here') IS NOT NULL")
    finally:
        await first.close()
        await second.close()
