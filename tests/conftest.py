"""Shared fixtures: a test bank, settings, temporary databases (SQLite, and PostgreSQL on a
throwaway server), and the bot against the fake."""

from __future__ import annotations

import asyncio
import os
import random
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

import httpx._transports.default as httpx_transport
import pytest

from bot.settings import Settings
from bot.texts import LOCALES, Texts
from questions.cli import BUNDLED
from questions.loader import Bank, load_bank
from storage.db import Database
from tests.postgres import PostgresServer, missing

TEST_BANK = Path(__file__).parent / "data" / "bank"
TEST_TOKEN = "123456:TEST-TOKEN-abcdefghijklmnopqrstu"


@pytest.fixture(autouse=True, scope="session")
def _start_up_work_done_once() -> Iterator[None]:
    """Every bot a test starts reads the same text catalogs and builds two HTTP clients; the
    parsed catalogs (read-only) and the default TLS context (made to be shared) are built once
    per session instead of at every start, about 0.3 s each time."""
    texts, load_texts = Texts.load(), Texts.load.__func__
    make_context = httpx_transport.create_ssl_context
    default_context = make_context()

    def cached_texts(cls, folder: Path = LOCALES) -> Texts:
        return texts if folder == LOCALES else load_texts(cls, folder)

    def shared_context(verify=True, cert=None, trust_env=True):
        if verify is True and cert is None and trust_env:
            return default_context
        return make_context(verify=verify, cert=cert, trust_env=trust_env)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Texts, "load", classmethod(cached_texts))
        patch.setattr(httpx_transport, "create_ssl_context", shared_context)
        yield


@pytest.fixture(scope="session")
def bundled_bank() -> Bank:
    """The bundled bank, loaded once per run for the tests that only read it (the job-ad
    tests, end to end and the evaluation, then share one matcher: `matcher_for` keeps it)."""
    return load_bank(BUNDLED)


@pytest.fixture
def test_bank() -> Bank:
    return load_bank(TEST_BANK)


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[Database]:
    database = await Database.open(os.environ.get("DATABASE_URL") or tmp_path / "test.sqlite3")
    yield database
    await database.close()


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A throwaway PostgreSQL cluster, started once per session on the first test that needs
    it; skipped with the reason when PostgreSQL is not installed."""
    reason = missing()
    if reason:
        pytest.skip(reason)
    server = PostgresServer.start()
    yield server
    server.stop()


@pytest.fixture
async def postgres_url(postgres_server: PostgresServer) -> AsyncIterator[str]:
    """The URL of a fresh empty database of its own for each test, dropped afterwards."""
    url = await postgres_server.create_database()
    yield url
    await postgres_server.drop_database(url)


# -- the database a test runs on ------------------------------------------------------------
# SQLite by default. Tests marked `both_databases` run twice, on SQLite and on PostgreSQL (a
# fresh database on the throwaway cluster, given to the bot as DATABASE_URL); TEST_DATABASE=
# postgres runs every test on PostgreSQL.

def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if metafunc.definition.get_closest_marker("both_databases"):
        metafunc.fixturenames.append("database_backend")
        metafunc.parametrize("database_backend", ["sqlite", "postgres"], indirect=True)


@pytest.fixture
def database_backend(request: pytest.FixtureRequest) -> str:
    return getattr(request, "param", None) or os.environ.get("TEST_DATABASE", "sqlite")


def _in_own_loop(coroutine):
    """Run a coroutine from a sync fixture, whether or not the test's loop is running."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


@pytest.fixture(autouse=True)
def _database_for_test(request: pytest.FixtureRequest,
                       monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    callspec = getattr(request.node, "callspec", None)
    backend = (callspec.params.get("database_backend") if callspec else None) \
        or os.environ.get("TEST_DATABASE", "sqlite")
    if backend != "postgres":
        yield
        return
    server: PostgresServer = request.getfixturevalue("postgres_server")
    url = _in_own_loop(server.create_database())
    monkeypatch.setenv("DATABASE_URL", url)
    yield
    _in_own_loop(server.drop_database(url))


def make_settings(tmp_path: Path, **overrides) -> Settings:
    values = {
        "bot_token": TEST_TOKEN,
        "database_path": tmp_path / "coach.sqlite3",
        "questions_dir": TEST_BANK,
        "_env_file": None,
    }
    values.update(overrides)
    return Settings(**values)


class Clock:
    """A controllable clock for the bot (timezone-aware UTC)."""

    def __init__(self, start: datetime | None = None) -> None:
        self.now = start or datetime(2026, 3, 10, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta) -> None:
        from datetime import timedelta

        self.now += timedelta(**delta)


@pytest.fixture
def rng() -> random.Random:
    return random.Random(7)
