"""Group rounds as plain Python: arguments, choice, the state machine, scoring, ranks, weeks,
and the send budget, with an injected clock."""

import random
from datetime import UTC, datetime

import pytest

from domain import rounds
from domain.rounds import (
    AwaitDeadline,
    BadRoundArgs,
    Finish,
    Open,
    QuestionState,
    Reveal,
    SendBudget,
    Standing,
)
from domain.streaks import zone


def test_round_arguments_defaults_order_and_topic():
    parse = rounds.parse_round_args
    assert parse([], min_seconds=10) == rounds.RoundRequest(5, 30, None)
    assert parse(["3"], min_seconds=10) == rounds.RoundRequest(3, 30, None)
    assert parse(["3", "45"], min_seconds=10) == rounds.RoundRequest(3, 45, None)
    assert parse(["20", "10", "CSS"], min_seconds=10) == rounds.RoundRequest(20, 10, "css")
    assert parse(["http-caching", "2"], min_seconds=10) == rounds.RoundRequest(2, 30,
                                                                               "http-caching")
    assert parse(["60s"], min_seconds=10) == rounds.RoundRequest(5, 60, None)
    assert parse(["2", "1"], min_seconds=1).seconds == 1


@pytest.mark.parametrize("args", [["0"], ["21"], ["5", "9"], ["5", "121"], ["1", "2", "3"],
                                  ["-3"], ["a", "b"], ["5", "30", "40s"], ["5x"]])
def test_bad_round_arguments(args):
    with pytest.raises(BadRoundArgs):
        rounds.parse_round_args(args, min_seconds=10)


def test_pick_questions_prefers_the_first_pool_and_fresh_items():
    rng = random.Random(1)
    narrow, wide = ["a", "b"], ["a", "b", "c", "d", "e"]
    picked = rounds.pick_questions([narrow, wide], 4, rng, key=str, recent=["b", "c"])
    assert len(picked) == 4 and len(set(picked)) == 4
    assert set(picked[:2]) == {"a", "b"}  # the group's level first, even if seen recently
    assert set(picked[2:]) == {"d", "e"}  # then the unseen of the wider pool
    assert rounds.pick_questions([narrow, wide], 9, rng, key=str) != []
    assert len(rounds.pick_questions([narrow, wide], 9, rng, key=str)) == 5
    assert rounds.pick_questions([[], []], 3, rng, key=str) == []


def q(position, **kw):
    return QuestionState(position, f"q{position}", **kw)


def test_state_machine_walks_a_round():
    step = rounds.next_step
    pause = 5000
    fresh = [q(1), q(2)]
    assert step(fresh, now_ms=1000, pause_ms=pause) == Open(1, 1000)
    live = [q(1, message_id=7, opened_at_ms=1000, deadline_ms=31000), q(2)]
    assert step(live, now_ms=2000, pause_ms=pause) == AwaitDeadline(1, 31000)
    assert step(live, now_ms=31000, pause_ms=pause) == Reveal(1)
    closed = [q(1, message_id=7, opened_at_ms=1000, deadline_ms=31000, closed_at_ms=20000), q(2)]
    assert step(closed, now_ms=21000, pause_ms=pause) == Reveal(1)
    reported = [q(1, message_id=7, opened_at_ms=1000, deadline_ms=31000, closed_at_ms=31000,
                  reported_at_ms=31500), q(2)]
    assert step(reported, now_ms=32000, pause_ms=pause) == Open(2, 36500)
    done = [reported[0], q(2, message_id=8, opened_at_ms=1, deadline_ms=2, closed_at_ms=2,
                            reported_at_ms=3)]
    assert step(done, now_ms=40000, pause_ms=pause) == Finish()


def test_a_question_opened_but_never_recorded_as_sent_is_sent_again():
    crashed = [q(1, opened_at_ms=1000, deadline_ms=31000)]
    assert rounds.next_step(crashed, now_ms=2000, pause_ms=0) == Open(1, 2000)


def test_taps_count_only_while_open():
    live = q(1, message_id=7, opened_at_ms=1000, deadline_ms=31000)
    assert live.accepts_taps(30999)
    assert not live.accepts_taps(31000)
    assert not q(1, message_id=7, opened_at_ms=1000, deadline_ms=31000,
                 closed_at_ms=5000).accepts_taps(6000)
    assert not q(1).accepts_taps(0)
    # Sent but the message id not stored yet: an early tap still counts.
    assert q(1, opened_at_ms=1000, deadline_ms=31000).accepts_taps(1001)


def test_countdown_ticks_at_multiples_of_the_interval():
    assert rounds.tick_times(0, 30000, 10) == [10000, 20000]
    assert rounds.tick_times(0, 25000, 10) == [5000, 15000]
    assert rounds.tick_times(0, 10000, 10) == []
    assert rounds.tick_times(0, 30000, 0) == []
    assert rounds.seconds_left(31000, 10900) == 20


def test_points_have_a_speed_bonus_up_to_half_a_point():
    assert rounds.points(False, 0, 30) == 0
    assert rounds.points(True, 0, 30) == 150
    assert rounds.points(True, 15000, 30) == 125
    assert rounds.points(True, 30000, 30) == 100
    assert rounds.points(True, 99000, 30) == 100
    assert rounds.points(True, -5, 30) == 150


def test_ranks_are_shared_by_equal_totals():
    standings = [Standing(1, "Ada", 250, 2), Standing(2, "Bob", 300, 2),
                 Standing(3, "Cem", 250, 2), Standing(4, "Dee", 250, 1), Standing(5, "Eve", 0)]
    ranked = [(rank, s.name) for rank, s in rounds.ranked(standings)]
    assert ranked == [(1, "Bob"), (2, "Ada"), (2, "Cem"), (4, "Dee"), (5, "Eve")]
    assert rounds.ranked([]) == []


def test_week_starts_monday_midnight_in_the_groups_zone():
    wednesday = datetime(2026, 3, 11, 12, 0, tzinfo=UTC)
    assert rounds.week_start(wednesday, zone("UTC")) == datetime(2026, 3, 9, tzinfo=UTC)
    # Istanbul is UTC+3: its Monday begins on Sunday 21:00 UTC.
    assert rounds.week_start(wednesday, zone("Europe/Istanbul")) == datetime(
        2026, 3, 8, 21, 0, tzinfo=UTC)
    sunday_night = datetime(2026, 3, 8, 22, 0, tzinfo=UTC)  # already Monday in Istanbul
    assert rounds.week_start(sunday_night, zone("Europe/Istanbul")) == datetime(
        2026, 3, 8, 21, 0, tzinfo=UTC)
    assert rounds.week_start(sunday_night, zone("UTC")) == datetime(2026, 3, 2, tzinfo=UTC)


class Monotonic:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_send_budget_keeps_a_sliding_minute():
    clock = Monotonic()
    budget = SendBudget(12, clock)
    assert budget.room() == 12 and budget.wait_for(12) == 0
    budget.spend(10)
    clock.now += 20
    budget.spend(1)
    assert budget.room() == 1
    assert budget.wait_for(1) == 0
    assert budget.wait_for(3) == pytest.approx(40.0)  # when the first ten leave the window
    clock.now += 40
    assert budget.room() == 11 and budget.wait_for(3) == 0
    assert SendBudget(4, clock).wait_for(5) == 60.0


def simulate_round(seconds: int, *, budget_per_minute: int = 15, questions: int = 5,
                   pause: float = 5.0, tick_every: int = 10) -> list[float]:
    """The bot's schedule for one round, through the budget: announcement, then per question
    the send, the countdown edits the budget allows, the reveal edit and results, the pause;
    then the scoreboard. Returns the send times."""
    clock = Monotonic()
    budget = SendBudget(budget_per_minute, clock)
    sent: list[float] = []

    def send(count: int = 1) -> None:
        budget.spend(count)
        sent.extend([clock.now] * count)

    send()
    for position in range(1, questions + 1):
        if position > 1:
            clock.now += pause
        clock.now += budget.wait_for(rounds.QUESTION_COST)
        opened = clock.now
        send()
        for tick in rounds.tick_times(0, seconds * 1000, tick_every):
            clock.now = opened + tick / 1000
            if budget.room() >= 3:
                send()
        clock.now = opened + seconds
        send(2)
    clock.now += budget.wait_for(1)
    send()
    return sent


def busiest_minute(sent: list[float]) -> int:
    return max(sum(1 for t in sent if start <= t < start + 60) for start in sent)


@pytest.mark.parametrize("seconds", [10, 15, 30, 60, 120])
def test_a_five_question_round_stays_under_the_budget_whatever_the_timer(seconds):
    sent = simulate_round(seconds)
    assert busiest_minute(sent) <= 15
    assert len(sent) >= 1 + 5 * 3 + 1


def test_the_budget_does_not_slow_a_round_at_the_shortest_timer():
    """10-second questions with the 5-second pause: no question waits for the budget."""
    sent = simulate_round(10)
    assert sent[-1] - sent[0] == pytest.approx(4 * (10 + 5) + 10)
