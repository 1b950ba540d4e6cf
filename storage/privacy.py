"""Erasing everything the bot holds about one user (/deleteme)."""

from __future__ import annotations

from storage.db import Database

# Tables whose rows stay, anonymised, because they are other people's history too
# (a group's scores): column -> value written instead of the user's data.
ANONYMISE: dict[str, dict[str, object]] = {}


async def tables_with_user_id(db: Database) -> list[str]:
    rows = await db.fetchall(
        "SELECT m.name AS name FROM sqlite_master m, pragma_table_info(m.name) c"
        " WHERE m.type = 'table' AND c.name = 'user_id' ORDER BY m.name")
    return [r["name"] for r in rows]


async def erase_user(db: Database, *, user_id: int) -> int:
    """Delete (or anonymise) every row about `user_id` in one transaction; rows touched."""
    tables = await tables_with_user_id(db)
    touched = 0
    async with db.transaction() as conn:
        for table in tables:
            if table == "users":
                continue
            if table in ANONYMISE:
                values = ANONYMISE[table]
                assignments = ", ".join(f"{column} = ?" for column in values)
                cur = await conn.execute(f"UPDATE {table} SET {assignments} WHERE user_id = ?",
                                         (*values.values(), user_id))
            else:
                cur = await conn.execute(f"DELETE FROM {table} WHERE user_id = ?", (user_id,))
            touched += max(cur.rowcount, 0)
        cur = await conn.execute("DELETE FROM users WHERE user_id = ?", (user_id,))
        touched += max(cur.rowcount, 0)
    return touched
