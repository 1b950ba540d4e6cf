"""A throwaway PostgreSQL server for a test session: a fresh cluster in a temporary folder, tuned
for speed over durability, reachable only from 127.0.0.1 and removed at the end."""

from __future__ import annotations

import glob
import itertools
import os
import pwd
import shlex
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

# Trust: only 127.0.0.1 and a socket in our own folder reach the server. The C locale sorts text
# the same way on every machine.
INITDB_OPTIONS = ("--auth=trust", "-U", "postgres", "--no-sync", "-E", "UTF8", "--locale=C")
# Durability costs time and a throwaway cluster loses nothing when it crashes.
SETTINGS: dict[str, object] = {
    "listen_addresses": "'127.0.0.1'",
    "fsync": "off",
    "synchronous_commit": "off",
    "full_page_writes": "off",
    # Each test gets its own database and may open a pool of its own.
    "max_connections": 200,
}


def find_bin_dir() -> Path | None:
    """The folder with initdb and pg_ctl: from PATH, else the newest Debian version."""
    on_path = shutil.which("initdb")
    if on_path:
        # Resolved, so the postgres user runs the real binaries whatever its own PATH is.
        return Path(on_path).resolve().parent
    versions = glob.glob("/usr/lib/postgresql/*/bin/initdb")
    if not versions:
        return None
    newest = max(versions, key=lambda path: int(Path(path).parts[-3]))
    return Path(newest).parent


def run_as_command() -> list[str] | None:
    """The prefix that runs a command as the postgres system user, or None if there is none.
    initdb and postgres refuse to run as root, so as root we switch to that user."""
    runuser = shutil.which("runuser") or shutil.which("runuser", path="/usr/sbin:/sbin")
    if runuser:
        return [runuser, "-u", "postgres", "--"]
    su = shutil.which("su")
    return [su, "postgres", "-c"] if su else None


def missing() -> str | None:
    """Why a throwaway PostgreSQL server can't start here, or None."""
    if find_bin_dir() is None:
        return "PostgreSQL is not installed (initdb not found); .ci/run installs it"
    try:
        import asyncpg  # noqa: F401
    except ImportError:
        return "asyncpg not installed (pip install -e '.[dev]')"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root and there is no postgres user to run PostgreSQL as"
        if run_as_command() is None:
            return "running as root and neither runuser nor su is there to switch to postgres"
    return None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class PostgresServer:
    """One cluster: `start()` it, `create_database()` per test, `stop()` at the end."""

    def __init__(self, bin_dir: Path, folder: Path, port: int) -> None:
        self.bin_dir = bin_dir
        self.folder = folder
        self.data = folder / "data"
        self.log = folder / "server.log"
        self.port = port
        self._names = itertools.count(1)

    @classmethod
    def start(cls) -> PostgresServer:
        """initdb into a fresh temporary folder and start the server (call `missing()` first)."""
        bin_dir = find_bin_dir()
        assert bin_dir is not None, missing()
        folder = Path(tempfile.mkdtemp(prefix="pytest-postgres-"))
        if os.geteuid() == 0:
            shutil.chown(folder, user="postgres", group="postgres")
        server = cls(bin_dir, folder, free_port())
        try:
            server._pg("initdb", "-D", server.data, *INITDB_OPTIONS)
            settings = {**SETTINGS, "port": server.port, "unix_socket_directories": f"'{folder}'"}
            with (server.data / "postgresql.conf").open("a") as conf:
                conf.writelines(f"{key} = {value}\n" for key, value in settings.items())
            server._pg("pg_ctl", "-D", server.data, "-l", server.log, "-w", "start")
        except BaseException:
            server.stop()
            raise
        return server

    def stop(self) -> None:
        """Stop at once (nothing in it is worth a clean shutdown) and remove the folder."""
        if (self.data / "postmaster.pid").exists():
            self._pg("pg_ctl", "-D", self.data, "-m", "immediate", "stop", check=False)
        shutil.rmtree(self.folder, ignore_errors=True)

    def url(self, database: str) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    async def create_database(self) -> str:
        """A fresh empty database, named uniquely on this server; returns its URL."""
        import asyncpg

        name = f"test_{next(self._names)}"
        connection = await asyncpg.connect(self.url("postgres"))
        try:
            await connection.execute(f'CREATE DATABASE "{name}"')
        finally:
            await connection.close()
        return self.url(name)

    async def drop_database(self, url: str) -> None:
        """Drop a database made by `create_database`, closing connections a test left open,
        so a long session does not fill the disk with one copy of template1 per test."""
        import asyncpg

        name = url.rsplit("/", 1)[1]
        connection = await asyncpg.connect(self.url("postgres"))
        try:
            await connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await connection.close()

    def _pg(self, program: str, *args: object, check: bool = True) -> None:
        command = [str(self.bin_dir / program), *map(str, args)]
        if os.geteuid() == 0:
            prefix = run_as_command()
            assert prefix is not None, missing()
            # su takes one shell command line, runuser the argument list as it is.
            command = [*prefix, shlex.join(command)] if prefix[-1] == "-c" else prefix + command
        # Run from the temporary folder: the postgres user may not be allowed into the cwd.
        done = subprocess.run(command, cwd=self.folder, capture_output=True, text=True)
        if check and done.returncode != 0:
            log = self.log.read_text(errors="replace")[-3000:] if self.log.exists() else ""
            raise RuntimeError(
                f"{program} failed ({done.returncode}): {done.stdout}{done.stderr}{log}"
            )
