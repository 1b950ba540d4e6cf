"""Answering a shared question: everyone's first tap stored once, and the answers of the bot's
own users also in their personal record (their /stats, streak and review)."""

from __future__ import annotations

import hashlib

from services import answers
from storage import sharing as store
from storage.answers import NewAnswer
from storage.db import Database


def answer_message_id(inline_message_id: str) -> int:
    """A stable number for a shared message in `answers` (whose key is chat and message):
    Telegram gives an inline message no chat or message id."""
    return int.from_bytes(hashlib.sha256(inline_message_id.encode()).digest()[:7], "big")


async def record_tap(db: Database, *, inline_message_id: str, question_id: str, language: str,
                     options_order: str, user_id: int, chosen: str, is_correct: bool, now: int,
                     personal: NewAnswer | None) -> bool:
    """Store the first tap of `user_id` (and `personal`, the answer for their own record, if
    they use the bot) in one transaction; False for a repeat."""
    async with db.transaction() as conn:
        await store.remember_shared(conn, inline_message_id=inline_message_id,
                                    question_id=question_id, language=language,
                                    options_order=options_order, now=now)
        if not await store.insert_tap(conn, inline_message_id=inline_message_id,
                                      user_id=user_id, chosen=chosen, is_correct=is_correct,
                                      now=now):
            return False
        if personal is not None:
            await answers.record_in(conn, personal)
    return True
