"""`python -m bot`: its arguments, then settings, a checked bank, and polling or a webhook; one
clear line instead of a traceback. `python -m bot play` starts fake_telegram/playground.py instead,
which needs no token. Only bot/__main__.py imports this module.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sqlite3
import sys
from pathlib import Path
from urllib.parse import urlparse

from bot.app import ALLOWED_UPDATES, build_application
from bot.logs import setup_logging
from bot.settings import Settings
from bot.startup import checked_bank, load_settings
from questions.loader import check_bank
from storage.db import SchemaTooNew, latest_version, postgres_version


def check(settings: Settings) -> int:
    """`python -m bot --check`: settings, bank and database, for deploy scripts."""
    ok = True
    print(f"settings: OK (API {urlparse(settings.bot_api_base_url).netloc}, "
          f"{'webhook ' + settings.webhook_url if settings.webhook_url else 'polling'})")
    bank, problems = check_bank(settings.questions_dir)
    if bank is None:
        ok = False
        print(f"bank: {len(problems)} problem(s) in {settings.questions_dir}")
        for problem in problems[:20]:
            print(f"  {problem}")
    else:
        print(f"bank: OK ({len(bank)} questions, {len(bank.fields)} fields)")
    if settings.database_url:
        ok = check_postgres(settings.database_url.get_secret_value()) and ok
        print("OK" if ok else "FAILED")
        return 0 if ok else 1
    path = settings.database_path
    if not path.exists():
        print(f"database: {path} does not exist yet; it will be created (schema v{latest_version()})")
    else:
        try:
            with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
                version = conn.execute("PRAGMA user_version").fetchone()[0]
                integrity = conn.execute("PRAGMA quick_check").fetchone()[0]
        except sqlite3.Error as exc:
            ok = False
            print(f"database: cannot read {path}: {exc}")
        else:
            if version > latest_version():
                ok = False
                print(f"database: schema v{version} is newer than this bot (v{latest_version()})")
            elif integrity != "ok":
                ok = False
                print(f"database: integrity check failed: {integrity}")
            else:
                note = "" if version == latest_version() else f", will migrate to v{latest_version()}"
                print(f"database: OK ({path}, schema v{version}{note})")
    print("OK" if ok else "FAILED")
    return 0 if ok else 1


def check_postgres(url: str) -> bool:
    """Reach the PostgreSQL server and read its schema version, without migrating it."""
    where = urlparse(url)
    name = f"{where.hostname}:{where.port or 5432}{where.path}"  # never the password
    try:
        version = asyncio.run(postgres_version(url))
    except Exception as exc:  # any reason it cannot be reached is reported the same way
        print(f"database: cannot read PostgreSQL at {name}: {type(exc).__name__}")
        return False
    if version > latest_version():
        print(f"database: schema v{version} is newer than this bot (v{latest_version()})")
        return False
    note = "" if version == latest_version() else f", will migrate to v{latest_version()}"
    print(f"database: OK (PostgreSQL {name}, schema v{version}{note})")
    return True


def run(settings: Settings) -> int:
    log = logging.getLogger("bot")
    bank = checked_bank(settings)
    if bank is None:
        return 1
    log.info("loaded %d questions in %d fields", len(bank), len(bank.fields))
    app = build_application(settings, bank=bank)
    try:
        if settings.webhook_url:
            # aiohttp's web server is imported only in webhook mode: polling starts lighter.
            from bot import webhook
            try:
                webhook.run(app, settings)
            except webhook.CannotListen as exc:
                print(str(exc), file=sys.stderr)
                return 1
        else:
            app.run_polling(allowed_updates=ALLOWED_UPDATES)
    except SchemaTooNew as exc:
        print(str(exc), file=sys.stderr)
        return 1
    return 0


PLAY_DESCRIPTION = (
    "The bot against the fake Telegram server (fake_telegram, in a checkout of the repository), "
    "with a web chat in the browser where pretend users talk to it in private and in a group. "
    "No token; nothing leaves 127.0.0.1.")


def parse_args(argv: list[str]) -> argparse.Namespace:
    """`python -m bot [--check]` or `python -m bot play [options]`."""
    parser = argparse.ArgumentParser(prog="python -m bot", description="Interview coach bot",
                                     usage="python -m bot [-h] [--check] [play [options]]")
    parser.add_argument("--check", action="store_true",
                        help="validate settings, the bank and the database, then exit 0 or 1")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    play = commands.add_parser(
        "play", help="try the bot in a local web chat, no Telegram account or token needed",
        description=PLAY_DESCRIPTION)
    play.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    play.add_argument("--port", type=int, default=8765, help="port, 0 for any free one (8765)")
    play.add_argument("--db", type=Path, help="SQLite file to keep (default: a temporary one)")
    play.add_argument("--questions", type=Path,
                      help="question bank folder (default: QUESTIONS_DIR or the bundled bank)")
    play.add_argument("--flood-limits", action="store_true",
                      help="answer 429 like Telegram when the bot sends too fast (off: the "
                           "fake's per-chat limit is a guess, and quick tapping trips it)")
    play.add_argument("--no-browser", action="store_true", help="only print the address")
    return parser.parse_args(argv)


def play(args: argparse.Namespace) -> int:
    """The playground; imported only here, because it is a development tool that is not
    installed with the bot (nor is aiohttp, which its web chat needs)."""
    try:
        from fake_telegram import playground
    except ModuleNotFoundError as exc:
        if exc.name not in ("fake_telegram", "aiohttp"):
            raise
        print(f"The playground needs a checkout of the repository with the [play] extra "
              f"(`make play`, or pip install -e '.[play]'): no module named {exc.name}",
              file=sys.stderr)
        return 2
    return playground.run(args)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    if args.command == "play":
        return play(args)
    settings = load_settings()
    database_password = urlparse(settings.database_url.get_secret_value()).password \
        if settings.database_url else None
    setup_logging(settings.log_level, settings.bot_token.get_secret_value(),
                  settings.webhook_secret.get_secret_value() if settings.webhook_secret else "",
                  database_password or "")
    if args.check:
        return check(settings)
    return run(settings)
