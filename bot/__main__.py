"""`python -m bot`: run the bot (polling, or a webhook when WEBHOOK_URL is set), or `play` the
playground; the work is in bot/cli.py."""

import sys

from bot.cli import main

sys.exit(main(sys.argv[1:]))
