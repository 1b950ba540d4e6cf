"""Which question to ask next: unseen first, then the ones missed longest ago, then the rest."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from questions.model import Question


@dataclass(frozen=True)
class Seen:
    last_is_correct: bool
    last_answered_at: int


def choose_next(pool: Sequence[Question], seen: Mapping[str, Seen], rng: random.Random,
                exclude: set[str] | frozenset[str] = frozenset()) -> Question | None:
    candidates = [q for q in pool if q.id not in exclude] or list(pool)
    if not candidates:
        return None
    unseen = [q for q in candidates if q.id not in seen]
    if unseen:
        return rng.choice(unseen)
    # Wrong answers come back before right ones; within each, the oldest first.
    return min(candidates, key=lambda q: (seen[q.id].last_is_correct, seen[q.id].last_answered_at))
