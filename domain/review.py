"""Spaced review with FSRS: how an answer rates a card, the user's pace, and when cards come back.

Every answered question is an fsrs Card; each answer reviews it. Wrong is Again; right is Good,
or Easy when much faster than the user's usual pace, or Hard when much slower.
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from fsrs import Card, Rating, ReviewLog, Scheduler

# A missed question comes back ten minutes later, then on FSRS's schedule (days, then longer).
SCHEDULER = Scheduler(learning_steps=(timedelta(minutes=10),),
                      relearning_steps=(timedelta(minutes=10),))
PACE_WINDOW = 50  # the median is over the user's last answers, so it follows them as they improve
PACE_MIN_SAMPLES = 5  # below this, a right answer is simply Good
REVIEW_SHARE = 1 / 3  # in /quiz, about one question in three is a due review when any are due


def median_ms(recent: Sequence[int]) -> float | None:
    """The user's median answer time, or None until there are enough answers to trust it."""
    return statistics.median(recent) if len(recent) >= PACE_MIN_SAMPLES else None


def remember_time(recent: Sequence[int], elapsed_ms: int) -> list[int]:
    """The pace window after one more answer (oldest dropped)."""
    return [*recent, elapsed_ms][-PACE_WINDOW:]


def rating_for(is_correct: bool, elapsed_ms: int | None, median: float | None) -> Rating:
    """Again when wrong; when right, Easy under a third of the median, Hard over twice it."""
    if not is_correct:
        return Rating.Again
    if elapsed_ms is None or median is None:
        return Rating.Good
    if elapsed_ms < median / 3:
        return Rating.Easy
    if elapsed_ms > median * 2:
        return Rating.Hard
    return Rating.Good


def new_card(card_id: int, now: datetime) -> Card:
    # card_id and due are given: fsrs would otherwise read the wall clock (and sleep 1 ms).
    return Card(card_id=card_id, due=now)


def review(card: Card, rating: Rating, now: datetime,
           duration_ms: int | None = None) -> tuple[Card, ReviewLog]:
    return SCHEDULER.review_card(card, rating, review_datetime=now.astimezone(UTC),
                                 review_duration=duration_ms)


def mix_in_review(rng: random.Random) -> bool:
    """Whether this /quiz question should be a due review (when one is due)."""
    return rng.random() < REVIEW_SHARE


def wait_until(due: datetime, now: datetime) -> tuple[str, int]:
    """How long until `due` in the largest unit that reads well: ("minutes"|"hours"|"days", n)."""
    seconds = max(0, (due - now).total_seconds())
    if seconds < 3570:
        return "minutes", max(1, round(seconds / 60))
    if seconds < 23.5 * 3600:
        return "hours", round(seconds / 3600)
    return "days", round(seconds / 86400)


def rerated(card_id: int, reviews: Sequence[tuple[Rating, datetime, int | None]],
            rating: Rating) -> Card:
    """The card as if its last review had been rated `rating` (a right answer marked as a
    guess is Hard, not Good): its reviews replayed from a new card, the last one re-rated."""
    card = new_card(card_id, reviews[0][1])
    for index, (given, at, duration) in enumerate(reviews):
        card, _ = review(card, rating if index == len(reviews) - 1 else given, at, duration)
    return card
