"""The interview composer and the report arithmetic, as plain Python."""

import random
from collections import Counter
from datetime import UTC, datetime, timedelta

from domain import interviews as interview
from domain.interviews import Previous, Result
from questions.model import Question


def q(qid: str, topic: str, difficulty: int = 1, level: str = "junior") -> Question:
    return Question(id=qid, seniority=level, difficulty=difficulty, correct="a", field="backend",
                    topic=topic, en={"body": "?", "options": {"a": "x", "b": "y"},
                                     "explanation": "because"})


def bank(topics: int, per_topic: int, level: str = "junior") -> list[Question]:
    return [q(f"{level}-t{t}-{i}", f"t{t}", difficulty=1 + i % 3, level=level)
            for t in range(topics) for i in range(per_topic)]


def test_twenty_questions_spread_over_topics_with_mixed_difficulty():
    picked = interview.compose(bank(6, 8), rng=random.Random(1))
    assert len(picked) == 20 and len({x.id for x in picked}) == 20
    per_topic = Counter(x.topic for x in picked)
    assert max(per_topic.values()) <= 4 and len(per_topic) == 6
    assert set(Counter(x.difficulty for x in picked)) == {1, 2, 3}
    assert min(Counter(x.difficulty for x in picked).values()) >= 5


def test_no_question_from_the_last_interview_even_when_the_level_runs_short():
    junior, mid = bank(6, 4), bank(6, 4, level="mid")
    first = interview.compose(junior, rng=random.Random(2), backup=mid)
    second = interview.compose(junior, rng=random.Random(3), backup=mid,
                               exclude={x.id for x in first})
    assert len(second) == 20
    assert not {x.id for x in first} & {x.id for x in second}
    # The user's own level comes first; the neighbouring level only fills the gap.
    assert sum(x.seniority == "junior" for x in second) == 24 - 20
    assert max(Counter(x.topic for x in second).values()) <= 4


def test_few_topics_give_a_shorter_interview_rather_than_breaking_the_cap():
    picked = interview.compose(bank(3, 10), rng=random.Random(4))
    assert len(picked) == 12
    assert set(Counter(x.topic for x in picked).values()) == {4}


def test_neighbour_levels():
    assert interview.neighbour_levels("junior") == ["mid"]
    assert interview.neighbour_levels("mid") == ["junior", "senior"]
    assert interview.neighbour_levels("senior") == ["mid"]
    assert interview.neighbour_levels("guru") == []


def test_verdict_bands_are_exact():
    assert interview.verdict(11, 20) == "not-yet"  # 55%
    assert interview.verdict(12, 20) == "close"  # 60%
    assert interview.verdict(79, 100) == "close"
    assert interview.verdict(16, 20) == "ready"  # 80%


def result(pos, topic, right, ms):
    return Result(pos, f"q{pos}", topic, "a" if right else "b", right, ms)


def test_report_arithmetic():
    results = [result(0, "db", True, 10_000), result(1, "db", False, 40_000),
               result(2, "http", True, 20_000), result(3, "http", True, 5_000),
               result(4, "cache", False, 30_000)]
    before = Previous(answered=10, correct=5, ended_at=datetime(2026, 3, 1, tzinfo=UTC))
    report = interview.report(results, total=20, previous=before)
    assert (report.answered, report.correct, report.percent) == (5, 3, 60)
    # Stopped after 5 of 20: the partial score, but no readiness verdict and no comparison.
    assert report.verdict is None and not report.complete and not report.enough
    assert [(t.topic, t.answered, t.correct) for t in report.by_topic] == [
        ("cache", 1, 0), ("db", 2, 1), ("http", 2, 2)]
    assert report.median_ms == 20_000
    # Only answers well over the median (20 s) are "slowest": 40 s and 30 s, not 20 s.
    assert [r.position for r in report.slowest] == [1, 4]
    even = [result(i, "db", True, 20_000 + i) for i in range(6)]
    assert interview.report(even, total=6).slowest == []  # nobody stands out
    assert interview.report(results[:3], total=3).slowest == []  # too few to pick from
    assert [r.position for r in report.mistakes] == [1, 4]
    assert report.previous.percent == 50 and report.change is None and not report.comparable


def test_a_stopped_interview_gets_a_verdict_from_ten_answers():
    before = Previous(answered=10, correct=5, ended_at=datetime(2026, 3, 1, tzinfo=UTC))
    nine = [result(i, "db", i % 3 != 0, None) for i in range(9)]
    assert interview.report(nine, total=20, previous=before).verdict is None
    ten = [*nine, result(9, "db", True, None)]
    report = interview.report(ten, total=20, previous=before)
    assert (report.correct, report.percent, report.verdict) == (7, 70, "close")
    assert report.comparable and report.change == 20
    # A short interview answered in full carries a verdict with fewer answers.
    assert interview.report(nine[:5], total=5).verdict == "close"
    assert interview.enough_for_verdict(10, 20) and not interview.enough_for_verdict(9, 20)
    assert interview.enough_for_verdict(3, 3) and not interview.enough_for_verdict(0, 0)


def test_report_of_one_untimed_answer():
    report = interview.report([Result(0, "q", "t", "a", True, None)], total=1)
    assert report.complete and report.percent == 100 and report.verdict == "ready"
    assert report.median_ms is None and report.slowest == [] and report.change is None


def test_interviews_expire_after_a_day():
    start = datetime(2026, 3, 10, 9, tzinfo=UTC)
    assert not interview.is_expired(start, start + timedelta(hours=23, minutes=59))
    assert interview.is_expired(start, start + timedelta(hours=24))
