"""Erasing a user: their rows go, a group's scores stay without their name."""

import pytest

from storage import users
from storage.privacy import erase_user

# Run on SQLite and again on PostgreSQL (tests/conftest.py).
pytestmark = pytest.mark.both_databases


async def test_group_scores_stay_anonymous_and_everything_else_goes(db):
    for uid, name in ((1, "Ada"), (2, "Bob")):
        await users.ensure_user(db, user_id=uid, first_name=name, language="en", now=1)
    await db.execute("INSERT INTO rounds (id, chat_id, started_by, language, seconds, started_at)"
                     " VALUES (1, -100, 1, 'en', 30, 0)")
    await db.execute("INSERT INTO round_questions (round_id, position, question_id)"
                     " VALUES (1, 0, 'q')")
    for uid in (1, 2):
        await db.execute(
            "INSERT INTO round_answers (round_id, position, user_id, chosen, is_correct,"
            " elapsed_ms, points, answered_at) VALUES (1, 0, ?, 'a', 1, 100, 150, 0)", (uid,))
    await erase_user(db, user_id=1)
    rows = await db.fetchall(
        "SELECT u.first_name AS name, a.points AS points FROM round_answers a"
        " JOIN users u USING (user_id) ORDER BY u.first_name")
    assert [(r["name"], r["points"]) for r in rows] == [("Bob", 150), ("—", 150)]
    assert await users.get_user(db, user_id=1) is None
    await erase_user(db, user_id=2)
    count = await db.fetchone("SELECT COUNT(*) FROM users WHERE first_name != '—'")
    assert count[0] == 0


async def test_no_placeholder_without_group_scores(db):
    await users.ensure_user(db, user_id=3, first_name="Cy", language="en", now=1)
    await erase_user(db, user_id=3)
    assert (await db.fetchone("SELECT COUNT(*) FROM users"))[0] == 0
