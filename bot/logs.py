"""Logging set-up: one line per event, and the bot token never printed."""

from __future__ import annotations

import logging


class RedactSecrets(logging.Filter):
    """Replaces secrets wherever they appear (httpx and PTB put the token in request URLs)."""

    def __init__(self, secrets: list[str]) -> None:
        super().__init__()
        self.secrets = [s for s in secrets if s]

    def _clean(self, text: str) -> str:
        for secret in self.secrets:
            text = text.replace(secret, "<secret>")
        return text

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if any(secret in message for secret in self.secrets):
            record.msg = self._clean(message)
            record.args = None
        if record.exc_info and record.exc_info[1] is not None:
            text = logging.Formatter().formatException(record.exc_info)
            if any(secret in text for secret in self.secrets):
                record.exc_text = self._clean(text)
        return True


def setup_logging(level: str, *secrets: str) -> None:
    root = logging.getLogger()
    if not root.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        root.addHandler(handler)
    root.setLevel(level)
    redact = RedactSecrets(list(secrets))
    for each in root.handlers:
        for old in [f for f in each.filters if isinstance(f, RedactSecrets)]:
            each.removeFilter(old)
        each.addFilter(redact)
    # httpx logs every request URL (with the token) at INFO; keep it to warnings.
    logging.getLogger("httpx").setLevel(logging.WARNING)
    logging.getLogger("httpcore").setLevel(logging.WARNING)
    # At DEBUG, PTB logs every API call's parameters and results: users' messages and the
    # bot's replies. Our own one-line-per-update log (bot.updates) is what operators need.
    logging.getLogger("telegram").setLevel(max(logging.getLevelName(level), logging.INFO))
    # APScheduler logs two INFO lines per job run (every minute for reminders): noise, unless
    # someone is debugging.
    logging.getLogger("apscheduler").setLevel(
        logging.DEBUG if level == "DEBUG" else logging.WARNING)
