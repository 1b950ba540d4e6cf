"""A group's own choices (language, field, level), set by its admins; None means not chosen."""

from __future__ import annotations

from dataclasses import dataclass

from storage.db import Database

EDITABLE = frozenset({"language", "field", "level"})


@dataclass(frozen=True)
class GroupSettings:
    chat_id: int
    language: str | None = None
    field: str | None = None
    level: str | None = None


async def get_group(db: Database, *, chat_id: int) -> GroupSettings:
    row = await db.fetchone(
        "SELECT chat_id, language, field, level FROM group_settings WHERE chat_id = ?", (chat_id,))
    if row is None:
        return GroupSettings(chat_id)
    return GroupSettings(row["chat_id"], row["language"], row["field"], row["level"])


async def update_group(db: Database, *, chat_id: int, now: int, **values: str | None) -> None:
    unknown = set(values) - EDITABLE
    if unknown:
        raise ValueError(f"not editable: {sorted(unknown)}")
    if not values:
        return
    columns = ", ".join(values)
    marks = ", ".join("?" for _ in values)
    updates = ", ".join(f"{column} = excluded.{column}" for column in values)
    await db.execute(
        f"INSERT INTO group_settings (chat_id, {columns}, updated_at) VALUES (?, {marks}, ?)"
        f" ON CONFLICT (chat_id) DO UPDATE SET {updates}, updated_at = excluded.updated_at",
        (chat_id, *values.values(), now))


async def adopt_language(db: Database, *, chat_id: int, language: str, now: int) -> None:
    """The group's language becomes `language` unless an admin (or an earlier member) chose
    one already: the first member who sets the group up or starts a round there decides."""
    await db.execute(
        "INSERT INTO group_settings (chat_id, language, updated_at) VALUES (?, ?, ?)"
        " ON CONFLICT (chat_id) DO UPDATE SET"
        " language = COALESCE(group_settings.language, excluded.language)",
        (chat_id, language, now))
