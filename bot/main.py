"""Start-up: settings, a checked bank, then polling or a webhook; one clear line instead of a traceback.
`python -m bot play` starts the playground instead (bot/playground.py), which needs no token.
"""

from __future__ import annotations

import argparse
import logging
import sqlite3
import sys
from collections.abc import Callable
from urllib.parse import urlparse

from pydantic import ValidationError

from bot.app import ALLOWED_UPDATES, build_application
from bot.logs import setup_logging
from bot.settings import Settings
from questions.loader import Bank, BankError, check_bank, load_bank
from storage.db import SchemaTooNew, latest_version

HOW_TO_GET_A_TOKEN = (
    "BOT_TOKEN is missing or malformed: talk to @BotFather in Telegram, send /newbot, and put "
    "the token it gives you in .env as BOT_TOKEN=123456789:AA... (see .env.example)."
)


def load_settings(make: Callable[[], Settings] = Settings) -> Settings:
    """The settings (`make` builds them), or one line per problem and exit status 2."""
    try:
        settings = make()
    except ValidationError as exc:
        if any(err["loc"] and err["loc"][0] == "bot_token" for err in exc.errors()):
            print(HOW_TO_GET_A_TOKEN, file=sys.stderr)
        else:
            for err in exc.errors():
                name = str(err["loc"][0]).upper() if err["loc"] else "settings"
                print(f"{name}: {err['msg']}", file=sys.stderr)
        raise SystemExit(2) from None
    if settings.webhook_url and not settings.webhook_secret:
        print("WEBHOOK_SECRET is required with WEBHOOK_URL: Telegram sends it back in the "
              "X-Telegram-Bot-Api-Secret-Token header so that nobody else can post updates.",
              file=sys.stderr)
        raise SystemExit(2)
    return settings


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


def checked_bank(settings: Settings) -> Bank | None:
    """The question bank, or None after listing its problems."""
    try:
        return load_bank(settings.questions_dir)
    except BankError as exc:
        print(f"The question bank in {settings.questions_dir} is invalid:", file=sys.stderr)
        for problem in exc.problems:
            print(f"  {problem}", file=sys.stderr)
        return None


def run(settings: Settings) -> int:
    log = logging.getLogger("bot")
    bank = checked_bank(settings)
    if bank is None:
        return 1
    log.info("loaded %d questions in %d fields", len(bank), len(bank.fields))
    app = build_application(settings, bank=bank)
    try:
        if settings.webhook_url:
            assert settings.webhook_secret is not None
            log.info("webhook mode on %s:%d", settings.webhook_listen, settings.webhook_port)
            app.run_webhook(
                listen=settings.webhook_listen, port=settings.webhook_port,
                url_path=urlparse(settings.webhook_url).path.lstrip("/"),
                webhook_url=settings.webhook_url,
                secret_token=settings.webhook_secret.get_secret_value(),
                allowed_updates=ALLOWED_UPDATES)
        else:
            app.run_polling(allowed_updates=ALLOWED_UPDATES)
    except SchemaTooNew as exc:
        print(str(exc), file=sys.stderr)
        return 1
    return 0


def parse_args(argv: list[str]) -> argparse.Namespace:
    from bot import playground

    parser = argparse.ArgumentParser(prog="python -m bot", description="Interview coach bot",
                                     usage="python -m bot [-h] [--check] [play [options]]")
    parser.add_argument("--check", action="store_true",
                        help="validate settings, the bank and the database, then exit 0 or 1")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    play = commands.add_parser(
        "play", help="try the bot in a local web chat, no Telegram account or token needed",
        description=playground.__doc__)
    playground.add_arguments(play)
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    if args.command == "play":
        from bot import playground

        return playground.run(args)
    settings = load_settings()
    setup_logging(settings.log_level, settings.bot_token.get_secret_value(),
                  settings.webhook_secret.get_secret_value() if settings.webhook_secret else "")
    if args.check:
        return check(settings)
    return run(settings)
