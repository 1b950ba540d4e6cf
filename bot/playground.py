"""`python -m bot play`: the bot against the built-in Bot API emulator, with a web chat in the
browser where pretend users talk to it in private and in a group. No token, nothing leaves 127.0.0.1.
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

from bot import ratelimit
from bot.app import build_application, start_polling_app, stop_app
from bot.emulator import FakeTelegram, FakeUser
from bot.logs import setup_logging
from bot.main import checked_bank, load_settings
from bot.settings import Settings

log = logging.getLogger(__name__)

# The pretend users every playground starts with; Ada created the group (rounds need an admin).
CAST = (("Ada", "en"), ("Ayşe", "tr"), ("Bob", "en"))
FIRST_USER_ID = 1001
GROUP_ID = -1001234567890
GROUP_TITLE = "Interview practice"
BOT_USERNAME = "interview_coach_bot"
BOT_NAME = "Interview Coach"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    parser.add_argument("--port", type=int, default=8765, help="port, 0 for any free one (8765)")
    parser.add_argument("--db", type=Path, help="SQLite file to keep (default: a temporary one)")
    parser.add_argument("--questions", type=Path,
                        help="question bank folder (default: QUESTIONS_DIR or the bundled bank)")
    parser.add_argument("--flood-limits", action="store_true",
                        help="answer 429 like Telegram when the bot sends too fast (off: the "
                             "emulator's per-chat limit is a guess, and quick tapping trips it)")
    parser.add_argument("--no-browser", action="store_true", help="only print the address")


def cast(fake: FakeTelegram) -> list[FakeUser]:
    """The default pretend users and their group (the bot is a plain member, privacy mode on)."""
    users = [fake.user(FIRST_USER_ID + i, name, language_code=language)
             for i, (name, language) in enumerate(CAST)]
    members = {user: ("creator" if i == 0 else "member") for i, user in enumerate(users)}
    fake.group(GROUP_ID, GROUP_TITLE, members)
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
    fake = FakeTelegram(bot_username=BOT_USERNAME, bot_name=BOT_NAME, rate_limits=args.flood_limits,
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
    app = build_application(settings, bank=bank, rate_limiter=ratelimit.limiter())
    await start_polling_app(app, poll_seconds=10)
    url = f"http://{args.host}:{fake.port}/play/"
    spec = "checked against the Bot API spec" if fake.spec else "spec file not found: limits only"
    print(f"Playground: {url}", flush=True)
    print(f"  {len(bank)} questions from {settings.questions_dir}; database {database}", flush=True)
    print(f"  calls {spec}; Ctrl+C stops", flush=True)
    if not args.no_browser and _has_display():
        with contextlib.suppress(Exception):
            webbrowser.open(url)
    try:
        await _until_stopped()
    finally:
        await stop_app(app)
    return 0


def _print_violation(kind: str, payload: dict) -> None:
    if kind == "violation":
        print(f"Telegram would refuse: {payload['text']}", file=sys.stderr, flush=True)


def _has_display() -> bool:
    return sys.platform in ("darwin", "win32") or bool(
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


async def _until_stopped() -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):  # Windows
            loop.add_signal_handler(sig, stop.set)
    await stop.wait()


def run(args: argparse.Namespace) -> int:
    """Start everything; the temporary database goes away when the playground stops."""
    with tempfile.TemporaryDirectory(prefix="coach-play-") as folder:
        database = args.db or Path(folder) / "playground.sqlite3"
        try:
            return asyncio.run(serve(args, database))
        except KeyboardInterrupt:
            return 0
