"""Which question to ask next: unseen first, then the ones missed longest ago, then the rest."""

from __future__ import annotations

import random
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from domain import ratings as elo
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


def choose_adaptive(pool: Sequence[Question], seen: Mapping[str, Seen], rng: random.Random, *,
                    user_rating: float, ratings: Mapping[str, float],
                    last_topic: str | None = None) -> Question | None:
    """An unseen question whose predicted chance of a right answer sits in the band.

    `ratings` holds the questions rated so far (others count at their level's prior). With
    `last_topic` (a plain /quiz), another topic comes next when one has unseen questions, so
    topics interleave instead of running one dry. Nothing in the band: the closest to it. Nothing
    unseen: `choose_next` (the missed ones first, the oldest first).
    """
    unseen = [q for q in pool if q.id not in seen]
    if not unseen:
        return choose_next(pool, seen, rng)
    if last_topic is not None:
        unseen = [q for q in unseen if q.topic != last_topic] or unseen
    # Unrated questions share their level's prior: one chance per (level, difficulty).
    priors: dict[tuple[str, int | None], float] = {}
    chance: dict[str, float] = {}
    for q in unseen:
        rating = ratings.get(q.id)
        if rating is not None:
            chance[q.id] = elo.expected(user_rating, rating)
            continue
        prior = (q.seniority, q.difficulty)
        if prior not in priors:
            priors[prior] = elo.expected(user_rating, elo.question_prior(*prior))
        chance[q.id] = priors[prior]
    low, high = elo.BAND
    in_band = [q for q in unseen if low <= chance[q.id] <= high]
    if in_band:
        return rng.choice(in_band)
    return min(unseen, key=lambda q: (elo.band_distance(chance[q.id]), rng.random()))


def last_topic(seen: Mapping[str, Seen], questions: Mapping[str, Question]) -> str | None:
    """The topic of the question answered last, if it is still in the bank."""
    if not seen:
        return None
    latest = max(seen, key=lambda qid: seen[qid].last_answered_at)
    question = questions.get(latest)
    return question.topic if question else None


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
