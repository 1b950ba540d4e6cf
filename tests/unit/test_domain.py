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
    data = callbacks.Answer("0123456789", "c", 123456789012, "t").encode()
    assert len(data.encode()) <= 64
    parsed = callbacks.decode(data)
    assert parsed.kind == "a" and parsed.args == ("0123456789", "c", "123456789012", "t")
    assert callbacks.Answer.parse(data) == callbacks.Answer("0123456789", "c", 123456789012, "t")
    # A middle field left out is written empty and read back as None.
    assert callbacks.Answer.parse(callbacks.Answer("0123456789", "a", None, "t").encode()) \
        == callbacks.Answer("0123456789", "a", None, "t")
    assert callbacks.Answer.parse(callbacks.Answer("0123456789", "a").encode()).owner is None
    for junk in (None, "", "v0:a:x", "garbage", "v1:", "v1:a:\x00", "x" * 65, "v1:a:😀"):
        assert callbacks.decode(junk) is None
    with pytest.raises(ValueError):
        callbacks.encode("n", "x" * 70)
    with pytest.raises(ValueError):
        callbacks.encode("n", "a:b")


@pytest.mark.parametrize("data", [
    "v1:g:" + "9" * 40 + ":0:a",       # a 40-digit round id: never reaches SQLite
    "v1:g:1:\u00b2:a",                 # superscript digit: isdigit() but not int()
    "v1:g:1:0:z",                      # no such option
    "v1:g:1:0",                        # a field missing
    "v1:g:1:0:a:extra",                # a field too many
    "v1:a:0123456789:a:-5",            # negative owner
    "v1:a:XYZ:a",                      # not a question key
    "v1:ix:stop:1",                    # unknown action
    "v1:d:yes:12a",                    # owner not a number
    "v1:r:2561",                       # no such time
    "v1:l:de",                         # no such language
    "v1:fl:0123456789:spam",           # no such report reason
    "v1:fx:x:1",                       # neither fixed nor dismissed
    "v1:vn:expert",                    # no such level
    "v1:a:0123456789:a:::ag",          # not an order of options
    "v1:rv:0123456789:a:abcdefa",      # an order too long
    "v1:mk:0123456789:a:AB",           # an order in capitals
    "v1:gu:-1",                        # not an answer id
])
def test_callback_schemas_refuse_what_our_buttons_never_carry(data):
    assert all(kind.parse(data) is None for kind in callbacks.KINDS)


def test_every_callback_kind_round_trips_within_64_bytes():
    samples = [
        callbacks.LanguageChoice("tr"), callbacks.FieldChoice("qa-test-automation"),
        callbacks.LevelChoice("senior"), callbacks.Answer("0123456789", "d", 999999999999, "t"),
        callbacks.Answer("0123456789", "f", 999999999999, "t", "fedcba"),
        callbacks.Answer("0123456789", "b", None, None, "cabd"),
        callbacks.Next("a" * 48), callbacks.Next(), callbacks.ReminderChoice("0730"),
        callbacks.TimezoneChoice.of("America/Argentina/ComodRivadavia"),
        callbacks.InterviewAnswer(999999999999, 19, "b"),
        callbacks.InterviewAction("m", 999999999999, 19), callbacks.InterviewAction("n"),
        callbacks.Review("0123456789", "a"), callbacks.Review(),
        callbacks.Review("0123456789", "f", "fedcba"), callbacks.Mistake(),
        callbacks.Mistake("0123456789", "f", "fedcba"), callbacks.Guessed(999999999999),
        callbacks.DeleteMe("yes", 999999999999), callbacks.JobMatchAction("u", 1, 4),
        callbacks.JobMatchField(999999999999, 11), callbacks.RoundAnswer(999999999999, 19, "c"),
        callbacks.Flag("0123456789"), callbacks.Flag("0123456789", "outdated"),
        callbacks.FlagResolve("d", 999999999999), callbacks.LevelNotYet("mid"),
        callbacks.SharedAnswer("0123456789", "f", "tr", "fedcba"),
    ]
    for sample in samples:
        data = sample.encode()
        assert len(data.encode()) <= callbacks.MAX_BYTES, data
        assert type(sample).parse(data) == sample
    assert {type(s) for s in samples} == set(callbacks.KINDS)
