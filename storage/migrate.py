"""`python -m storage.migrate [SQLITE_PATH] [POSTGRES_URL]`: move the bot from SQLite to
PostgreSQL without losing history, by copying every row into an empty PostgreSQL database.

Left out, SQLITE_PATH is $DATABASE_PATH (default data/coach.sqlite3) and POSTGRES_URL is
$DATABASE_URL. Stop the bot first: rows it writes after the copy has read the file are not
copied. The SQLite file is only read (opened read-only); the PostgreSQL database must hold no
rows (its schema is created here when missing). Everything is copied in one PostgreSQL
transaction, so a failure leaves the target as empty as it was; the row counts of every table
are compared before it commits.

Exit status: 0 copied; 1 the copy failed (rolled back: the target holds no row); 2 refused,
one line saying what to fix (no row was written; at most the schema was created in the empty
database). The URL's password is never printed.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sqlite3
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

import asyncpg

from storage.db import (
    Database,
    PostgresDatabase,
    SchemaTooNew,
    is_postgres_url,
    latest_version,
)

BATCH_ROWS = 5_000
DEFAULT_SQLITE = "data/coach.sqlite3"
# PostgreSQL's own bookkeeping of the schema; SQLite keeps the version in PRAGMA user_version.
PG_ONLY = frozenset({"schema_version"})
# How long to wait for a table another session holds (a bot already running on the target).
LOCK_TIMEOUT = "10s"
INTEGER_TYPES = frozenset({"smallint", "integer", "bigint"})
FLOAT_TYPES = frozenset({"real", "double precision"})


class Refused(Exception):
    """Nothing was written: the operator has something to fix first (exit status 2)."""


class CopyFailed(Exception):
    """The copy started and was rolled back (exit status 1)."""


@dataclass(frozen=True)
class Copied:
    table: str
    rows: int


@dataclass(frozen=True)
class Report:
    tables: list[Copied]
    seconds: float

    @property
    def rows(self) -> int:
        return sum(t.rows for t in self.tables)


# -- the URL's secret ----------------------------------------------------------------------------

def _password(url: str) -> str:
    netloc = urlsplit(url).netloc
    userinfo = netloc.rpartition("@")[0]
    return userinfo.partition(":")[2]


def secrets_in(url: str) -> list[str]:
    """The password of a URL as written and decoded, in the user part or as ?password=."""
    found = [_password(url)]
    found += [value for key, value in parse_qsl(urlsplit(url).query, keep_blank_values=True)
              if key == "password"]
    found += [unquote(secret) for secret in found]
    return sorted({s for s in found if s}, key=len, reverse=True)


def redact(url: str) -> str:
    """The URL with its password shown as ***, for messages."""
    return scrub(url, url)


def scrub(text: str, url: str) -> str:
    """`text` with every form of the URL's password replaced by ***."""
    for secret in secrets_in(url):
        text = text.replace(secret, "***")
    return text


# -- the order of the tables ---------------------------------------------------------------------

def copy_order(tables: Iterable[str], references: Iterable[tuple[str, str]]) -> list[str]:
    """The tables with every referenced table before the tables referring to it, by name among
    equals. `references` are (table, referenced table) pairs, from both schemas' foreign keys."""
    names = sorted(set(tables))
    needs: dict[str, set[str]] = {name: set() for name in names}
    for table, target in references:
        if table in needs and target in needs and table != target:
            needs[table].add(target)
    order: list[str] = []
    while needs:
        ready = sorted(name for name, targets in needs.items() if not targets)
        if not ready:
            raise Refused("the foreign keys of these tables form a cycle, so no copy order"
                          f" exists: {', '.join(sorted(needs))}")
        for name in ready:
            order.append(name)
            del needs[name]
        for targets in needs.values():
            targets.difference_update(ready)
    return order


# -- SQLite, read only ---------------------------------------------------------------------------

def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def open_sqlite(path: Path) -> sqlite3.Connection:
    """The file opened read-only, inside one read transaction: every table is read from the
    same snapshot even if something still writes to the file."""
    if not path.is_file():
        raise Refused(f"the SQLite database {path} does not exist"
                      " (give its path, or set DATABASE_PATH)")
    uri = path.resolve().as_uri() + "?mode=ro"
    try:
        conn = sqlite3.connect(uri, uri=True, isolation_level=None)
    except sqlite3.Error as exc:
        raise Refused(f"cannot open {path} read-only: {exc}") from exc
    try:
        conn.execute("BEGIN")
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
    except sqlite3.Error as exc:
        conn.close()
        raise Refused(f"{path} is not a readable SQLite database: {exc}") from exc
    latest = latest_version()
    if version != latest:
        conn.close()
        if version > latest:
            raise Refused(f"{path} has schema version {version}, newer than this bot knows"
                          f" ({latest}): run the migration with the bot's newer version")
        raise Refused(f"{path} has schema version {version}, not this bot's {latest}: start the"
                      " bot once on SQLite (DATABASE_PATH, no DATABASE_URL) so it migrates the"
                      " file, stop it, then run this again")
    return conn


def sqlite_tables(conn: sqlite3.Connection) -> dict[str, list[str]]:
    """Every table of the bot (not SQLite's own) with its columns."""
    names = [row[0] for row in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        " ORDER BY name")]
    return {name: [row[1] for row in conn.execute(f"PRAGMA table_info({_quote(name)})")]
            for name in names}


def sqlite_references(conn: sqlite3.Connection, tables: Iterable[str]) -> list[tuple[str, str]]:
    return [(table, row[2]) for table in tables
            for row in conn.execute(f"PRAGMA foreign_key_list({_quote(table)})")]


def sqlite_sequences(conn: sqlite3.Connection) -> dict[str, int]:
    """The highest id each AUTOINCREMENT table ever handed out (deleted rows included)."""
    exists = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sqlite_sequence'").fetchone()
    if not exists:
        return {}
    return {name: int(seq) for name, seq in conn.execute("SELECT name, seq FROM sqlite_sequence")}


# -- PostgreSQL ----------------------------------------------------------------------------------

async def pg_tables(conn: Any) -> dict[str, dict[str, str]]:
    """Every table in the current schema with its columns and their types."""
    rows = await conn.fetch(
        "SELECT c.table_name, c.column_name, c.data_type FROM information_schema.columns c"
        " JOIN information_schema.tables t ON t.table_schema = c.table_schema"
        "  AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'"
        " WHERE c.table_schema = current_schema() ORDER BY c.table_name, c.ordinal_position")
    tables: dict[str, dict[str, str]] = {}
    for row in rows:
        tables.setdefault(row["table_name"], {})[row["column_name"]] = row["data_type"]
    return tables


async def pg_references(conn: Any) -> list[tuple[str, str]]:
    rows = await conn.fetch(
        "SELECT t.relname AS source, f.relname AS target FROM pg_constraint c"
        " JOIN pg_class t ON t.oid = c.conrelid JOIN pg_class f ON f.oid = c.confrelid"
        " JOIN pg_namespace n ON n.oid = t.relnamespace AND n.nspname = current_schema()"
        " WHERE c.contype = 'f'")
    return [(row["source"], row["target"]) for row in rows]


async def pg_identities(conn: Any) -> list[tuple[str, str]]:
    rows = await conn.fetch(
        "SELECT table_name, column_name FROM information_schema.columns"
        " WHERE table_schema = current_schema() AND is_identity = 'YES'"
        " ORDER BY table_name")
    return [(row["table_name"], row["column_name"]) for row in rows]


async def tables_with_rows(conn: Any) -> list[str]:
    """The tables (but schema_version) that hold any row."""
    names = [name for name in await pg_tables(conn) if name not in PG_ONLY]
    if not names:
        return []
    probe = " UNION ALL ".join(
        f"SELECT {i} AS n WHERE EXISTS (SELECT 1 FROM {_quote(name)})"
        for i, name in enumerate(names))
    return [names[row["n"]] for row in await conn.fetch(probe)]


def _refuse_if_filled(filled: list[str], shown_url: str) -> None:
    if filled:
        raise Refused(f"the PostgreSQL database {shown_url} is not empty (rows in"
                      f" {', '.join(sorted(filled))}): migrate only into a new, empty database")


def _compare(sqlite: dict[str, list[str]], pg: dict[str, dict[str, str]]) -> None:
    """The same tables and columns on both sides, or a refusal naming the differences."""
    only_sqlite = sorted(set(sqlite) - set(pg))
    only_pg = sorted(set(pg) - set(sqlite) - PG_ONLY)
    problems = []
    if only_sqlite:
        problems.append(f"tables only in SQLite: {', '.join(only_sqlite)}")
    if only_pg:
        problems.append(f"tables only in PostgreSQL: {', '.join(only_pg)}")
    for table in sorted(set(sqlite) & set(pg)):
        missing = [c for c in sqlite[table] if c not in pg[table]]
        extra = [c for c in pg[table] if c not in sqlite[table]]
        if missing:
            problems.append("columns only in SQLite: "
                            + ", ".join(f"{table}.{c}" for c in missing))
        if extra:
            problems.append("columns only in PostgreSQL: "
                            + ", ".join(f"{table}.{c}" for c in extra))
    if problems:
        raise Refused("the two schemas differ: " + "; ".join(problems))


def check_types(sqlite: sqlite3.Connection, source: dict[str, list[str]],
                target: dict[str, dict[str, str]]) -> None:
    """Refuse a value PostgreSQL's column type cannot take: SQLite's typing is loose, so an
    INTEGER column can hold text or 1.5 (the bot never writes such a value, a hand edit might).
    One scan per table in SQLite, so the rows themselves go in untouched."""
    for table in sorted(source):
        expected = {c: "integer" if target[table][c] in INTEGER_TYPES else "real"
                    for c in source[table] if target[table][c] in INTEGER_TYPES | FLOAT_TYPES}
        if not expected:
            continue
        kinds = {c: f"typeof({_quote(c)}) NOT IN ('{kind}', 'null')"
                 for c, kind in expected.items()}
        found = sqlite.execute(f"SELECT {', '.join(f'MAX({k})' for k in kinds.values())}"
                               f" FROM {_quote(table)}").fetchone()
        for column, loose in zip(kinds, found, strict=True):
            if loose:
                value = sqlite.execute(f"SELECT {_quote(column)} FROM {_quote(table)}"
                                       f" WHERE {kinds[column]} LIMIT 1").fetchone()[0]
                raise Refused(f"{table}.{column} holds {value!r}, which PostgreSQL's"
                              f" {target[table][column]} column cannot take: correct that row"
                              " in the SQLite file, then run this again")


async def _copy_table(sqlite: sqlite3.Connection, conn: Any, table: str, columns: list[str],
                      batch_rows: int) -> int:
    cursor = sqlite.execute(
        f"SELECT {', '.join(_quote(c) for c in columns)} FROM {_quote(table)}")
    copied = 0
    try:
        while batch := cursor.fetchmany(batch_rows):
            await conn.copy_records_to_table(table, records=batch, columns=columns)
            copied += len(batch)
    finally:
        cursor.close()
    return copied


async def _set_identities(sqlite: sqlite3.Connection, conn: Any) -> None:
    """Move each identity past the copied ids: the highest id, or for an AUTOINCREMENT table
    the highest ever handed out (sqlite_sequence), so no id is given twice."""
    sequences = sqlite_sequences(sqlite)
    for table, column in await pg_identities(conn):
        highest = await conn.fetchval(f"SELECT MAX({_quote(column)}) FROM {_quote(table)}")
        last = max(int(highest or 0), sequences.get(table, 0))
        if last > 0:
            await conn.execute("SELECT setval(pg_get_serial_sequence($1, $2), $3)",
                               _quote(table), column, last)


async def migrate(sqlite_path: Path, url: str, *, batch_rows: int = BATCH_ROWS,
                  say: Callable[[str], None] = print) -> Report:
    """Copy every row of the SQLite file into the empty PostgreSQL database at `url`."""
    if asyncpg is None:  # pragma: no cover - asyncpg is a dependency
        raise Refused("PostgreSQL needs asyncpg: pip install asyncpg")
    if not is_postgres_url(url):
        raise Refused("the target must be a postgresql:// URL (give it, or set DATABASE_URL)")
    shown_url = redact(url)
    started = time.perf_counter()
    sqlite = open_sqlite(sqlite_path)
    try:
        source = sqlite_tables(sqlite)
        # Look before creating the schema: a database with rows is left exactly as it was.
        probe = await asyncpg.connect(url, timeout=30)
        try:
            _refuse_if_filled(await tables_with_rows(probe), shown_url)
        finally:
            await probe.close()
        try:
            db = await Database.open(url)
        except SchemaTooNew as exc:
            raise Refused(f"the PostgreSQL database {shown_url} has a schema newer than this"
                          f" bot knows: {exc}") from exc
        try:
            assert isinstance(db, PostgresDatabase)
            async with db.pool.acquire() as conn:
                target = await pg_tables(conn)
                _compare(source, target)
                check_types(sqlite, source, target)
                order = copy_order(source, sqlite_references(sqlite, source)
                                   + await pg_references(conn))
                copied = await _copy_all(sqlite, conn, order, source, target, batch_rows,
                                         shown_url)
        finally:
            await db.close()
    finally:
        sqlite.close()
    report = Report(copied, time.perf_counter() - started)
    width = max((len(t.table) for t in copied), default=0)
    for t in copied:
        say(f"{t.table:<{width}}  {t.rows:>10,} rows")
    say(f"copied {report.rows:,} rows in {len(copied)} tables from {sqlite_path} to"
        f" {shown_url} in {report.seconds:.2f} s")
    return report


async def _copy_all(sqlite: sqlite3.Connection, conn: Any, order: Sequence[str],
                    source: dict[str, list[str]], target: dict[str, dict[str, str]],
                    batch_rows: int, shown_url: str) -> list[Copied]:
    """Every table in one transaction, then the identities, then the counts checked; any
    failure rolls everything back."""
    copied: list[Copied] = []
    async with conn.transaction():
        await conn.execute(f"SET LOCAL lock_timeout = '{LOCK_TIMEOUT}'")
        try:
            await conn.execute(f"LOCK TABLE {', '.join(_quote(t) for t in order)}"
                               " IN ACCESS EXCLUSIVE MODE")
        except asyncpg.LockNotAvailableError as exc:
            raise Refused(f"the PostgreSQL database {shown_url} is in use (is the bot running"
                          " on it?): stop it and run this again") from exc
        # Checked again under the lock: nothing may have written since the first look.
        _refuse_if_filled(await tables_with_rows(conn), shown_url)
        for table in order:
            columns = source[table]  # by name: the PostgreSQL order is not relied on
            try:
                rows = await _copy_table(sqlite, conn, table, columns, batch_rows)
            except Exception as exc:  # a value PostgreSQL refused, a broken foreign key...
                raise CopyFailed(f"copying {table} failed: {exc}") from exc
            copied.append(Copied(table, rows))
        await _set_identities(sqlite, conn)
        wrong = []
        for t in copied:
            in_sqlite = sqlite.execute(f"SELECT COUNT(*) FROM {_quote(t.table)}").fetchone()[0]
            in_pg = await conn.fetchval(f"SELECT COUNT(*) FROM {_quote(t.table)}")
            if not in_sqlite == in_pg == t.rows:
                wrong.append(f"{t.table} (SQLite {in_sqlite}, PostgreSQL {in_pg})")
        if wrong:
            raise CopyFailed(f"row counts differ after the copy: {', '.join(wrong)}")
    return copied


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m storage.migrate", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sqlite_path", nargs="?", help="default: $DATABASE_PATH or "
                        + DEFAULT_SQLITE)
    parser.add_argument("postgres_url", nargs="?", help="default: $DATABASE_URL")
    parser.add_argument("--batch", type=int, default=BATCH_ROWS, help="rows per COPY")
    args = parser.parse_args(argv)
    path, url = args.sqlite_path, args.postgres_url
    if url is None and path is not None and is_postgres_url(path):
        path, url = None, path  # only the URL given
    path = Path(path or os.environ.get("DATABASE_PATH") or DEFAULT_SQLITE)
    url = url or os.environ.get("DATABASE_URL") or ""
    try:
        asyncio.run(migrate(path, url, batch_rows=max(args.batch, 1)))
    except Refused as exc:
        print(f"migrate: refused: {' '.join(scrub(str(exc), url).split())}", file=sys.stderr)
        return 2
    except Exception as exc:  # one line, and never the password a message might quote
        reason = " ".join(scrub(str(exc) or type(exc).__name__, url).split())
        print(f"migrate: failed, nothing was copied: {reason}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
