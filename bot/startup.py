"""Start-up checks shared by `python -m bot` and the playground: the settings, or one line per
problem and exit status 2; the question bank, or its problems. Imported by nothing at run time.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from pydantic import ValidationError

from bot.settings import Settings
from questions.cache import load_bank_cached
from questions.loader import Bank, BankError

HOW_TO_GET_A_TOKEN = (
    "BOT_TOKEN is missing or malformed: talk to @BotFather in Telegram, send /newbot, and put "
    "the token it gives you in .env as BOT_TOKEN=123456789:AA... (see .env.example)."
)


def load_settings(make: Callable[[], Settings] = Settings) -> Settings:  # type: ignore[assignment]
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


def checked_bank(settings: Settings) -> Bank | None:
    """The question bank (from the cache when the packs are unchanged), or None after listing
    its problems."""
    try:
        return load_bank_cached(settings.questions_dir, settings.cache_folder)
    except BankError as exc:
        print(f"The question bank in {settings.questions_dir} is invalid:", file=sys.stderr)
        for problem in exc.problems:
            print(f"  {problem}", file=sys.stderr)
        return None
