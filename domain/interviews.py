"""Mock interviews: which questions to ask, and the report at the end.

The composer spreads questions across topics, mixes difficulties and avoids what the user saw in
their previous interview; the report turns the answers into a score, a verdict and timings.
"""

from __future__ import annotations

import random
import statistics
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from questions.model import LEVELS, Question

SIZE = 20
PER_TOPIC = 4
EXPIRES_AFTER = timedelta(hours=24)
SLOWEST_SHOWN = 3
# "Slowest answers" lists only answers this much slower than the median, and only when it picks
# some out of more: three answers of 20 s each, or all of two, say nothing.
SLOW_FACTOR = 1.5
# Score bands (percent right of answered): below CLOSE "not yet", below READY "close", else "ready".
CLOSE_PERCENT = 60
READY_PERCENT = 80
DIFFICULTY_CYCLE = (1, 2, 3)
# A handful of answers says little: an interview stopped early gets a verdict, and is compared
# with another, only from this many answers on (a shorter interview only when all are answered).
VERDICT_MIN_ANSWERS = 10


def neighbour_levels(level: str) -> list[str]:
    """The levels next to `level`, nearest first: where to borrow from when a level runs short."""
    if level not in LEVELS:
        return []
    index = LEVELS.index(level)
    return [LEVELS[i] for i in (index - 1, index + 1) if 0 <= i < len(LEVELS)]


def compose(primary: Sequence[Question], *, rng: random.Random, exclude: Collection[str] = (),
            backup: Sequence[Question] = (), size: int = SIZE,
            per_topic: int = PER_TOPIC) -> list[Question]:
    """Up to `size` questions: at most `per_topic` from one topic, difficulties taking turns.

    `primary` is the user's field and level; `backup` (neighbouring levels) is used only when the
    primary pool, after leaving out `exclude` (the last interview) and the topic cap, runs short.
    """
    picked: list[Question] = []
    per: Counter[str] = Counter()
    for pool in (primary, backup):
        taken = {q.id for q in picked}
        remaining = [q for q in pool if q.id not in exclude and q.id not in taken]
        rng.shuffle(remaining)
        while len(picked) < size:
            open_ = [q for q in remaining if per[q.topic] < per_topic]
            if not open_:
                break
            # The least-used topic first keeps the spread even; then the difficulty whose turn it is.
            fewest = min(per[q.topic] for q in open_)
            open_ = [q for q in open_ if per[q.topic] == fewest]
            want = DIFFICULTY_CYCLE[len(picked) % len(DIFFICULTY_CYCLE)]
            choice = min(open_, key=lambda q: abs(q.difficulty - want))
            picked.append(choice)
            per[choice.topic] += 1
            remaining.remove(choice)
    return picked


def is_expired(started_at: datetime, now: datetime) -> bool:
    return now - started_at >= EXPIRES_AFTER


def percent(correct: int, answered: int) -> int:
    return round(100 * correct / answered) if answered else 0


def enough_for_verdict(answered: int, total: int) -> bool:
    """Whether `answered` answers out of `total` planned can carry a verdict or a comparison."""
    return answered > 0 and answered >= min(VERDICT_MIN_ANSWERS, total)


def verdict(correct: int, answered: int) -> str:
    """"not-yet", "close" or "ready", compared exactly (79.9% is still "close")."""
    if correct * 100 < CLOSE_PERCENT * answered:
        return "not-yet"
    if correct * 100 < READY_PERCENT * answered:
        return "close"
    return "ready"


@dataclass(frozen=True)
class Result:
    """One answered interview question."""

    position: int
    question_id: str
    topic: str
    chosen: str
    is_correct: bool
    elapsed_ms: int | None


@dataclass(frozen=True)
class TopicResult:
    topic: str
    answered: int
    correct: int


@dataclass(frozen=True)
class Previous:
    answered: int
    correct: int
    ended_at: datetime

    @property
    def percent(self) -> int:
        return percent(self.correct, self.answered)


@dataclass(frozen=True)
class Report:
    total: int  # questions planned
    answered: int
    correct: int
    verdict: str | None  # None: too few answers to say (the score is shown, no readiness claim)
    by_topic: list[TopicResult]  # weakest first
    median_ms: float | None
    slowest: list[Result]
    mistakes: list[Result]
    previous: Previous | None  # only an earlier interview that had enough answers

    @property
    def percent(self) -> int:
        return percent(self.correct, self.answered)

    @property
    def enough(self) -> bool:
        return enough_for_verdict(self.answered, self.total)

    @property
    def comparable(self) -> bool:
        """Compared with the previous interview only when both had enough answers."""
        return self.previous is not None and self.enough

    @property
    def complete(self) -> bool:
        return self.answered >= self.total

    @property
    def change(self) -> int | None:
        """Points gained (or lost) since the previous interview."""
        return self.percent - self.previous.percent if self.previous and self.comparable else None


def report(results: Iterable[Result], *, total: int, previous: Previous | None = None) -> Report:
    rows = sorted(results, key=lambda r: r.position)
    correct = sum(r.is_correct for r in rows)
    topics: dict[str, list[int]] = {}
    for r in rows:
        counts = topics.setdefault(r.topic, [0, 0])
        counts[0] += 1
        counts[1] += int(r.is_correct)
    by_topic = sorted((TopicResult(t, a, c) for t, (a, c) in topics.items()),
                      key=lambda t: (t.correct / t.answered, -t.answered, t.topic))
    timed = [(r.elapsed_ms, r) for r in rows if r.elapsed_ms is not None]
    median = statistics.median(ms for ms, _ in timed) if timed else None
    slowest = [r for ms, r in sorted(timed, key=lambda t: (-t[0], t[1].position))
               if median is not None and ms >= SLOW_FACTOR * median][:SLOWEST_SHOWN]
    return Report(total=total, answered=len(rows), correct=correct,
                  verdict=(verdict(correct, len(rows))
                           if enough_for_verdict(len(rows), total) else None),
                  by_topic=by_topic, median_ms=median,
                  slowest=slowest if len(timed) > SLOWEST_SHOWN else [],
                  mistakes=[r for r in rows if not r.is_correct], previous=previous)
