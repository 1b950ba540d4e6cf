"""Logging set-up: one line per event, and the bot token never printed."""

from __future__ import annotations

import logging


class RedactToken(logging.Filter):
    """Replaces the token wherever it appears (httpx and PTB put it in request URLs)."""

    def __init__(self, token: str) -> None:
        super().__init__()
        self.token = token

    def filter(self, record: logging.LogRecord) -> bool:
        if not self.token:
            return True
        message = record.getMessage()
        if self.token in message:
            record.msg = message.replace(self.token, "<token>")
            record.args = None
        if record.exc_info and record.exc_info[1] is not None:
            text = str(record.exc_info[1])
            if self.token in text:
                record.exc_text = logging.Formatter().formatException(record.exc_info).replace(
                    self.token, "<token>")
        return True


def setup_logging(level: str, token: str) -> None:
    root = logging.getLogger()
    if not root.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        root.addHandler(handler)
    root.setLevel(level)
    redact = RedactToken(token)
    for handler in root.handlers:
        if not any(isinstance(f, RedactToken) for f in handler.filters):
            handler.addFilter(redact)
    # httpx logs every request URL (with the token) at INFO; keep it to warnings.
    logging.getLogger("httpx").setLevel(logging.WARNING)
    logging.getLogger("httpcore").setLevel(logging.WARNING)
