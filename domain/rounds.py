"""Group quiz rounds as plain Python: arguments, question choice, the round's state machine,
scoring with a speed bonus, shared ranks, leaderboard weeks and the per-chat send budget."""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, time, timedelta, tzinfo
from typing import TypeVar

from domain.numbers import parse_number

MIN_QUESTIONS, MAX_QUESTIONS, DEFAULT_QUESTIONS = 1, 20, 5
MAX_SECONDS, DEFAULT_SECONDS = 120, 30
# Points are kept in hundredths so sums are exact: 1 point for a right answer, plus up to 0.5
# for speed, falling linearly from an instant answer to one at the deadline.
RIGHT_POINTS = 100
MAX_SPEED_BONUS = 50
# A question costs three sends/edits (question, reveal edit, results message); the countdown
# edits are optional and only made when the budget has room for them and those three.
QUESTION_COST = 3


# -- /round arguments -------------------------------------------------------------------------

@dataclass(frozen=True)
class RoundRequest:
    count: int
    seconds: int
    topic: str | None = None


class BadRoundArgs(ValueError):
    """The arguments of /round are not `[N] [seconds] [topic]` within the valid ranges."""


def seconds_range(min_seconds: int) -> tuple[int, int]:
    low = min(min_seconds, MAX_SECONDS)
    return low, MAX_SECONDS


def parse_round_args(args: Sequence[str], *, min_seconds: int) -> RoundRequest:
    """`[N] [seconds] [topic]`: numbers in that order, `45s` for seconds alone, one topic word."""
    low, high = seconds_range(min_seconds)
    numbers: list[int] = []
    seconds: int | None = None
    topic: str | None = None
    for arg in args:
        word = arg.strip().lower()
        number = parse_number(word)
        if number is not None:
            numbers.append(number)
        elif word.endswith("s") and parse_number(word[:-1]) is not None and seconds is None:
            seconds = parse_number(word[:-1])
        elif topic is None and word and not word[0].isdigit() and not word.startswith("-"):
            topic = word
        else:
            raise BadRoundArgs(arg)
    if len(numbers) > 2 or (len(numbers) == 2 and seconds is not None):
        raise BadRoundArgs(" ".join(args))
    count = numbers[0] if numbers else DEFAULT_QUESTIONS
    if len(numbers) == 2:
        seconds = numbers[1]
    if seconds is None:
        seconds = min(max(DEFAULT_SECONDS, low), high)
    if not MIN_QUESTIONS <= count <= MAX_QUESTIONS or not low <= seconds <= high:
        raise BadRoundArgs(" ".join(args))
    return RoundRequest(count, seconds, topic)


# -- choosing questions -----------------------------------------------------------------------

T = TypeVar("T")
K = TypeVar("K", bound=Hashable)


def pick_questions(pools: Sequence[Sequence[T]], count: int, rng: random.Random, *,
                   key: Callable[[T], K], recent: Iterable[K] = ()) -> list[T]:
    """`count` distinct items, from the first pool before the wider ones after it; within a
    pool, items the group has not had recently come first. Fewer when the pools run out."""
    recently = set(recent)
    chosen: list[T] = []
    taken: set[K] = set()
    for pool in pools:
        fresh = [q for q in pool if key(q) not in taken and key(q) not in recently]
        stale = [q for q in pool if key(q) not in taken and key(q) in recently]
        rng.shuffle(fresh)
        rng.shuffle(stale)
        for item in fresh + stale:
            if len(chosen) == count:
                return chosen
            chosen.append(item)
            taken.add(key(item))
    return chosen


# -- the round's state machine ----------------------------------------------------------------

@dataclass(frozen=True)
class QuestionState:
    """One question of a round as stored. Times are unix milliseconds.

    pending (nothing set) -> open (opened, deadline, message) -> closed (no more taps)
    -> reported (answer shown, results posted). The round moves on once a question is reported.
    """

    position: int
    question_id: str
    message_id: int | None = None
    opened_at_ms: int | None = None
    deadline_ms: int | None = None
    closed_at_ms: int | None = None
    reported_at_ms: int | None = None

    @property
    def is_live(self) -> bool:
        return self.message_id is not None and self.opened_at_ms is not None

    def accepts_taps(self, now_ms: int) -> bool:
        # Not `is_live`: a tap may arrive before the sent message's id is stored.
        return (self.opened_at_ms is not None and self.closed_at_ms is None
                and self.deadline_ms is not None and now_ms < self.deadline_ms)


@dataclass(frozen=True)
class Open:
    """Send question `position` once `due_ms` has come."""

    position: int
    due_ms: int


@dataclass(frozen=True)
class AwaitDeadline:
    position: int
    deadline_ms: int


@dataclass(frozen=True)
class Reveal:
    """Close question `position` (if still open), show its answer and post the results."""

    position: int


@dataclass(frozen=True)
class Finish:
    pass


Step = Open | AwaitDeadline | Reveal | Finish


def next_step(questions: Sequence[QuestionState], *, now_ms: int, pause_ms: int) -> Step:
    """What a running round does next. The same answer after a restart as before it, so the
    bot resumes a question whose time has not run out and reveals one whose time has."""
    previous: QuestionState | None = None
    for question in sorted(questions, key=lambda q: q.position):
        if question.reported_at_ms is not None:
            previous = question
            continue
        if question.closed_at_ms is not None:
            return Reveal(question.position)
        if not question.is_live:
            # Never sent (or sent but not recorded before a crash): send it (again).
            due = (previous.reported_at_ms + pause_ms) if previous and previous.reported_at_ms \
                else now_ms
            return Open(question.position, due)
        assert question.deadline_ms is not None
        if now_ms < question.deadline_ms:
            return AwaitDeadline(question.position, question.deadline_ms)
        return Reveal(question.position)
    return Finish()


def tick_times(opened_at_ms: int, deadline_ms: int, every_seconds: int) -> list[int]:
    """When to refresh the countdown: each time the seconds left are a multiple of `every`."""
    if every_seconds <= 0:
        return []
    every = every_seconds * 1000
    left = ((deadline_ms - opened_at_ms - 1) // every) * every
    times = []
    while left > 0:
        times.append(deadline_ms - left)
        left -= every
    return times


def seconds_left(deadline_ms: int, now_ms: int) -> int:
    return max(0, round((deadline_ms - now_ms) / 1000))


# -- scoring and ranking ------------------------------------------------------------------------

def points(is_correct: bool, elapsed_ms: int, seconds: int) -> int:
    """Hundredths of a point: 100 for a right answer plus a speed bonus of up to 50."""
    if not is_correct:
        return 0
    window = max(seconds * 1000, 1)
    share = 1 - min(max(elapsed_ms, 0), window) / window
    return RIGHT_POINTS + int(MAX_SPEED_BONUS * share + 0.5)  # half up, not to even


@dataclass(frozen=True)
class Standing:
    """A player's total: in one round (`right`), or over many (`rounds`)."""

    user_id: int
    name: str
    points: int
    right: int = 0
    rounds: int = 0


def ranked(standings: Iterable[Standing]) -> list[tuple[int, Standing]]:
    """Highest points first (then more right answers); equal totals share a rank (1, 1, 3)."""
    order = sorted(standings, key=lambda s: (-s.points, -s.right, s.name.casefold(), s.user_id))
    result: list[tuple[int, Standing]] = []
    for index, standing in enumerate(order):
        if result and (result[-1][1].points, result[-1][1].right) == (standing.points,
                                                                     standing.right):
            rank = result[-1][0]
        else:
            rank = index + 1
        result.append((rank, standing))
    return result


def week_start(now: datetime, tz: tzinfo) -> datetime:
    """The start of the leaderboard week containing `now`: Monday 00:00 in `tz`, as UTC."""
    local = now.astimezone(tz)
    monday = local.date() - timedelta(days=local.weekday())
    return datetime.combine(monday, time(0), tzinfo=tz).astimezone(now.tzinfo)


# -- the send budget ----------------------------------------------------------------------------

class SendBudget:
    """Sends and edits to one group in the last minute, kept under a budget below Telegram's
    20 a minute, so a round never makes the rate limiter wait. `clock` is monotonic seconds:
    this measures real elapsed time for Telegram, not the bot's business clock."""

    WINDOW = 60.0

    def __init__(self, per_minute: int, clock: Callable[[], float]) -> None:
        self.per_minute = per_minute
        self.clock = clock
        self._sent: deque[float] = deque()

    def _expire(self, now: float) -> None:
        while self._sent and now - self._sent[0] >= self.WINDOW:
            self._sent.popleft()

    def spend(self, count: int = 1) -> None:
        now = self.clock()
        self._expire(now)
        self._sent.extend([now] * count)

    def room(self) -> int:
        self._expire(self.clock())
        return self.per_minute - len(self._sent)

    def wait_for(self, count: int) -> float:
        """Seconds until `count` more sends fit in the window (0 when they fit now)."""
        now = self.clock()
        self._expire(now)
        excess = len(self._sent) + count - self.per_minute
        if excess <= 0:
            return 0.0
        if excess > len(self._sent):
            return self.WINDOW
        return max(0.0, self._sent[excess - 1] + self.WINDOW - now)
