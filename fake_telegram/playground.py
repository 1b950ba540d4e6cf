"""`python -m bot play`: the bot against the fake Telegram server, with a web chat in the browser
where pretend users talk to it in private and in a group. No token, nothing leaves 127.0.0.1.
Its arguments are parsed in bot/cli.py, which imports this module only for `play`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import signal
import sys
import tempfile
import webbrowser
from pathlib import Path

from bot import telegram_limits
from bot.app import build_application, start_polling_app, stop_app
from bot.logs import setup_logging
from bot.settings import Settings
from bot.startup import checked_bank, load_settings
from fake_telegram import FakeTelegram, FakeUser
from fake_telegram.spec import SPEC_BESIDE_CHECKOUT, find_spec

log = logging.getLogger(__name__)

# The pretend users every playground starts with; Ada created the group (rounds need an admin).
CAST = (("Ada", "en"), ("Ayşe", "tr"), ("Bob", "en"))
FIRST_USER_ID = 1001
GROUP_ID = -1001234567890
GROUP_TITLE = "Interview practice"
FORUM_ID = -1001234567891
FORUM_TITLE = "Study hall"
FORUM_TOPICS = ("Backend", "Frontend")
BOT_USERNAME = "interview_coach_bot"
BOT_NAME = "Interview Coach"


def cast(fake: FakeTelegram) -> list[FakeUser]:
    """The default pretend users, their group and their forum with two topics (the bot is a
    plain member, privacy mode on), and inline mode switched on as with @BotFather."""
    users = [fake.user(FIRST_USER_ID + i, name, language_code=language)
             for i, (name, language) in enumerate(CAST)]
    members = {user: ("creator" if i == 0 else "member") for i, user in enumerate(users)}
    fake.group(GROUP_ID, GROUP_TITLE, members)
    fake.group(FORUM_ID, FORUM_TITLE, members, forum=True)
    for topic in FORUM_TOPICS:
        fake.create_topic(FORUM_ID, topic)
    fake.inline_mode = True
    return users


def play_settings(fake: FakeTelegram, database: Path, questions: Path | None,
                  admins: frozenset[int]) -> Settings:
    """Settings from the environment and .env, but the emulator's URLs and token and our own
    database: a real BOT_TOKEN or DATABASE_PATH in .env is never used by the playground."""
    overrides: dict[str, object] = {
        "bot_token": fake.token, "bot_api_base_url": fake.base_url,
        "bot_api_base_file_url": fake.base_file_url, "database_path": database,
        "webhook_url": None,
    }
    if questions is not None:
        overrides["questions_dir"] = questions
    settings = Settings(**overrides)  # type: ignore[arg-type]
    return settings.model_copy(update={"admin_ids": settings.admin_ids | admins})


async def serve(args: argparse.Namespace, database: Path) -> int:
    spec = find_spec(default=SPEC_BESIDE_CHECKOUT)
    fake = FakeTelegram(spec_path=spec, bot_username=BOT_USERNAME, bot_name=BOT_NAME,
                        rate_limits=args.flood_limits, use_spec=spec is not None,
                        host=args.host, port=args.port)
    users = cast(fake)
    try:
        await fake.start()
    except OSError as exc:
        print(f"Can't listen on {args.host}:{args.port} ({exc.strerror}); "
              "try another --port, or --port 0 for any free one.", file=sys.stderr)
        return 2
    try:
        return await _run_bot(fake, args, database, frozenset({users[0].id}))
    finally:
        await fake.stop()


async def _run_bot(fake: FakeTelegram, args: argparse.Namespace, database: Path,
                   admins: frozenset[int]) -> int:
    settings = load_settings(lambda: play_settings(fake, database, args.questions, admins))
    setup_logging(settings.log_level, settings.bot_token.get_secret_value())
    bank = checked_bank(settings)
    if bank is None:
        return 1
    fake.listeners.append(_print_violation)
    # Ctrl+C and SIGTERM are ours before anyone is told the address: a stop sent the moment it
    # appears must still stop the bot cleanly and remove the temporary database.
    stop = _stop_on_signals()
    app = build_application(settings, bank=bank, rate_limiter=telegram_limits.limiter())
    await start_polling_app(app, poll_seconds=10)
    url = f"http://{args.host}:{fake.port}/play/"
    print(f"Playground: {url}", flush=True)
    print(f"  {len(bank)} questions from {settings.questions_dir}; database {database}", flush=True)
    # Without a spec (the usual case) calls are still checked against Telegram's limits: only
    # a spec asked for and not found is worth a line.
    if fake.spec is None and os.environ.get("TELEGRAM_API_SPEC"):
        print(f"  TELEGRAM_API_SPEC={os.environ['TELEGRAM_API_SPEC']} is not a file: calls are "
              "checked against Telegram's limits only.", flush=True)
    print("  Ctrl+C stops", flush=True)
    if not args.no_browser and _has_display():
        with contextlib.suppress(Exception):
            webbrowser.open(url)
    try:
        await stop.wait()
    finally:
        await stop_app(app)
    return 0


def _print_violation(kind: str, payload: dict) -> None:
    if kind == "violation":
        print(f"Telegram would refuse: {payload['text']}", file=sys.stderr, flush=True)


def _has_display() -> bool:
    return sys.platform in ("darwin", "win32") or bool(
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def _stop_on_signals() -> asyncio.Event:
    """An event set by Ctrl+C or SIGTERM."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):  # Windows
            loop.add_signal_handler(sig, stop.set)
    return stop


def run(args: argparse.Namespace) -> int:
    """Start everything; the temporary database goes away when the playground stops."""
    with tempfile.TemporaryDirectory(prefix="coach-play-") as folder:
        database = args.db or Path(folder) / "playground.sqlite3"
        try:
            return asyncio.run(serve(args, database))
        except KeyboardInterrupt:
            return 0
