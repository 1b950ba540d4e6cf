"""FSRS review: the rating rule, cards updated with each answer (once), the due order."""

from datetime import UTC, date, datetime, timedelta

import pytest
from fsrs import Rating, State

from domain import levels, ratings, review
from services import answers as recording
from storage import answers, users
from storage import review as store

# Run on SQLite and again on PostgreSQL (tests/conftest.py).
pytestmark = pytest.mark.both_databases

T0 = datetime(2026, 3, 10, 9, 0, tzinfo=UTC)


def test_rating_rule():
    assert review.rating_for(False, 1_000, 10_000) == Rating.Again
    assert review.rating_for(True, None, 10_000) == Rating.Good
    assert review.rating_for(True, 3_000, None) == Rating.Good  # no pace known yet
    assert review.rating_for(True, 3_000, 10_000) == Rating.Easy  # under a third
    assert review.rating_for(True, 3_400, 10_000) == Rating.Good
    assert review.rating_for(True, 20_000, 10_000) == Rating.Good
    assert review.rating_for(True, 20_001, 10_000) == Rating.Hard  # over twice


def test_pace_window_and_median():
    assert review.median_ms([1, 2, 3, 4]) is None  # too few to trust
    assert review.median_ms([5, 1, 9, 3, 7]) == 5
    window = list(range(review.PACE_WINDOW))
    assert review.remember_time(window, 999)[-1] == 999
    assert len(review.remember_time(window, 999)) == review.PACE_WINDOW


def test_wait_until_reads_well():
    assert review.wait_until(T0 + timedelta(seconds=20), T0) == ("minutes", 1)
    assert review.wait_until(T0 + timedelta(minutes=10), T0) == ("minutes", 10)
    assert review.wait_until(T0 + timedelta(hours=5), T0) == ("hours", 5)
    assert review.wait_until(T0 + timedelta(hours=23), T0) == ("hours", 23)
    assert review.wait_until(T0 + timedelta(hours=24), T0) == ("days", 1)
    assert review.wait_until(T0 + timedelta(days=3), T0) == ("days", 3)


def test_level_suggestion_rule():
    """The next level once the predicted score there reaches the band, on enough answers."""
    enough = ratings.SUGGEST_AFTER
    assert levels.suggestion("junior", predicted=0.9, rated_answers=enough - 1,
                             already_suggested=False) is None
    assert levels.suggestion("junior", predicted=0.70, rated_answers=enough,
                             already_suggested=False) == "mid"
    assert levels.suggestion("junior", predicted=0.69, rated_answers=100,
                             already_suggested=False) is None
    assert levels.suggestion("mid", predicted=0.8, rated_answers=100,
                             already_suggested=False) == "senior"
    assert levels.suggestion("mid", predicted=0.8, rated_answers=100,
                             already_suggested=True) is None
    assert levels.suggestion("senior", predicted=0.99, rated_answers=100,
                             already_suggested=False) is None


def answer(qid="q1", *, at=T0, right=True, message_id=1, ms=None, level="junior", source="practice"):
    return answers.NewAnswer(
        user_id=1, question_id=qid, field="backend", topic="t", level=level,
        chosen="a" if right else "b", is_correct=right, answered_at=int(at.timestamp()),
        chat_id=1, message_id=message_id, elapsed_ms=ms, source=source)


async def record(db, *args, **kw):
    return await recording.record(db, answer(*args, **kw), today=date(2026, 3, 10))


async def test_every_answer_reviews_the_card_once(db):
    await users.ensure_user(db, user_id=1, first_name="Ada", language="en", now=1)
    first = await record(db, right=False)
    assert first.rating == Rating.Again
    card = await store.get_card(db, user_id=1, question_id="q1")
    assert card.due == T0 + timedelta(minutes=10)  # a miss comes back soon
    again = await record(db, right=True)  # the same tap again (same message): nothing changes
    assert not again.inserted
    assert (await store.get_card(db, user_id=1, question_id="q1")).due == card.due
    later = T0 + timedelta(minutes=15)
    second = await record(db, at=later, right=True, message_id=2)
    assert second.rating == Rating.Good
    card = await store.get_card(db, user_id=1, question_id="q1")
    assert card.state == State.Review and card.due >= later + timedelta(days=1)
    logs = await store.review_logs(db, user_id=1)
    assert [log.rating for log in logs] == [Rating.Again, Rating.Good]
    assert {log.card_id for log in logs} == {card.card_id}
    assert logs[1].review_datetime == later


async def test_easy_and_hard_follow_the_users_pace(db):
    await users.ensure_user(db, user_id=1, first_name="Ada", language="en", now=1)
    for i in range(5):
        await record(db, f"warm{i}", right=True, message_id=i + 1, ms=30_000)
    fast = await record(db, "fast", right=True, message_id=10, ms=9_000)
    slow = await record(db, "slow", right=True, message_id=11, ms=61_000)
    usual = await record(db, "usual", right=True, message_id=12, ms=30_000)
    assert (fast.rating, slow.rating, usual.rating) == (Rating.Easy, Rating.Hard, Rating.Good)


async def test_due_cards_most_overdue_first_with_an_injected_clock(db):
    await users.ensure_user(db, user_id=1, first_name="Ada", language="en", now=1)
    await record(db, "old", at=T0, right=False, message_id=1)
    await record(db, "newer", at=T0 + timedelta(minutes=5), right=False, message_id=2)
    await record(db, "known", at=T0, right=True, message_id=3)
    assert await store.due_count(db, user_id=1, now=T0 + timedelta(minutes=9)) == 0
    now = T0 + timedelta(minutes=20)
    due = await store.due_cards(db, user_id=1, now=now)
    assert [d.question_id for d in due] == ["old", "newer"]
    assert due[0].due_at == T0 + timedelta(minutes=10)
    assert await store.due_count(db, user_id=1, now=now) == 2
    assert await store.next_due(db, user_id=1) == T0 + timedelta(minutes=10)
    await store.forget_cards(db, user_id=1, question_ids=["old"])
    assert [d.question_id for d in await store.due_cards(db, user_id=1, now=now)] == ["newer"]


async def test_level_up_follows_the_rating_and_is_suggested_once(db):
    """A user who answers nearly everything right climbs until Mid is predicted in the band."""
    await users.ensure_user(db, user_id=1, first_name="Ada", language="en", now=1)
    await users.update_user(db, user_id=1, field="backend", level="junior")
    results = [await record(db, f"q{i}", right=i % 20 != 0, message_id=i + 1) for i in range(60)]
    hints = [(i, r.level_up) for i, r in enumerate(results) if r.level_up]
    assert len(hints) == 1
    index, hint = hints[0]
    assert index + 1 >= ratings.SUGGEST_AFTER and hint.next == "mid"
    assert hint.chance >= 70 and hint.answered == index + 1
    assert ratings.expected(hint.rating, ratings.question_prior("mid")) >= 0.695


async def test_a_weak_record_is_not_suggested_the_next_level(db):
    await users.ensure_user(db, user_id=1, first_name="Ada", language="en", now=1)
    await users.update_user(db, user_id=1, field="backend", level="junior")
    results = [await record(db, f"q{i}", right=i % 2 == 0, message_id=i + 1) for i in range(60)]
    assert not any(r.level_up for r in results)


async def test_only_first_answers_move_the_ratings(db):
    await users.ensure_user(db, user_id=1, first_name="Ada", language="en", now=1)
    await record(db, "q1", right=True, message_id=1)
    first = await db.fetchone("SELECT rating, answers FROM user_ratings WHERE user_id = 1")
    await record(db, "q1", right=True, message_id=2)  # the same question again
    again = await db.fetchone("SELECT rating, answers FROM user_ratings WHERE user_id = 1")
    assert tuple(first) == tuple(again) and again["answers"] == 1
    question = await db.fetchone("SELECT rating, answers FROM question_ratings")
    assert question["answers"] == 1 and question["rating"] < ratings.question_prior("junior")


async def test_interview_answers_count_but_do_not_interrupt_with_the_hint(db):
    await users.ensure_user(db, user_id=1, first_name="Ada", language="en", now=1)
    await users.update_user(db, user_id=1, field="backend", level="junior")
    for i in range(40):
        assert (await record(db, f"q{i}", message_id=i + 1, source="interview")).level_up is None
    after = await record(db, "q99", message_id=99)
    assert after.level_up is not None and after.level_up.answered == 41


async def test_the_reminder_gets_the_due_count_through_its_hook(db):
    """The reminders feature shows `services.due_reviews(user_id, now)`; /review fills it in."""
    from types import SimpleNamespace

    from handlers import review as review_feature

    await users.ensure_user(db, user_id=1, first_name="Ada", language="en", now=1)
    await record(db, "missed", right=False)

    async def nothing_due(user_id, now):
        return 0

    services = SimpleNamespace(db=db, due_reviews=nothing_due)
    await review_feature.on_startup(SimpleNamespace(bot_data={"services": services}))
    assert await services.due_reviews(1, T0 + timedelta(minutes=11)) == 1
    assert await services.due_reviews(1, T0) == 0
