"""Chat-level bookkeeping: a group that became a supergroup keeps its settings and scores."""

from __future__ import annotations

from storage.db import Database


async def tables_with_chat_id(db: Database) -> list[str]:
    rows = await db.fetchall(
        "SELECT m.name AS name FROM sqlite_master m, pragma_table_info(m.name) c"
        " WHERE m.type = 'table' AND c.name = 'chat_id' ORDER BY m.name")
    return [r["name"] for r in rows]


async def migrate_chat(db: Database, *, old_chat_id: int, new_chat_id: int) -> int:
    """Move every row of `old_chat_id` to `new_chat_id` in one transaction; rows moved."""
    moved = 0
    tables = await tables_with_chat_id(db)
    async with db.transaction() as conn:
        for table in tables:
            # OR IGNORE: if the new chat already has a row with the same key, keep that one.
            cur = await conn.execute(f"UPDATE OR IGNORE {table} SET chat_id = ? WHERE chat_id = ?",
                                     (new_chat_id, old_chat_id))
            moved += max(cur.rowcount, 0)
    return moved
