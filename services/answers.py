"""Recording an answer: stored once, with everything it changes, in one transaction.

Practice, review, interviews and group rounds all record through here: the answer row, its
totals, the streak, the review card (FSRS), the Elo ratings and the level totals, with the rules
from domain/.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime

from fsrs import Rating

from domain import levels, ratings, review, streaks
from domain.grading import Grade
from questions.model import Question
from storage import levels as level_store
from storage import mistakes as mistake_store
from storage import ratings as rating_store
from storage import review as review_store
from storage import users as user_store
from storage.answers import NewAnswer, insert_answer
from storage.db import Conn, Database
from storage.levels import LevelUp
from storage.ratings import Rated
from storage.users import User

# Answers from these flows may show the level-up suggestion right away (not mid-interview).
SUGGESTING_SOURCES = frozenset({"practice", "review", "mistakes"})


@dataclass(frozen=True)
class Recorded:
    """The outcome of storing an answer; `inserted` is False for a repeat of a stored tap."""

    inserted: bool
    streak: int = 0
    streak_best: int = 0
    milestone: int | None = None
    rating: Rating | None = None
    level_up: LevelUp | None = None
    answer_id: int | None = None


def elapsed_ms(since: datetime | None, now: datetime) -> int | None:
    """Milliseconds from `since` to `now`; None when the start is unknown (Telegram sends date 0
    for an inaccessible message: timing from 1970 would record 57 years)."""
    if since is None or since.timestamp() <= 0:
        return None
    return max(int((now - since).total_seconds() * 1000), 0)


def new_answer(user: User, question: Question, choice: Grade, *, now: datetime, chat_id: int,
               message_id: int, source: str, elapsed: int | None) -> NewAnswer:
    """The row for a graded tap (the one place an answer is described)."""
    return NewAnswer(
        user_id=user.user_id, question_id=question.id, field=question.field,
        topic=question.topic, level=question.seniority, chosen=choice.chosen,
        is_correct=choice.is_correct, answered_at=int(now.timestamp()), chat_id=chat_id,
        message_id=message_id, source=source, elapsed_ms=elapsed,
        day=streaks.local_day(now, streaks.zone(user.timezone, user.language)),
        difficulty=question.difficulty)


async def record(db: Database, answer: NewAnswer, *, today: date | None = None) -> Recorded:
    """Store the answer and everything it changes, in one transaction."""
    async with db.transaction() as conn:
        return await record_in(conn, answer, today=today)


async def record_in(conn: Conn, answer: NewAnswer, *,
                    today: date | None = None) -> Recorded:
    """`record` inside a transaction the caller holds (an interview moves on to its next
    question, a round stores the member's score, in the same one).

    The streak counts the user's local days: `answer.day` (set by `new_answer`), else `today`
    (tests and benchmarks pin it), else the UTC day of the answer.
    """
    answer_id = await insert_answer(conn, answer)
    if answer_id is None:
        return Recorded(inserted=False)
    today = answer.day or today or datetime.fromtimestamp(answer.answered_at, UTC).date()
    activity = await user_store.read_activity(conn, user_id=answer.user_id)
    last = activity.last_active_day
    before = streaks.current(last, activity.streak_current, today)
    streak, best = streaks.advance(last, activity.streak_current, activity.streak_best, today)
    # Never move the last active day backwards (after a change to a zone further west).
    await user_store.count_answer(
        conn, user_id=answer.user_id, is_correct=answer.is_correct,
        in_group=answer.source == "group", streak=streak, best=best,
        active_day=max(last, today) if last else today)
    rating = await review_card(conn, answer, answer_id)
    skill = await update_ratings(conn, answer, activity)
    level_up = await count_level(conn, answer, activity, skill)
    if answer.is_correct:  # the last answer decides: right takes it off the mistakes list
        await mistake_store.clear_guess(conn, user_id=answer.user_id,
                                        question_id=answer.question_id)
    return Recorded(True, streak, best, streaks.milestone_reached(before, streak), rating,
                    level_up, answer_id)


async def review_card(conn: Conn, answer: NewAnswer, answer_id: int) -> Rating:
    """Review the question's FSRS card with this answer (rated from right/wrong and pace)."""
    recent = await review_store.recent_pace(conn, user_id=answer.user_id)
    rating = review.rating_for(answer.is_correct, answer.elapsed_ms, review.median_ms(recent))
    now = datetime.fromtimestamp(answer.answered_at, UTC)
    card = (await review_store.card_in(conn, user_id=answer.user_id,
                                       question_id=answer.question_id)
            or review.new_card(answer_id, now))
    card, log = review.review(card, rating, now, answer.elapsed_ms)
    await review_store.save_review(conn, user_id=answer.user_id, question_id=answer.question_id,
                                   answer_id=answer_id, card=card, log=log)
    if answer.elapsed_ms is not None:
        await review_store.save_pace(conn, user_id=answer.user_id,
                                     recent=review.remember_time(recent, answer.elapsed_ms))
    return rating


async def update_ratings(conn: Conn, answer: NewAnswer,
                         activity: user_store.Activity) -> Rated | None:
    """Move the user's rating in the field and the question's rating, on a first answer only
    (a repeat measures memory of the question, not skill); the user's rating after it."""
    if not await rating_store.is_first_answer(conn, user_id=answer.user_id,
                                              question_id=answer.question_id):
        return await rating_store.user_rating_in(conn, user_id=answer.user_id, field=answer.field)
    user = (await rating_store.user_rating_in(conn, user_id=answer.user_id, field=answer.field)
            or Rated(ratings.user_prior(activity.level if activity.field == answer.field
                                        else answer.level), 0))
    question = (await rating_store.question_rating_in(conn, question_id=answer.question_id)
                or Rated(ratings.question_prior(answer.level, answer.difficulty), 0))
    user_after, question_after = ratings.update(user.rating, user.answers, question.rating,
                                                question.answers, answer.is_correct)
    user = Rated(user_after, user.answers + 1)
    await rating_store.save_ratings(
        conn, user_id=answer.user_id, field=answer.field, user=user,
        question_id=answer.question_id, level=answer.level,
        question=Rated(question_after, question.answers + 1))
    return user


async def count_level(conn: Conn, answer: NewAnswer,
                      activity: user_store.Activity, skill: Rated | None) -> LevelUp | None:
    """Count the answer at its level; once per level, suggest the next one when the rating
    predicts a score there inside the band."""
    totals = await level_store.count_level_answer(
        conn, user_id=answer.user_id, field=answer.field, level=answer.level,
        is_correct=answer.is_correct)
    # Only for the level the user practises now: after moving up, old levels stay quiet.
    if (answer.source not in SUGGESTING_SOURCES or totals.suggested
            or (activity.field, activity.level) != (answer.field, answer.level)):
        return None
    target = levels.next_level(answer.level)
    if target is None or skill is None or skill.answers < ratings.SUGGEST_AFTER:
        return None  # checked first: the level's mean rating is read only when it can matter
    level_rating = (await rating_store.level_rating_in(conn, field=answer.field, level=target)
                    or ratings.question_prior(target))
    chance = ratings.expected(skill.rating, level_rating)
    if levels.suggestion(answer.level, predicted=chance, rated_answers=skill.answers,
                         already_suggested=False) is None:
        return None
    await level_store.mark_suggested(conn, user_id=answer.user_id, field=answer.field,
                                     level=answer.level)
    return LevelUp(answer.level, target, totals.answered, totals.correct,
                   rating=round(skill.rating), chance=round(chance * 100))


async def mark_guessed(db: Database, *, user_id: int, answer_id: int, now: datetime) -> str:
    """`I guessed 🤔` on a right answer: the question goes on the mistakes list and its review
    card is rated Hard instead of what the answer earned (a lucky guess is not knowledge).

    "marked"; "already" for a second tap; "not-yours" for someone else's answer; "stale" for an
    answer that is gone, wrong, or followed by a later answer to the same question.
    """
    async with db.transaction() as conn:
        target = await mistake_store.guess_target(conn, answer_id=answer_id)
        if target is None or not target.is_correct:
            return "stale"
        if target.user_id != user_id:
            return "not-yours"
        if not target.latest:
            return "stale"
        if not await mistake_store.mark_guessed(conn, user_id=user_id,
                                                question_id=target.question_id,
                                                answer_id=answer_id, now=int(now.timestamp())):
            return "already"
        card = await review_store.card_in(conn, user_id=user_id, question_id=target.question_id)
        if card is None:
            return "marked"
        past = await review_store.card_reviews(conn, user_id=user_id,
                                               question_id=target.question_id,
                                               card_id=card.card_id)
        if not past or past[-1].answer_id != answer_id:
            return "marked"  # the card was started again since (the question left the bank)
        card = review.rerated(card.card_id, [(Rating(p.rating), p.reviewed_at, p.duration_ms)
                                             for p in past], Rating.Hard)
        await review_store.save_rerated(conn, user_id=user_id, question_id=target.question_id,
                                        answer_id=answer_id, card=card, rating=int(Rating.Hard))
    return "marked"
