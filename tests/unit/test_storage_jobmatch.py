"""Job-ad state in a real SQLite file: the wait, ranked results, adopting one, plans, progress."""

from datetime import date

import pytest

from services import answers as recording
from storage import answers, jobmatch, users
from storage.jobmatch import RankedField

# Run on SQLite and again on PostgreSQL (tests/conftest.py).
pytestmark = pytest.mark.both_databases

RANKING = [RankedField("backend", 0.9, ("caching", "queues-idempotency")),
           RankedField("fullstack", 0.08, ("realtime",)),
           RankedField("security", 0.0, ())]


async def user(db, user_id=1):
    return await users.ensure_user(db, user_id=user_id, first_name="Ada", language="en", now=1)


async def test_waiting_has_a_deadline_and_ends_when_an_ad_is_ranked(db):
    await user(db)
    assert not await jobmatch.is_waiting(db, user_id=1, now=100)
    await jobmatch.start_waiting(db, user_id=1, until=700)
    assert await jobmatch.is_waiting(db, user_id=1, now=699)
    assert not await jobmatch.is_waiting(db, user_id=1, now=700)
    await jobmatch.start_waiting(db, user_id=1, until=1300)  # /jd again extends it
    assert await jobmatch.is_waiting(db, user_id=1, now=1000)
    await jobmatch.save_match(db, user_id=1, level="mid", ranking=RANKING, now=1000)
    assert not await jobmatch.is_waiting(db, user_id=1, now=1000)


async def test_a_new_match_replaces_the_old_one_and_only_its_owner_sees_it(db):
    await user(db)
    await user(db, 2)
    first = await jobmatch.save_match(db, user_id=1, level="mid", ranking=RANKING, now=1)
    second = await jobmatch.save_match(db, user_id=1, level="senior", ranking=RANKING, now=2)
    assert await jobmatch.get_match(db, match_id=first, user_id=1) is None
    stored = await jobmatch.get_match(db, match_id=second, user_id=1)
    assert stored.level == "senior" and stored.ranking == tuple(RANKING)
    assert stored.at(1).field == "fullstack" and stored.at(3) is None and stored.at(-1) is None
    assert await jobmatch.get_match(db, match_id=second, user_id=2) is None


async def test_only_field_level_and_topics_are_stored(db):
    await user(db)
    await jobmatch.save_match(db, user_id=1, level="mid", ranking=RANKING, now=1)
    [row] = await db.fetchall("SELECT * FROM jd_matches")
    assert set(row.keys()) == {"id", "user_id", "level", "ranking", "created_at"}


async def test_adopting_sets_field_level_and_plan_at_once_and_only_once(db):
    await user(db)
    match_id = await jobmatch.save_match(db, user_id=1, level="senior", ranking=RANKING, now=1)
    assert await jobmatch.adopt_match(db, match_id=match_id, user_id=1, field="backend",
                                      level="senior", topics=["caching", "queues-idempotency"],
                                      now=50)
    again = await jobmatch.adopt_match(db, match_id=match_id, user_id=1, field="backend",
                                       level="senior", topics=["caching"], now=60)
    assert not again
    stored = await users.get_user(db, user_id=1)
    assert (stored.field, stored.level) == ("backend", "senior")
    plan = await jobmatch.get_plan(db, user_id=1)
    assert plan.topics == ("caching", "queues-idempotency") and plan.started_at == 50
    assert await jobmatch.plan_topics(db, user_id=1, field="backend") == plan.topics
    assert await jobmatch.plan_topics(db, user_id=1, field="frontend") == ()
    assert await jobmatch.get_match(db, match_id=match_id, user_id=1) is None


async def test_adopting_a_field_without_topics_ends_the_old_plan(db):
    await user(db)
    first = await jobmatch.save_match(db, user_id=1, level="mid", ranking=RANKING, now=1)
    await jobmatch.adopt_match(db, match_id=first, user_id=1, field="backend", level="mid",
                               topics=["caching"], now=2)
    second = await jobmatch.save_match(db, user_id=1, level="mid", ranking=RANKING, now=3)
    await jobmatch.adopt_match(db, match_id=second, user_id=1, field="security", level="mid",
                               topics=[], now=4)
    assert await jobmatch.get_plan(db, user_id=1) is None
    assert (await users.get_user(db, user_id=1)).field == "security"


async def test_discard_and_end_plan_report_whether_there_was_one(db):
    await user(db)
    match_id = await jobmatch.save_match(db, user_id=1, level="mid", ranking=RANKING, now=1)
    assert await jobmatch.discard_match(db, match_id=match_id, user_id=1)
    assert not await jobmatch.discard_match(db, match_id=match_id, user_id=1)
    assert not await jobmatch.end_plan(db, user_id=1)


async def test_plan_progress_counts_answers_since_the_plan_started(db):
    await user(db)
    match_id = await jobmatch.save_match(db, user_id=1, level="mid", ranking=RANKING, now=1)
    await jobmatch.adopt_match(db, match_id=match_id, user_id=1, field="backend", level="mid",
                               topics=["caching", "queues-idempotency"], now=1000)

    async def answer(message_id, topic, question, correct, at, field="backend"):
        await recording.record(db, answers.NewAnswer(
            user_id=1, question_id=question, field=field, topic=topic, level="mid", chosen="a",
            is_correct=correct, answered_at=at, chat_id=1, message_id=message_id),
            today=date(2026, 3, 10))

    await answer(1, "caching", "c1", True, 999)  # before the plan
    await answer(2, "caching", "c1", True, 1000)
    await answer(3, "caching", "c1", False, 1001)
    await answer(4, "caching", "c2", True, 1002)
    await answer(5, "http-rest", "h1", True, 1003)  # not a plan topic
    await answer(6, "caching", "f1", True, 1004, field="frontend")
    progress = await jobmatch.plan_progress(db, plan=await jobmatch.get_plan(db, user_id=1))
    assert set(progress) == {"caching"}
    caching = progress["caching"]
    assert (caching.answered, caching.correct, caching.question_ids) == (3, 2, {"c1", "c2"})
    assert await jobmatch.end_plan(db, user_id=1)
    assert await jobmatch.get_plan(db, user_id=1) is None
