"""The database: SQLite (the default, one file, one process) or PostgreSQL (DATABASE_URL, for
several instances on one server). One API over both, versioned migrations per dialect,
transactions.

Storage modules write portable SQL with `?` placeholders (PostgreSQL gets them as $1, $2...) and
take a `Conn` in their transaction: `SyncConn` on SQLite, or `PgConn` over asyncpg. Both answer
the calls aiosqlite's connection answers (execute with rowcount, execute_fetchall, executemany).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import sqlite3
import sys
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Protocol

import aiosqlite

log = logging.getLogger(__name__)
MIGRATIONS = Path(__file__).resolve().parent / "migrations"
PG_MIGRATIONS = MIGRATIONS / "postgres"
BUSY_TIMEOUT_MS = 10_000
# With background checkpoints on, the connection that answers users checkpoints by itself only
# when the log grows this large (pages): a safety net if the background falls behind.
SAFETY_CHECKPOINT_PAGES = 10_000
# A row from either driver: sqlite3.Row and asyncpg.Record both read as row["name"] and row[0].
Row = Any


class SchemaTooNew(RuntimeError):
    """The database was written by a newer version of the bot."""


def integrity_errors() -> tuple[type[Exception], ...]:
    """What a broken unique key or foreign key raises, whichever the driver. asyncpg is
    imported only with PostgreSQL (15 MB of a bot whose idle target is 120 MB); until it is,
    no error can come from it."""
    asyncpg = sys.modules.get("asyncpg")
    if asyncpg is None:
        return (sqlite3.IntegrityError,)
    return (sqlite3.IntegrityError, asyncpg.IntegrityConstraintViolationError)


class Conn(Protocol):
    """A connection inside a transaction (SyncConn or PgConn)."""

    def execute(self, sql: str, parameters: Any = ..., /) -> Any: ...
    async def execute_fetchall(self, sql: str, parameters: Any = ..., /) -> Iterable[Row]: ...
    async def executemany(self, sql: str, parameters: Any, /) -> Any: ...


def migrations(folder: Path = MIGRATIONS) -> list[tuple[int, str, str]]:
    """(version, name, sql) for every `NNNN_name.sql` file, in order."""
    found = []
    for path in sorted(folder.glob("*.sql")):
        match = re.match(r"^(\d{4})_(\w+)\.sql$", path.name)
        if match:
            found.append((int(match.group(1)), match.group(2), path.read_text(encoding="utf-8")))
    versions = [v for v, _, _ in found]
    if len(set(versions)) != len(versions):
        raise RuntimeError(f"two migrations share a version number: {versions}")
    return found


def latest_version() -> int:
    return max((v for v, _, _ in migrations()), default=0)


async def fetch_one(conn: Conn, sql: str, params: Iterable[Any] = ()) -> Row | None:
    """One row, read inside a transaction the caller holds, in one call (PostgreSQL: one round
    trip instead of a cursor's execute, fetch and close)."""
    rows = list(await conn.execute_fetchall(sql, tuple(params)))
    return rows[0] if rows else None


async def fetch_row(conn: Conn, sql: str, params: Iterable[Any] = ()) -> Row:
    """A row that must exist (RETURNING, or the user's own row in their answer's transaction)."""
    row = await fetch_one(conn, sql, params)
    if row is None:
        raise LookupError("expected a row, found none")
    return row


def _create_private(path: Path) -> None:
    """A missing SQLite file is created owner-only: it holds users' answers and settings."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))


def is_postgres_url(target: str | Path) -> bool:
    return isinstance(target, str) and target.startswith(("postgresql://", "postgres://"))


class Database(ABC):
    """What storage modules use, whichever the database."""

    dialect: str
    # True when other processes may use the same database at once (PostgreSQL): timers, locks
    # and first-tap checks then go through the database instead of one process's memory.
    shared: bool = False

    @staticmethod
    async def open(target: str | Path) -> Database:
        """A PostgreSQL URL, or the path of a SQLite file (created when missing)."""
        if is_postgres_url(target):
            return await PostgresDatabase.connect(str(target))
        return await SqliteDatabase.connect(Path(target))

    @abstractmethod
    async def close(self) -> None: ...

    async def start_background_checkpoints(self, every: float = 1.0) -> None:  # noqa: B027
        """Only SQLite needs them (see SqliteDatabase)."""

    @abstractmethod
    async def version(self) -> int: ...

    @abstractmethod
    async def migrate(self) -> None: ...

    @abstractmethod
    def transaction(self) -> contextlib.AbstractAsyncContextManager[Conn]: ...

    async def fetchone(self, sql: str, params: Iterable[Any] = ()) -> Row | None:
        rows = await self.fetchall(sql, params)
        return rows[0] if rows else None

    @abstractmethod
    async def fetchall(self, sql: str, params: Iterable[Any] = ()) -> list[Row]: ...

    @abstractmethod
    async def execute(self, sql: str, params: Iterable[Any] = ()) -> int:
        """One statement in its own transaction; returns the number of changed rows."""

    @abstractmethod
    async def tables_with_column(self, column: str) -> list[str]:
        """Every table that has a column of this name (erasing a user, moving a chat)."""

    @abstractmethod
    async def move_rows(self, conn: Conn, table: str, column: str, old: int, new: int) -> int:
        """Set `column` from `old` to `new` in `table`, keeping the row already there when a
        key would collide; returns how many rows moved."""


class _Done:
    """A statement that has run: awaitable and usable with `async with`, like aiosqlite's
    cursor, but there is nothing left to wait for."""

    def __init__(self, cursor: sqlite3.Cursor) -> None:
        self.cursor = cursor
        self.rowcount = cursor.rowcount
        self.lastrowid = cursor.lastrowid

    def __await__(self) -> Any:
        return self
        yield  # a generator that returns at once: awaiting it never suspends

    async def __aenter__(self) -> _Done:
        return self

    async def __aexit__(self, *_: object) -> None:
        self.cursor.close()

    async def fetchall(self) -> list[Row]:
        return self.cursor.fetchall()

    async def fetchone(self) -> Row | None:
        return self.cursor.fetchone()

    async def close(self) -> None:
        self.cursor.close()


class SyncConn:
    """The SQLite connection inside a transaction, called on the event loop's own thread.

    A statement on an indexed table takes microseconds, and in WAL mode with synchronous=NORMAL
    a commit writes the log without waiting for the disk (checkpoints, which do, run in the
    background). A trip to aiosqlite's thread costs more than that in CPU, and an answer's
    transaction used to make about forty of them."""

    def __init__(self, raw: sqlite3.Connection) -> None:
        self.raw = raw

    def execute(self, sql: str, parameters: Iterable[Any] = (), /) -> _Done:
        return _Done(self.raw.execute(sql, tuple(parameters or ())))

    async def execute_fetchall(self, sql: str, parameters: Iterable[Any] = (), /) -> list[Row]:
        return self.raw.execute(sql, tuple(parameters or ())).fetchall()

    async def executemany(self, sql: str, parameters: Iterable[Iterable[Any]], /) -> None:
        self.raw.executemany(sql, [tuple(p) for p in parameters])


class SqliteDatabase(Database):
    """SQLite for one process. Reads and writes run on the event loop's thread on one plain
    connection (`SyncConn` says why); migrations use aiosqlite's. A lock keeps each transaction
    whole among concurrent handlers."""

    dialect = "sqlite"

    def __init__(self, conn: aiosqlite.Connection, path: Path) -> None:
        self.conn = conn
        self.path = path
        self._lock = asyncio.Lock()
        self._checkpoints: asyncio.Task | None = None
        # No busy wait on the loop's thread: a statement that finds the database locked (another
        # process writing) is retried in a worker thread, which waits there (`_locked`).
        self.writer = sqlite3.connect(str(path), isolation_level=None, timeout=0,
                                      check_same_thread=False)
        self.writer.row_factory = sqlite3.Row
        self.writer.execute("PRAGMA synchronous = NORMAL")
        self.writer.execute("PRAGMA foreign_keys = ON")
        self._sync = SyncConn(self.writer)

    @classmethod
    async def connect(cls, path: Path) -> SqliteDatabase:
        if str(path) != ":memory:":
            _create_private(path)
        conn = await aiosqlite.connect(str(path), isolation_level=None)
        conn.row_factory = aiosqlite.Row
        await conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        await conn.execute("PRAGMA journal_mode = WAL")
        await conn.execute("PRAGMA synchronous = NORMAL")
        await conn.execute("PRAGMA foreign_keys = ON")
        db = cls(conn, path)
        try:
            await db.migrate()
        except BaseException:
            await conn.close()
            raise
        return db

    async def close(self) -> None:
        if self._checkpoints is not None:
            self._checkpoints.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._checkpoints
            self._checkpoints = None
        self.writer.close()
        await self.conn.close()

    async def start_background_checkpoints(self, every: float = 1.0) -> None:
        """Copy the write-ahead log into the database file from a worker thread every `every`
        seconds, instead of inside whichever transaction happens to fill the log.

        A checkpoint writes back hundreds of pages and waits for two fsyncs (tens of ms on a
        cloud disk); left to SQLite's automatic checkpoint, about one answer in a hundred would
        pay for it. A PASSIVE checkpoint on its own connection waits for no reader or writer.
        """
        if self._checkpoints is not None or str(self.path) == ":memory:":
            return
        self.writer.execute(f"PRAGMA wal_autocheckpoint = {SAFETY_CHECKPOINT_PAGES}")
        self._checkpoints = asyncio.create_task(self._checkpoint_forever(every),
                                                name="sqlite-checkpoints")

    async def _checkpoint_forever(self, every: float) -> None:
        # Its own connection, used by one thread at a time (this task awaits each checkpoint).
        conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False)
        try:
            while True:
                await asyncio.sleep(every)
                job = asyncio.ensure_future(
                    asyncio.to_thread(conn.execute, "PRAGMA wal_checkpoint(PASSIVE)"))
                try:
                    await asyncio.shield(job)
                except asyncio.CancelledError:
                    await job  # let a running checkpoint finish before its connection closes
                    raise
                except sqlite3.Error as exc:  # retried next time; the safety net still holds
                    log.warning("background checkpoint failed: %s", exc)
        finally:
            conn.close()

    async def version(self) -> int:
        async with self.conn.execute("PRAGMA user_version") as cur:
            row = await cur.fetchone()
        return int(row[0]) if row else 0

    async def migrate(self) -> None:
        current = await self.version()
        latest = latest_version()
        if current > latest:
            raise SchemaTooNew(
                f"the database {self.path} has schema version {current}, newer than this bot "
                f"knows ({latest}); upgrade the bot or use another DATABASE_PATH")
        for version, name, sql in migrations():
            if version <= current:
                continue
            log.info("migrating database to version %d (%s)", version, name)
            # executescript commits first; wrap the whole file so a failure leaves no half schema.
            await self.conn.executescript(
                f"BEGIN IMMEDIATE;\n{sql}\nPRAGMA user_version = {version};\nCOMMIT;")

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Conn]:
        """BEGIN IMMEDIATE ... COMMIT, rolled back on any error."""
        async with self._lock:
            await self._run("BEGIN IMMEDIATE", ())
            try:
                yield self._sync
            except BaseException:
                self.writer.execute("ROLLBACK")
                raise
            else:
                self.writer.execute("COMMIT")

    async def fetchall(self, sql: str, params: Iterable[Any] = ()) -> list[Row]:
        async with self._lock:
            return (await self._run(sql, tuple(params))).fetchall()

    async def _run(self, sql: str, params: tuple) -> sqlite3.Cursor:
        """The statement on the loop's thread; if another process holds the lock, waited for
        in a worker thread (up to the busy timeout) so that other users are not held up."""
        try:
            return self.writer.execute(sql, params)
        except sqlite3.OperationalError as exc:
            if exc.sqlite_errorcode != sqlite3.SQLITE_BUSY:
                raise
        return await asyncio.to_thread(self._locked, sql, params)

    def _locked(self, sql: str, params: tuple) -> sqlite3.Cursor:
        self.writer.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        try:
            return self.writer.execute(sql, params)
        finally:
            self.writer.execute("PRAGMA busy_timeout = 0")

    async def execute(self, sql: str, params: Iterable[Any] = ()) -> int:
        """One statement in its own transaction; returns the number of changed rows."""
        async with self._lock:
            cur = await self._run(sql, tuple(params))
            count = cur.rowcount
            cur.close()
            return count

    async def tables_with_column(self, column: str) -> list[str]:
        rows = await self.fetchall(
            "SELECT m.name AS name FROM sqlite_master m, pragma_table_info(m.name) c"
            " WHERE m.type = 'table' AND c.name = ? ORDER BY m.name", (column,))
        return [r["name"] for r in rows]

    async def move_rows(self, conn: Conn, table: str, column: str, old: int, new: int) -> int:
        # OR IGNORE: where the new value already has a row with the same key, keep that one.
        cur = await conn.execute(f"UPDATE OR IGNORE {table} SET {column} = ? WHERE {column} = ?",
                                 (new, old))
        return max(cur.rowcount, 0)


# -- PostgreSQL ------------------------------------------------------------------------------

_PLACEHOLDER = re.compile(r"'(?:[^']|'')*'|\?")
_RETURNS_ROWS = re.compile(r"^\s*(SELECT|WITH|VALUES)\b|\bRETURNING\b", re.IGNORECASE)
_translated: dict[str, tuple[str, bool]] = {}
# Migrations of several instances starting at once run one after another under this lock.
MIGRATION_LOCK = 7_270_012


def to_postgres(sql: str) -> tuple[str, bool]:
    """The statement with $1, $2... for each `?` outside string literals, and whether it
    returns rows (a SELECT, or RETURNING). Cached: storage has a few hundred statements."""
    known = _translated.get(sql)
    if known is None:
        counter = iter(range(1, 10_000))
        text = _PLACEHOLDER.sub(
            lambda m: m.group(0) if m.group(0) != "?" else f"${next(counter)}", sql)
        known = _translated[sql] = (text, bool(_RETURNS_ROWS.search(sql)))
    return known


def _changed(status: str) -> int:
    """The row count in a command tag: 'UPDATE 3', 'INSERT 0 1', 'DELETE 0'."""
    last = status.rsplit(" ", 1)[-1]
    return int(last) if last.isdigit() else 0


class PgCursor:
    """What storage reads from a statement: rows, rowcount (a cursor's, in short)."""

    lastrowid = None  # PostgreSQL has none: inserts that need their id say RETURNING id

    def __init__(self, rows: Sequence[Row], rowcount: int) -> None:
        self.rows = list(rows)
        self.rowcount = rowcount

    async def fetchall(self) -> list[Row]:
        return self.rows

    async def fetchone(self) -> Row | None:
        return self.rows[0] if self.rows else None

    async def close(self) -> None:
        pass


class _Statement:
    """Awaitable, and usable with `async with`, like SyncConn's `execute`."""

    def __init__(self, run: Any) -> None:
        self._run = run

    def __await__(self) -> Any:
        return self._run.__await__()

    async def __aenter__(self) -> PgCursor:
        return await self._run

    async def __aexit__(self, *_: object) -> None:
        pass


class PgConn:
    """An asyncpg connection (or the pool, for a statement on its own) answering the calls
    storage makes on SyncConn."""

    def __init__(self, raw: Any) -> None:
        self.raw = raw

    def execute(self, sql: str, parameters: Iterable[Any] = (), /) -> _Statement:
        return _Statement(self._run(sql, tuple(parameters or ())))

    async def _run(self, sql: str, params: tuple) -> PgCursor:
        text, returns_rows = to_postgres(sql)
        if returns_rows:
            rows = await self.raw.fetch(text, *params)
            return PgCursor(rows, len(rows))
        return PgCursor([], _changed(await self.raw.execute(text, *params)))

    async def execute_fetchall(self, sql: str, parameters: Iterable[Any] = (), /) -> list[Row]:
        return await self.raw.fetch(to_postgres(sql)[0], *tuple(parameters or ()))

    async def executemany(self, sql: str, parameters: Iterable[Iterable[Any]], /) -> None:
        rows = [tuple(p) for p in parameters]
        if rows:
            await self.raw.executemany(to_postgres(sql)[0], rows)


async def _set_up_connection(conn: Any) -> None:
    # numeric (SUM of a BIGINT, a decimal literal) would come back as Decimal; the code, written
    # for SQLite, expects int and float.
    await conn.set_type_codec("numeric", encoder=str, decoder=float, schema="pg_catalog",
                              format="text")


async def postgres_version(url: str) -> int:
    """The schema version of a PostgreSQL database (0: empty), read without migrating it."""
    import asyncpg

    conn = await asyncpg.connect(url, timeout=10)
    try:
        return await PostgresDatabase._version(conn)
    finally:
        await conn.close()


class PostgresDatabase(Database):
    """A pool of asyncpg connections; each transaction holds one. READ COMMITTED, as
    PostgreSQL's default: the rules that must hold across instances (an answer stored once, a
    first tap, a timer fired once) are unique keys and conditional updates, not reads."""

    dialect = "postgres"
    shared = True

    def __init__(self, pool: Any, url: str) -> None:
        self.pool = pool
        self.url = url
        self._direct = PgConn(pool)  # a statement outside a transaction, on any connection

    @classmethod
    async def connect(cls, url: str, *, max_size: int = 10) -> PostgresDatabase:
        import asyncpg  # here, not at the top: one process on SQLite never needs it

        pool = await asyncpg.create_pool(url, min_size=1, max_size=max_size,
                                         statement_cache_size=1024, init=_set_up_connection)
        db = cls(pool, url)
        try:
            await db.migrate()
        except BaseException:
            await pool.close()
            raise
        return db

    async def close(self) -> None:
        await self.pool.close()

    async def version(self) -> int:
        async with self.pool.acquire() as conn:
            return await self._version(conn)

    @staticmethod
    async def _version(conn: Any) -> int:
        exists = await conn.fetchval("SELECT to_regclass('schema_version') IS NOT NULL")
        if not exists:
            return 0
        return int(await conn.fetchval("SELECT COALESCE(MAX(version), 0) FROM schema_version"))

    async def migrate(self) -> None:
        latest = latest_version()
        async with self.pool.acquire() as conn, conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock($1)", MIGRATION_LOCK)
            current = await self._version(conn)
            if current > latest:
                raise SchemaTooNew(
                    f"the PostgreSQL database has schema version {current}, newer than this "
                    f"bot knows ({latest}); upgrade the bot or use another DATABASE_URL")
            await conn.execute("CREATE TABLE IF NOT EXISTS schema_version ("
                               " version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL"
                               " DEFAULT now())")
            for version, name, sql in migrations(PG_MIGRATIONS):
                if version <= current:
                    continue
                log.info("migrating database to version %d (%s)", version, name)
                await conn.execute(sql)
                await conn.execute("INSERT INTO schema_version (version) VALUES ($1)", version)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Conn]:
        async with self.pool.acquire() as conn, conn.transaction():
            yield PgConn(conn)

    async def fetchall(self, sql: str, params: Iterable[Any] = ()) -> list[Row]:
        return await self._direct.execute_fetchall(sql, params)

    async def execute(self, sql: str, params: Iterable[Any] = ()) -> int:
        return (await self._direct.execute(sql, params)).rowcount

    async def tables_with_column(self, column: str) -> list[str]:
        rows = await self.fetchall(
            "SELECT table_name AS name FROM information_schema.columns"
            " WHERE table_schema = current_schema() AND column_name = ?"
            " AND table_name <> 'schema_version' ORDER BY table_name", (column,))
        return [r["name"] for r in rows]

    async def move_rows(self, conn: Conn, table: str, column: str, old: int, new: int) -> int:
        # PostgreSQL has no UPDATE OR IGNORE: move all at once, and when a key collides, row by
        # row, each in a savepoint, keeping the row already there.
        import asyncpg

        assert isinstance(conn, PgConn)
        try:
            async with conn.raw.transaction():
                return _changed(await conn.raw.execute(
                    f"UPDATE {table} SET {column} = $1 WHERE {column} = $2", new, old))
        except asyncpg.UniqueViolationError:
            pass
        moved = 0
        for row in await conn.raw.fetch(f"SELECT ctid FROM {table} WHERE {column} = $1", old):
            try:
                async with conn.raw.transaction():
                    moved += _changed(await conn.raw.execute(
                        f"UPDATE {table} SET {column} = $1 WHERE ctid = $2", new, row["ctid"]))
            except asyncpg.UniqueViolationError:
                continue
        return moved
