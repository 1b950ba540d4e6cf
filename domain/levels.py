"""When to suggest the next level: the user's rating predicts a score there inside the band
(domain/ratings.py), on enough answers; at most once per level."""

from __future__ import annotations

from domain import ratings
from questions.model import LEVELS


def next_level(level: str) -> str | None:
    index = LEVELS.index(level) if level in LEVELS else -1
    return LEVELS[index + 1] if 0 <= index < len(LEVELS) - 1 else None


def suggestion(level: str, *, predicted: float, rated_answers: int,
               already_suggested: bool) -> str | None:
    """The level to suggest after an answer at `level`, or None (suggested at most once).

    `predicted` is the user's predicted chance of a right answer at the next level.
    """
    if already_suggested or not ratings.ready_for_next(predicted, rated_answers):
        return None
    return next_level(level)
