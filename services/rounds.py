"""Group rounds outside the handlers: recording a member's tap with its score."""

from __future__ import annotations

from services import answers
from storage import rounds as store
from storage.answers import NewAnswer
from storage.db import Database


async def record_tap(db: Database, *, round_id: int, position: int, answer: NewAnswer,
                     points: int) -> store.Tap:
    """Store a member's first tap and its personal answer in one transaction, unless the
    question has closed meanwhile."""
    async with db.transaction() as conn:
        if await store.insert_tap(conn, round_id=round_id, position=position, answer=answer,
                                  points=points):
            await answers.record_in(conn, answer)
            return store.Tap("recorded", answer.chosen)
        chosen = await store.earlier_tap(conn, round_id=round_id, position=position,
                                         user_id=answer.user_id)
    return store.Tap("already", chosen) if chosen else store.Tap("closed")
