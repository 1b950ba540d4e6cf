"""Run the fake Bot API server standalone: `python -m fake_telegram --port 8081`."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
from pathlib import Path

from fake_telegram.server import FakeTelegram
from fake_telegram.spec import SPEC_BESIDE_CHECKOUT, find_spec


async def _serve(args: argparse.Namespace) -> None:
    spec = args.spec or find_spec(default=SPEC_BESIDE_CHECKOUT)
    fake = FakeTelegram(
        spec_path=spec,
        use_spec=spec is not None,
        bot_username=args.bot_username,
        rate_limits=args.rate_limits,
        token=args.token,
        privacy_mode=not args.no_privacy,
        host=args.host,
        port=args.port,
    )
    await fake.start()
    print(f"Fake Bot API at {fake.base_url}<token>/<method>", flush=True)
    print(f"  BOT_API_BASE_URL={fake.base_url}", flush=True)
    print(f"  BOT_API_BASE_FILE_URL={fake.base_file_url}", flush=True)
    print(f"  BOT_TOKEN={fake.token}", flush=True)
    print(f"Web chat (add pretend users with +): http://{fake.host}:{fake.port}/play/", flush=True)
    if spec is None and os.environ.get("TELEGRAM_API_SPEC"):  # asked for and not found
        print(f"TELEGRAM_API_SPEC={os.environ['TELEGRAM_API_SPEC']} is not a file: calls are "
              "checked against Telegram's limits only.", flush=True)
    try:
        await asyncio.Event().wait()
    finally:
        await fake.stop()


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m fake_telegram", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8081)
    parser.add_argument("--token", help="accept only this token (default: any well-formed one)")
    parser.add_argument("--bot-username", default="coach_test_bot")
    parser.add_argument("--spec", type=Path,
                        help="path to api.json (default: $TELEGRAM_API_SPEC, else "
                             "../shared/telegram-bot-api/api.json beside the checkout)")
    parser.add_argument("--rate-limits", action="store_true", help="answer 429 like Telegram")
    parser.add_argument("--no-privacy", action="store_true", help="bot sees all group messages")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO)
    try:
        asyncio.run(_serve(args))
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
