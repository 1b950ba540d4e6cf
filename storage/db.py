"""The SQLite connection: WAL, foreign keys, a busy timeout, versioned migrations, transactions."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import sqlite3
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiosqlite

log = logging.getLogger(__name__)
MIGRATIONS = Path(__file__).resolve().parent / "migrations"
BUSY_TIMEOUT_MS = 10_000
# With background checkpoints on, the connection that answers users checkpoints by itself only
# when the log grows this large (pages): a safety net if the background falls behind.
SAFETY_CHECKPOINT_PAGES = 10_000


class SchemaTooNew(RuntimeError):
    """The database was written by a newer version of the bot."""


def migrations() -> list[tuple[int, str, str]]:
    """(version, name, sql) for every `NNNN_name.sql` file, in order."""
    found = []
    for path in sorted(MIGRATIONS.glob("*.sql")):
        match = re.match(r"^(\d{4})_(\w+)\.sql$", path.name)
        if match:
            found.append((int(match.group(1)), match.group(2), path.read_text(encoding="utf-8")))
    versions = [v for v, _, _ in found]
    if len(set(versions)) != len(versions):
        raise RuntimeError(f"two migrations share a version number: {versions}")
    return found


def latest_version() -> int:
    return max((v for v, _, _ in migrations()), default=0)


async def fetch_one(conn: aiosqlite.Connection, sql: str,
                    params: Iterable[Any] = ()) -> aiosqlite.Row | None:
    """One row, read inside a transaction the caller holds, in a single hop to SQLite's thread
    (`execute` + `fetchone` + `close` take three; record_answer runs for every tap of a burst)."""
    rows = list(await conn.execute_fetchall(sql, tuple(params)))
    return rows[0] if rows else None


async def fetch_row(conn: aiosqlite.Connection, sql: str,
                    params: Iterable[Any] = ()) -> aiosqlite.Row:
    """A row that must exist (RETURNING, or the user's own row in their answer's transaction)."""
    row = await fetch_one(conn, sql, params)
    if row is None:
        raise LookupError("expected a row, found none")
    return row


class Database:
    """One aiosqlite connection; a lock keeps each transaction whole among concurrent handlers."""

    def __init__(self, conn: aiosqlite.Connection, path: Path) -> None:
        self.conn = conn
        self.path = path
        self._lock = asyncio.Lock()
        self._checkpoints: asyncio.Task | None = None

    @classmethod
    async def open(cls, path: Path | str) -> Database:
        path = Path(path)
        if str(path) != ":memory:":
            path.parent.mkdir(parents=True, exist_ok=True)
            if not path.exists():
                # Created owner-only: it holds users' answers and settings.
                fd = os.open(path, os.O_CREAT | os.O_WRONLY, 0o600)
                os.close(fd)
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
        await self.conn.execute(f"PRAGMA wal_autocheckpoint = {SAFETY_CHECKPOINT_PAGES}")
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
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """BEGIN IMMEDIATE ... COMMIT, rolled back on any error."""
        async with self._lock:
            await self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield self.conn
            except BaseException:
                await self.conn.execute("ROLLBACK")
                raise
            else:
                await self.conn.execute("COMMIT")

    async def fetchone(self, sql: str, params: Iterable[Any] = ()) -> aiosqlite.Row | None:
        rows = await self.fetchall(sql, params)
        return rows[0] if rows else None

    async def fetchall(self, sql: str, params: Iterable[Any] = ()) -> list[aiosqlite.Row]:
        # One hop to SQLite's thread instead of three (execute, fetch, close): under a burst
        # of taps those hops are most of the time a read takes.
        async with self._lock:
            return list(await self.conn.execute_fetchall(sql, tuple(params)))

    async def execute(self, sql: str, params: Iterable[Any] = ()) -> int:
        """One statement in its own transaction; returns the number of changed rows."""
        async with self._lock:
            cur = await self.conn.execute(sql, tuple(params))
            count = cur.rowcount
            await cur.close()
            return count
