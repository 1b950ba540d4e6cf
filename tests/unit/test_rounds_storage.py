"""Rounds in a real SQLite file: one running round per group, first taps, closing, scores."""

import asyncio
from datetime import date

import pytest

from services import rounds as round_flow
from storage import groups, rounds, users
from storage.answers import NewAnswer

# Run on SQLite and again on PostgreSQL (tests/conftest.py).
pytestmark = pytest.mark.both_databases

TODAY = date(2026, 3, 10)


def tap(user_id, chosen="b", correct=True, message_id=50, at=1000, elapsed=500):
    return NewAnswer(user_id=user_id, question_id="q1", field="backend", topic="t", level="mid",
                     chosen=chosen, is_correct=correct, answered_at=at, chat_id=-100,
                     message_id=message_id, source="group", elapsed_ms=elapsed)


async def start(db, chat_id=-100):
    return await rounds.create_round(db, chat_id=chat_id, started_by=1, language="en",
                                     seconds=30, question_ids=["q1", "q2"], now=1000)


async def test_one_running_round_per_group(db):
    first = await start(db)
    assert first is not None and first.question_count == 2
    assert await start(db) is None
    assert await start(db, chat_id=-200) is not None
    assert await rounds.end_round(db, round_id=first.id, status="finished", now=2000)
    assert not await rounds.end_round(db, round_id=first.id, status="stopped", now=2000)
    assert (await start(db)) is not None
    assert len(await rounds.running_rounds(db)) == 2


async def test_first_tap_counts_and_closing_refuses_later_ones(db):
    for uid in (1, 2, 3):
        await users.ensure_user(db, user_id=uid, first_name=f"U{uid}", language="en", now=1)
    rnd = await start(db)
    await rounds.open_question(db, round_id=rnd.id, position=1, opened_at_ms=0,
                               deadline_ms=30000)
    first = await round_flow.record_tap(db, round_id=rnd.id, position=1, answer=tap(1),
                                             points=140)
    again = await round_flow.record_tap(db, round_id=rnd.id, position=1,
                                             answer=tap(1, chosen="a", correct=False),
                                             points=0)
    assert (first.outcome, again.outcome, again.chosen) == ("recorded", "already", "b")
    await round_flow.record_tap(db, round_id=rnd.id, position=1,
                                     answer=tap(2, chosen="a", correct=False, elapsed=100),
                                     points=0)
    assert await rounds.close_question(db, round_id=rnd.id, position=1, now_ms=30000)
    assert not await rounds.close_question(db, round_id=rnd.id, position=1, now_ms=30001)
    late = await round_flow.record_tap(db, round_id=rnd.id, position=1, answer=tap(3),
                                            points=150)
    assert late.outcome == "closed"
    results = await rounds.question_results(db, round_id=rnd.id, position=1)
    assert [(r.name, r.chosen, r.points) for r in results] == [("U2", "a", 0), ("U1", "b", 140)]
    # The personal side: once each, marked as group answers.
    ada = await users.get_user(db, user_id=1)
    assert (ada.answered, ada.correct, ada.group_answered) == (1, 1, 1)
    assert (await users.get_user(db, user_id=3)).answered == 0


async def test_concurrent_taps_are_all_recorded_once(db):
    rnd = await start(db)
    await rounds.open_question(db, round_id=rnd.id, position=1, opened_at_ms=0,
                               deadline_ms=30000)
    for uid in range(1, 201):
        await users.ensure_user(db, user_id=uid, first_name=f"U{uid}", language="en", now=1)
    # Each member taps twice at once; only the first of each counts.
    outcomes = await asyncio.gather(*[
        round_flow.record_tap(db, round_id=rnd.id, position=1, answer=tap(uid), points=120) for uid in range(1, 201) for _ in range(2)])
    assert sorted(o.outcome for o in outcomes).count("recorded") == 200
    [standing] = [s for s in await rounds.round_standings(db, round_id=rnd.id) if s.user_id == 7]
    assert (standing.points, standing.right) == (120, 1)
    total = await db.fetchone("SELECT SUM(points) AS p, COUNT(*) AS n FROM round_answers")
    assert (total["p"], total["n"]) == (200 * 120, 200)
    personal = await db.fetchone("SELECT COUNT(*) AS n FROM answers WHERE source = 'group'")
    assert personal["n"] == 200


async def test_stopped_round_refuses_taps(db):
    await users.ensure_user(db, user_id=1, first_name="Ada", language="en", now=1)
    rnd = await start(db)
    await rounds.open_question(db, round_id=rnd.id, position=1, opened_at_ms=0,
                               deadline_ms=30000)
    await rounds.end_round(db, round_id=rnd.id, status="stopped", now=5)
    tapped = await round_flow.record_tap(db, round_id=rnd.id, position=1, answer=tap(1),
                                              points=150)
    assert tapped.outcome == "closed"


async def test_leaderboard_counts_points_rounds_and_the_week(db):
    for uid, name in ((1, "Ada"), (2, "Bob")):
        await users.ensure_user(db, user_id=uid, first_name=name, language="en", now=1)
    for at in (1000, 9000):
        rnd = await start(db)
        await rounds.open_question(db, round_id=rnd.id, position=1, opened_at_ms=0,
                                   deadline_ms=30000)
        await round_flow.record_tap(db, round_id=rnd.id, position=1,
                                         answer=tap(1, at=at, message_id=at), points=150)
        await round_flow.record_tap(db, round_id=rnd.id, position=1,
                                         answer=tap(2, at=at, message_id=at, correct=False),
                                         points=0)
        await rounds.end_round(db, round_id=rnd.id, status="finished", now=at)
    board = {s.name: (s.points, s.right, s.rounds)
             for s in await rounds.leaderboard(db, chat_id=-100)}
    assert board == {"Ada": (300, 2, 2), "Bob": (0, 0, 2)}
    week = {s.name: s.rounds for s in await rounds.leaderboard(db, chat_id=-100, since=5000)}
    assert week == {"Ada": 1, "Bob": 1}
    assert await rounds.leaderboard(db, chat_id=-999) == []
    assert await rounds.recent_question_ids(db, chat_id=-100) == ["q1", "q2", "q1", "q2"]


async def test_group_settings_default_to_nothing_and_update_in_place(db):
    assert await groups.get_group(db, chat_id=-100) == groups.GroupSettings(-100)
    await groups.update_group(db, chat_id=-100, field="backend", now=1)
    await groups.update_group(db, chat_id=-100, level="senior", language="tr", now=2)
    assert await groups.get_group(db, chat_id=-100) == groups.GroupSettings(
        -100, "tr", "backend", "senior")
    await groups.update_group(db, chat_id=-100, field=None, now=3)
    assert (await groups.get_group(db, chat_id=-100)).field is None
