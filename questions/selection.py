"""Which question to ask next: unseen first, then the ones missed longest ago, then the rest."""

from __future__ import annotations

import random
from collections.abc import Collection, Mapping, Sequence
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


# With a job-ad plan (/jd), about this share of questions come from the plan's topics.
PLAN_SHARE = 2 / 3


def plan_pool(pool: Sequence[Question], plan_topics: Collection[str], rng: random.Random,
              share: float = PLAN_SHARE) -> Sequence[Question]:
    """The part of `pool` to draw the next question from when the user follows a plan.

    The plan's topics get `share` of the draws, or their natural share of the pool when that is
    larger (a plan covering most topics is never weighted down); the other topics the rest.
    """
    inside = [q for q in pool if q.topic in plan_topics]
    outside = [q for q in pool if q.topic not in plan_topics]
    if not inside or not outside:
        return pool
    weight = max(share, len(inside) / len(pool))
    return inside if rng.random() < weight else outside
