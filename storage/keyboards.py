"""Who each keyboard the bot showed in a group belongs to (rows keyed by chat and message)."""

from __future__ import annotations

from storage.db import Database


async def remember_owner(db: Database, *, chat_id: int, message_id: int, user_id: int,
                         now: int) -> None:
    await db.execute(
        "INSERT INTO keyboard_owners (chat_id, message_id, user_id, created_at)"
        " VALUES (?, ?, ?, ?) ON CONFLICT (chat_id, message_id) DO UPDATE"
        " SET user_id = excluded.user_id, created_at = excluded.created_at",
        (chat_id, message_id, user_id, now))


async def owner_of(db: Database, *, chat_id: int, message_id: int) -> int | None:
    """The member a group keyboard was shown to, or None (a keyboard for everyone, or unknown)."""
    row = await db.fetchone(
        "SELECT user_id FROM keyboard_owners WHERE chat_id = ? AND message_id = ?",
        (chat_id, message_id))
    return row["user_id"] if row else None
