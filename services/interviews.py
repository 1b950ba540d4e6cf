"""The mock interview's flow outside Telegram: composing one, moving through its questions,
recording each answer and moving on in one transaction, stopping, and its report. The rules
(composition, expiry, the report's figures) are in domain/interviews.py."""

from __future__ import annotations

from typing import TYPE_CHECKING

from domain import interviews as rules
from questions.model import Question
from services import answers
from services.answers import Recorded
from storage import interviews as store
from storage.answers import NewAnswer
from storage.db import Database
from storage.users import User

if TYPE_CHECKING:
    from bot.services import Services


class _Stale(Exception):
    """The tap lost the race: roll back and report nothing stored."""


async def record_answer(db: Database, *, interview: store.Interview, position: int,
                        answer: NewAnswer) -> Recorded | None:
    """Store the answer (stats, review card) and move to the next question, in one transaction.

    None when the question was already answered or the interview is over (a double or late tap).
    The last answer also finishes the interview.
    """
    try:
        async with db.transaction() as conn:
            if not await store.take_position(conn, interview=interview, position=position,
                                             answer=answer):
                raise _Stale
            recorded = await answers.record_in(conn, answer)
            if not recorded.inserted:
                raise _Stale
            await store.add_answer(conn, interview_id=interview.id, position=position,
                                   answer=answer)
    except _Stale:
        return None
    return recorded


async def ongoing(services: Services, user_id: int) -> tuple[store.Interview | None, bool]:
    """The user's active interview; (None, True) when it just expired, being over a day old."""
    interview = await store.active_interview(services.db, user_id=user_id)
    if interview is not None and await expire_if_old(services, interview):
        return None, True
    return interview, False


async def expire_if_old(services: Services, interview: store.Interview) -> bool:
    """End an active interview started over a day ago; True when it is (now) expired."""
    now = services.now()
    if interview.status != store.ACTIVE or not rules.is_expired(interview.started_at, now):
        return False
    await store.end_interview(services.db, interview_id=interview.id, status="expired", now=now)
    return True


async def compose(services: Services, user: User, *, chat_id: int) -> store.Interview | None:
    """A new interview from the user's field and level, none of it from their last interview
    where the bank allows; None when the bank has nothing for them."""
    bank = services.bank
    assert user.field is not None and user.level is not None
    last = await store.last_interview(services.db, user_id=user.user_id)
    questions = rules.compose(
        bank.pool(user.field, user.level), rng=services.rng,
        exclude=set(last.seen if last else ()),
        backup=[q for level in rules.neighbour_levels(user.level)
                for q in bank.pool(user.field, level)],
        size=services.settings.interview_questions)
    if not questions:
        return None
    return await store.start_interview(
        services.db, user_id=user.user_id, field=user.field, level=user.level,
        question_ids=[q.id for q in questions], chat_id=chat_id, now=services.now())


async def current_question(services: Services,
                           interview: store.Interview) -> tuple[store.Interview, Question | None]:
    """The interview at its current question, skipping questions that left the bank since it
    began (rather than getting stuck); the question is None when the interview is over."""
    question = services.bank.questions.get(interview.current or "")
    while interview.current is not None and question is None:
        await store.skip_question(services.db, interview_id=interview.id,
                                  position=interview.position, now=services.now())
        reread = await store.get_interview(services.db, interview_id=interview.id)
        assert reread is not None  # interviews are never deleted while their user exists
        interview = reread
        question = services.bank.questions.get(interview.current or "")
    if interview.status != store.ACTIVE:
        return interview, None
    return interview, question


async def stop(services: Services, interview: store.Interview) -> store.Interview | None:
    """End the interview early; the stopped interview, or None if it had ended meanwhile."""
    if not await store.end_interview(services.db, interview_id=interview.id, status="stopped",
                                     now=services.now()):
        return None
    return await store.get_interview(services.db, interview_id=interview.id)


async def report(services: Services, interview: store.Interview) -> rules.Report | None:
    """The interview's report (score, per topic, times, against the previous one), or None
    when nothing was answered."""
    results = await store.interview_results(services.db, interview_id=interview.id)
    if not results:
        return None
    return rules.report(results, total=interview.total,
                       previous=await store.previous_result(
                           services.db, interview=interview,
                           min_answers=rules.VERDICT_MIN_ANSWERS))
