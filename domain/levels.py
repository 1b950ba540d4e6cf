"""When to suggest the next level: enough answers at the current one, answered well enough."""

from __future__ import annotations

from questions.model import LEVELS

MIN_ANSWERS = 40
MIN_ACCURACY_PERCENT = 85


def next_level(level: str) -> str | None:
    index = LEVELS.index(level) if level in LEVELS else -1
    return LEVELS[index + 1] if 0 <= index < len(LEVELS) - 1 else None


def suggestion(level: str, answered: int, correct: int, *, already_suggested: bool) -> str | None:
    """The level to suggest after an answer at `level`, or None (suggested at most once)."""
    if already_suggested or answered < MIN_ANSWERS:
        return None
    if correct * 100 < MIN_ACCURACY_PERCENT * answered:
        return None
    return next_level(level)
