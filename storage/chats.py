"""Chat-level bookkeeping: a group that became a supergroup keeps its settings and scores."""

from __future__ import annotations

from storage.db import Database


async def tables_with_chat_id(db: Database) -> list[str]:
    return await db.tables_with_column("chat_id")


async def migrate_chat(db: Database, *, old_chat_id: int, new_chat_id: int) -> int:
    """Move every row of `old_chat_id` to `new_chat_id` in one transaction; rows moved."""
    moved = 0
    tables = await tables_with_chat_id(db)
    async with db.transaction() as conn:
        for table in tables:
            # If the new chat already has a row with the same key, that one is kept.
            moved += await db.move_rows(conn, table, "chat_id", old_chat_id, new_chat_id)
    return moved
