"""The one parser for numbers a user types: ASCII digits only.

`str.isdigit()` accepts superscripts and other scripts' digits that `int()` refuses or reads
differently, so every number read from user text goes through `parse_number` instead.
"""

from __future__ import annotations

ASCII_DIGITS = frozenset("0123456789")
MAX_DIGITS = 12  # more than any count, time or id the bot reads from text


def parse_number(text: str, *, max_digits: int = MAX_DIGITS) -> int | None:
    """`text` as a non-negative int when it is 1 to `max_digits` ASCII digits, else None."""
    if not text or len(text) > max_digits or not set(text) <= ASCII_DIGITS:
        return None
    return int(text)
