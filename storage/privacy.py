"""Erasing everything the bot holds about one user (/deleteme)."""

from __future__ import annotations

import secrets

from storage.db import Database

# Tables whose rows stay, because they are other people's history too (a group's scores), but
# move to a nameless placeholder user, one per erasure, so nothing links them to the person.
ANONYMISE = frozenset({"round_answers"})
PLACEHOLDER_NAME = "—"


async def tables_with_user_id(db: Database) -> list[str]:
    return await db.tables_with_column("user_id")


async def erase_user(db: Database, *, user_id: int) -> int:
    """Delete (or anonymise) every row about `user_id` in one transaction; rows touched."""
    tables = await tables_with_user_id(db)
    touched = 0
    placeholder = -1 - secrets.randbelow(2**40)  # negative: never a Telegram user id
    async with db.transaction() as conn:
        for table in tables:
            if table == "users":
                continue
            if table in ANONYMISE:
                await conn.execute(
                    "INSERT INTO users (user_id, first_name, created_at)"
                    " SELECT ?, ?, created_at FROM users WHERE user_id = ?"
                    f" AND EXISTS (SELECT 1 FROM {table} WHERE user_id = ?)"
                    " ON CONFLICT DO NOTHING",
                    (placeholder, PLACEHOLDER_NAME, user_id, user_id))
                cur = await conn.execute(f"UPDATE {table} SET user_id = ? WHERE user_id = ?",
                                         (placeholder, user_id))
            else:
                cur = await conn.execute(f"DELETE FROM {table} WHERE user_id = ?", (user_id,))
            touched += max(cur.rowcount, 0)
        cur = await conn.execute("DELETE FROM users WHERE user_id = ?", (user_id,))
        touched += max(cur.rowcount, 0)
    return touched
