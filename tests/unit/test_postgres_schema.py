"""The PostgreSQL migrations (storage/migrations/postgres) build the schema the SQLite migrations
build: the same tables, columns in the same order with the same defaults and nullability, keys,
foreign keys, checks and indexes, with the types chosen for PostgreSQL (BIGINT for ids, times
and milliseconds, INTEGER for counters and 0/1 flags, DOUBLE PRECISION for REAL). A column or
index added to one dialect and not the other fails here."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from tests.postgres import PostgresServer

asyncpg = pytest.importorskip("asyncpg")

pytestmark = pytest.mark.postgres

SQLITE_MIGRATIONS = Path(__file__).resolve().parents[2] / "storage" / "migrations"
PG_MIGRATIONS = SQLITE_MIGRATIONS / "postgres"
MIGRATION_NAME = re.compile(r"^(\d{4})_\w+\.sql$")

# SQLite INTEGER columns that hold counters, small numbers or 0/1 flags: INTEGER in PostgreSQL.
# Every other INTEGER column (Telegram ids, ids, unix-second times, milliseconds) is BIGINT.
SMALL_NUMBERS = frozenset({
    "answered", "correct", "group_answered", "streak_current", "streak_best", "attempts",
    "last_is_correct", "is_correct", "minute", "weekdays", "always", "state", "step", "rating",
    "suggested", "position", "seconds", "points", "answers", "shown_answered", "shown_right",
})
PG_TYPES = {"TEXT": "text", "REAL": "double precision"}
# pg_constraint.confdeltype, named as SQLite's PRAGMA foreign_key_list names the action.
ON_DELETE = {"a": "NO ACTION", "r": "RESTRICT", "c": "CASCADE", "n": "SET NULL",
             "d": "SET DEFAULT"}

Schema = dict[str, dict[str, Any]]


def migration_files(folder: Path) -> list[tuple[int, Path]]:
    found = [(int(match.group(1)), path) for path in folder.glob("*.sql")
             if (match := MIGRATION_NAME.match(path.name))]
    return sorted(found)


def pg_type(column: str, sqlite_type: str) -> str:
    """The PostgreSQL type a SQLite column's declared type maps to."""
    if sqlite_type == "INTEGER":
        return "integer" if column in SMALL_NUMBERS else "bigint"
    return PG_TYPES[sqlite_type]


def check_count(create_sql: str) -> int:
    return len(re.findall(r"\bCHECK\s*\(", create_sql, re.IGNORECASE))


def predicate(text: str | None) -> str | None:
    """A partial index's WHERE clause in a form both dialects print alike: no casts, no
    parentheses, single spaces."""
    if text is None:
        return None
    text = re.sub(r"::[a-z ]+", "", text).replace("(", "").replace(")", "")
    return " ".join(text.split())


def sqlite_schema() -> Schema:
    """Every table of a fresh SQLite database the SQLite migrations built, described."""
    conn = sqlite3.connect(":memory:")
    try:
        for _, path in migration_files(SQLITE_MIGRATIONS):
            conn.executescript(path.read_text(encoding="utf-8"))
        tables = conn.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'table'"
            " AND name NOT LIKE 'sqlite_%' ORDER BY name").fetchall()
        schema: Schema = {}
        for table, create_sql in tables:
            info = conn.execute(f"PRAGMA table_info({table})").fetchall()
            pk = [name for _, name, _, _, _, position in sorted(info, key=lambda c: c[5])
                  if position]
            rowid_alias = (len(pk) == 1 and "WITHOUT ROWID" not in create_sql.upper()
                           and next(c[2] for c in info if c[1] == pk[0]) == "INTEGER")
            columns = [
                (name, pg_type(name, declared), bool(notnull or position), default,
                 rowid_alias and name == pk[0] == "id")
                for _, name, declared, notnull, default, position in info
            ]
            foreign_keys: dict[int, list[Any]] = {}
            for key, _, target, source, to, _, on_delete, _ in conn.execute(
                    f"PRAGMA foreign_key_list({table})"):
                entry = foreign_keys.setdefault(key, [[], target, [], on_delete])
                entry[0].append(source)
                entry[2].append(to)
            uniques, indexes = set(), {}
            for _, index, unique, origin, partial in conn.execute(
                    f"PRAGMA index_list({table})"):
                names = tuple(row[2] for row in conn.execute(f"PRAGMA index_info({index})"))
                if origin == "u":
                    uniques.add(names)
                elif origin == "c":
                    assert not index.startswith("sqlite_autoindex")
                    [index_sql] = conn.execute(
                        "SELECT sql FROM sqlite_master WHERE name = ?", (index,)).fetchone()
                    where = re.search(r"\bWHERE\b(.*)$", index_sql, re.IGNORECASE | re.DOTALL)
                    indexes[index] = (names, bool(unique), bool(partial),
                                      predicate(where.group(1) if where else None))
            schema[table] = {
                "columns": columns,
                "primary_key": tuple(pk),
                "foreign_keys": {(tuple(src), target, tuple(to), on_delete)
                                 for src, target, to, on_delete in foreign_keys.values()},
                "unique": uniques,
                "checks": check_count(create_sql),
                "indexes": indexes,
            }
        return schema
    finally:
        conn.close()


async def apply_postgres_migrations(url: str) -> None:
    """Each file in its own transaction, as the bot runs them."""
    conn = await asyncpg.connect(url)
    try:
        for _, path in migration_files(PG_MIGRATIONS):
            async with conn.transaction():
                await conn.execute(path.read_text(encoding="utf-8"))
    finally:
        await conn.close()


async def postgres_schema(url: str) -> Schema:
    """Every table of the PostgreSQL database at `url`, described like `sqlite_schema`."""
    conn = await asyncpg.connect(url)
    try:
        schema: Schema = {}
        rows = await conn.fetch(
            "SELECT table_name, column_name, data_type, is_nullable, column_default,"
            "       is_identity, identity_generation"
            "  FROM information_schema.columns WHERE table_schema = current_schema()"
            " ORDER BY table_name, ordinal_position")
        for row in rows:
            default = row["column_default"]
            if default is not None:
                default = re.sub(r"::[a-z ]+$", "", default)
            if row["is_identity"] == "YES":
                # An identity BY DEFAULT, so a copy from SQLite can insert the old ids.
                assert row["identity_generation"] == "BY DEFAULT", row["column_name"]
            table = schema.setdefault(row["table_name"], {
                "columns": [], "primary_key": (), "foreign_keys": set(), "unique": set(),
                "checks": 0, "indexes": {}})
            table["columns"].append((row["column_name"], row["data_type"],
                                     row["is_nullable"] == "NO", default,
                                     row["is_identity"] == "YES"))
        constraints = await conn.fetch(
            "SELECT t.relname AS table_name, c.contype::text, f.relname AS target,"
            "       c.confdeltype::text,"
            "       ARRAY(SELECT a.attname FROM unnest(c.conkey) WITH ORDINALITY AS k(n, i)"
            "             JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n"
            "             ORDER BY k.i) AS columns,"
            "       ARRAY(SELECT a.attname FROM unnest(c.confkey) WITH ORDINALITY AS k(n, i)"
            "             JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n"
            "             ORDER BY k.i) AS target_columns"
            "  FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid"
            "  JOIN pg_namespace n ON n.oid = t.relnamespace AND n.nspname = current_schema()"
            "  LEFT JOIN pg_class f ON f.oid = c.confrelid")
        for row in constraints:
            table = schema[row["table_name"]]
            columns = tuple(row["columns"])
            if row["contype"] == "p":
                table["primary_key"] = columns
            elif row["contype"] == "u":
                table["unique"].add(columns)
            elif row["contype"] == "f":
                table["foreign_keys"].add((columns, row["target"], tuple(row["target_columns"]),
                                           ON_DELETE[row["confdeltype"]]))
            elif row["contype"] == "c":
                table["checks"] += 1
        # Indexes made by CREATE INDEX: not the ones behind a primary key or unique constraint.
        indexes = await conn.fetch(
            "SELECT i.tablename, i.indexname, x.indisunique,"
            "       pg_get_expr(x.indpred, x.indrelid) AS predicate,"
            "       ARRAY(SELECT a.attname FROM unnest(x.indkey) WITH ORDINALITY AS k(n, i)"
            "             JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.n"
            "             ORDER BY k.i) AS columns"
            "  FROM pg_indexes i JOIN pg_index x ON x.indexrelid = format('%I.%I',"
            "       i.schemaname, i.indexname)::regclass"
            " WHERE i.schemaname = current_schema()"
            "   AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid)")
        for row in indexes:
            schema[row["tablename"]]["indexes"][row["indexname"]] = (
                tuple(row["columns"]), row["indisunique"], row["predicate"] is not None,
                predicate(row["predicate"]))
        return schema
    finally:
        await conn.close()


@pytest.fixture
async def second_postgres_url(postgres_server: PostgresServer) -> AsyncIterator[str]:
    """Another fresh database on the same server (`postgres_url` gives one per test)."""
    url = await postgres_server.create_database()
    yield url
    await postgres_server.drop_database(url)


def test_both_dialects_have_the_same_migration_versions() -> None:
    """The bot records the newest SQLite version as PostgreSQL's version too: a new SQLite
    migration needs its PostgreSQL twin."""
    sqlite_versions = [version for version, _ in migration_files(SQLITE_MIGRATIONS)]
    pg_versions = [version for version, _ in migration_files(PG_MIGRATIONS)]
    assert pg_versions and max(pg_versions) == max(sqlite_versions)


def test_the_baseline_leaves_transactions_and_versions_to_the_code() -> None:
    for _, path in migration_files(PG_MIGRATIONS):
        sql = re.sub(r"--[^\n]*", "", path.read_text(encoding="utf-8"))
        assert not re.search(r"\b(BEGIN|COMMIT|ROLLBACK)\b", sql, re.IGNORECASE), path.name
        assert "schema_version" not in sql.lower(), path.name


async def test_postgres_schema_matches_sqlite(postgres_url: str) -> None:
    expected = sqlite_schema()
    await apply_postgres_migrations(postgres_url)
    actual = await postgres_schema(postgres_url)
    assert sorted(actual) == sorted(expected)
    for table in expected:
        for part in expected[table]:
            assert actual[table][part] == expected[table][part], (table, part)


async def test_the_postgres_schema_applies_cleanly_to_each_new_database(
        postgres_url: str, second_postgres_url: str) -> None:
    """Nothing outside the database (a role, a leftover object) makes a second run fail or
    differ."""
    await apply_postgres_migrations(postgres_url)
    await apply_postgres_migrations(second_postgres_url)
    first = await postgres_schema(postgres_url)
    assert first == await postgres_schema(second_postgres_url)
    assert len(first) == len(sqlite_schema())
