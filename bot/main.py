"""Start-up: settings, a checked bank, then polling; clear one-line errors instead of tracebacks."""

from __future__ import annotations

import logging
import sys

from pydantic import ValidationError

from bot.app import build_application
from bot.logs import setup_logging
from bot.settings import Settings
from questions.loader import BankError, load_bank
from storage.db import SchemaTooNew

HOW_TO_GET_A_TOKEN = (
    "BOT_TOKEN is missing or malformed: talk to @BotFather in Telegram, send /newbot, and put "
    "the token it gives you in .env as BOT_TOKEN=123456789:AA... (see .env.example)."
)


def load_settings() -> Settings:
    try:
        return Settings()  # type: ignore[call-arg]
    except ValidationError as exc:
        if any(err["loc"] and err["loc"][0] == "bot_token" for err in exc.errors()):
            print(HOW_TO_GET_A_TOKEN, file=sys.stderr)
        else:
            for err in exc.errors():
                name = str(err["loc"][0]).upper() if err["loc"] else "settings"
                print(f"{name}: {err['msg']}", file=sys.stderr)
        raise SystemExit(2) from None


def main(argv: list[str]) -> int:
    settings = load_settings()
    setup_logging(settings.log_level, settings.bot_token.get_secret_value())
    log = logging.getLogger("bot")
    try:
        bank = load_bank(settings.questions_dir)
    except BankError as exc:
        print(f"The question bank in {settings.questions_dir} is invalid:", file=sys.stderr)
        for problem in exc.problems:
            print(f"  {problem}", file=sys.stderr)
        return 1
    log.info("loaded %d questions in %d fields", len(bank), len(bank.fields))
    app = build_application(settings, bank=bank)
    try:
        app.run_polling(allowed_updates=None, drop_pending_updates=False)
    except SchemaTooNew as exc:
        print(str(exc), file=sys.stderr)
        return 1
    return 0
