"""Plain-Python domain: streaks, selection, grading, callback data."""

import random
from datetime import UTC, date, datetime

import pytest

from bot import callbacks
from domain import progress, streaks
from domain.grading import grade
from questions.selection import Seen, choose_next


def test_streak_advances_on_consecutive_days_only():
    d = date(2026, 3, 10)
    assert streaks.advance(None, 0, 0, d) == (1, 1)
    assert streaks.advance(d, 1, 1, d) == (1, 1)
    assert streaks.advance(date(2026, 3, 9), 4, 4, d) == (5, 5)
    assert streaks.advance(date(2026, 3, 7), 4, 6, d) == (1, 6)


def test_current_streak_expires_after_a_missed_day():
    assert streaks.current(date(2026, 3, 9), 5, date(2026, 3, 10)) == 5
    assert streaks.current(date(2026, 3, 8), 5, date(2026, 3, 10)) == 0
    assert streaks.current(None, 0, date(2026, 3, 10)) == 0


def test_local_day_uses_the_users_zone():
    late = datetime(2026, 3, 10, 22, 30, tzinfo=UTC)
    assert streaks.local_day(late, streaks.zone(None, "tr")) == date(2026, 3, 11)
    assert streaks.local_day(late, streaks.zone(None, "en")) == date(2026, 3, 10)
    assert streaks.zone("Not/AZone").key == "UTC"


def test_milestones_fire_once():
    assert streaks.milestone_reached(2, 3) == 3
    assert streaks.milestone_reached(3, 3) is None
    assert streaks.milestone_reached(4, 5) is None


def test_selection_unseen_first_then_oldest_wrong(test_bank):
    pool = test_bank.pool("backend", "junior")
    rng = random.Random(1)
    seen = {"test-cache-001": Seen(True, 100), "test-cache-002": Seen(False, 300)}
    assert choose_next(pool, seen, rng).id == "test-queue-001"
    seen["test-queue-001"] = Seen(False, 200)
    assert choose_next(pool, seen, rng).id == "test-queue-001"
    seen["test-queue-001"] = Seen(True, 200)
    assert choose_next(pool, seen, rng).id == "test-cache-002"
    assert choose_next([], {}, rng) is None


def test_grading(test_bank):
    q = test_bank.questions["test-cache-001"]
    assert grade(q, "b").is_correct
    assert not grade(q, "a").is_correct
    assert grade(q, "z") is None


def test_percent_and_weakest():
    class T:
        def __init__(self, a, c):
            self.answered, self.correct = a, c

    rows = [T(10, 9), T(4, 1), T(1, 0), T(5, 5), T(8, 2)]
    assert [(r.answered, r.correct) for r in progress.weakest(rows)] == [(8, 2), (4, 1), (10, 9)]
    assert progress.percent(1, 3) == 33 and progress.percent(0, 0) == 0


def test_callback_data_round_trip_and_limits():
    data = callbacks.encode(callbacks.ANSWER, "0123456789", "c", 1234567890123)
    assert len(data.encode()) <= 64
    parsed = callbacks.decode(data)
    assert parsed.kind == "a" and parsed.args == ("0123456789", "c", "1234567890123")
    for junk in (None, "", "v0:a:x", "garbage", "v1:", "v1:a:\x00", "x" * 65, "v1:a:😀"):
        assert callbacks.decode(junk) is None
    with pytest.raises(ValueError):
        callbacks.encode("n", "x" * 70)
    with pytest.raises(ValueError):
        callbacks.encode("n", "a:b")
