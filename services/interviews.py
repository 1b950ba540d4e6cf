"""The mock interview's flow outside Telegram: recording an answer and moving on, in one go."""

from __future__ import annotations

from services import answers
from services.answers import Recorded
from storage import interviews as store
from storage.answers import NewAnswer
from storage.db import Database


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
