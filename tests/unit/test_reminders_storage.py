"""Reminders in real SQLite files: the zone in force, claiming once (also across reopenings and
two connections at once), the already-practised rule, and moving with the time zone."""

import asyncio
from datetime import UTC, date, datetime, timedelta

import pytest

from domain.reminders import Schedule
from services import answers as recording
from storage import answers, users
from storage import reminders as store
from storage.db import Database

# Run on SQLite and again on PostgreSQL (tests/conftest.py).
pytestmark = pytest.mark.both_databases


def utc(*args) -> datetime:
    return datetime(*args, tzinfo=UTC)


NOW = utc(2026, 3, 10, 6)  # Tuesday; 09:00 in Istanbul


async def user(db, user_id, language="en", timezone=None):
    await users.ensure_user(db, user_id=user_id, first_name="U", language=language, now=1)
    if timezone:
        await users.update_user(db, user_id=user_id, timezone=timezone)


async def test_a_reminder_uses_the_users_zone_or_the_languages_default(db):
    await user(db, 1, "tr")
    await user(db, 2, "en")
    await user(db, 3, "en", "America/New_York")
    for user_id in (1, 2, 3):
        await store.save_reminder(db, user_id=user_id, schedule=Schedule(570), now=NOW)
    due = {u: (await store.get_reminder(db, user_id=u)).due_at for u in (1, 2, 3)}
    assert due == {1: utc(2026, 3, 10, 6, 30), 2: utc(2026, 3, 10, 9, 30),
                   3: utc(2026, 3, 10, 13, 30)}


async def test_claiming_sends_each_day_once_earliest_first(db):
    for user_id, minute in ((1, 575), (2, 570), (3, 600)):
        await user(db, user_id)
        await store.save_reminder(db, user_id=user_id, schedule=Schedule(minute), now=NOW)
    assert await store.due_count(db, now=utc(2026, 3, 10, 9, 40)) == 2
    claim = await store.claim_due(db, now=utc(2026, 3, 10, 9, 40), limit=10)
    assert [d.user_id for d in claim.due] == [2, 1] and claim.settled == 2
    assert (await store.claim_due(db, now=utc(2026, 3, 10, 9, 41), limit=10)).settled == 0
    reminder = await store.get_reminder(db, user_id=2)
    assert reminder.sent_day == date(2026, 3, 10) and reminder.due_at == utc(2026, 3, 11, 9, 30)
    assert [d.user_id for d in (await store.claim_due(db, now=utc(2026, 3, 10, 10, 1),
                                                      limit=10)).due] == [3]
    # A limit takes the earliest ones and leaves the rest for the next claim.
    claim = await store.claim_due(db, now=utc(2026, 3, 11, 10), limit=2)
    assert [d.user_id for d in claim.due] == [2, 1]
    assert [d.user_id for d in (await store.claim_due(db, now=utc(2026, 3, 11, 10),
                                                      limit=2)).due] == [3]


async def test_a_claimed_day_is_not_sent_again_after_reopening(tmp_path):
    path = tmp_path / "r.sqlite3"
    db = await Database.open(path)
    await user(db, 1)
    await store.save_reminder(db, user_id=1, schedule=Schedule(570), now=NOW)
    assert len((await store.claim_due(db, now=utc(2026, 3, 10, 9, 31), limit=5)).due) == 1
    await db.close()  # a crash or restart right after claiming: the day counts as sent
    for minutes in (1, 2):  # two restarts close together
        db = await Database.open(path)
        claim = await store.claim_due(db, now=utc(2026, 3, 10, 9, 31) + timedelta(minutes=minutes),
                                      limit=5)
        assert claim.due == []
        await db.close()


async def test_two_processes_claiming_at_once_share_the_work_without_duplicates(tmp_path):
    path = tmp_path / "r.sqlite3"
    first = await Database.open(path)
    for user_id in range(1, 201):
        await user(first, user_id)
        await store.save_reminder(first, user_id=user_id, schedule=Schedule(570), now=NOW)
    second = await Database.open(path)

    async def drain(db):
        got = []
        while claim := await store.claim_due(db, now=utc(2026, 3, 10, 9, 31), limit=7):
            if not claim.settled:
                break
            got.extend(d.user_id for d in claim.due)
            await asyncio.sleep(0)
        return got

    a, b = await asyncio.gather(drain(first), drain(second))
    assert sorted(a + b) == list(range(1, 201))
    assert not set(a) & set(b)
    await first.close()
    await second.close()


async def test_no_reminder_on_a_day_already_practised(db):
    await user(db, 1, "tr")
    await store.save_reminder(db, user_id=1, schedule=Schedule(21 * 60), now=NOW)
    # An answer at 20:00 Istanbul, i.e. that local day.
    await recording.record(db, answers.NewAnswer(
        user_id=1, question_id="q", field="f", topic="t", level="mid", chosen="a",
        is_correct=True, answered_at=int(utc(2026, 3, 10, 17).timestamp()), chat_id=1,
        message_id=1), today=date(2026, 3, 10))
    claim = await store.claim_due(db, now=utc(2026, 3, 10, 18, 1), limit=5)
    assert claim.settled == 1 and claim.due == []
    assert (await store.get_reminder(db, user_id=1)).due_at == utc(2026, 3, 11, 18)
    # Next day, not practised yet: reminded, with yesterday's streak still alive.
    [due] = (await store.claim_due(db, now=utc(2026, 3, 11, 18, 1), limit=5)).due
    assert due.streak == 1 and due.due_day == date(2026, 3, 11) and due.language == "tr"


async def test_always_reminds_even_after_practice(db):
    await user(db, 1)
    await store.save_reminder(db, user_id=1, schedule=Schedule(570, always=True), now=NOW)
    await db.execute("UPDATE users SET last_active_day = '2026-03-10' WHERE user_id = 1")
    assert len((await store.claim_due(db, now=utc(2026, 3, 10, 9, 30), limit=5)).due) == 1


async def test_off_and_on_again_the_same_day_does_not_remind_twice(db):
    await user(db, 1)
    await store.save_reminder(db, user_id=1, schedule=Schedule(570), now=NOW)
    await store.claim_due(db, now=utc(2026, 3, 10, 9, 31), limit=5)
    assert await store.turn_off(db, user_id=1, now=utc(2026, 3, 10, 10))
    assert not await store.turn_off(db, user_id=1, now=utc(2026, 3, 10, 10))
    off = await store.get_reminder(db, user_id=1)
    assert not off.on and off.schedule == Schedule(570)
    again = await store.save_reminder(db, user_id=1, schedule=Schedule(18 * 60),
                                      now=utc(2026, 3, 10, 10))
    assert again.due_at == utc(2026, 3, 11, 18)


async def test_changing_the_zone_keeps_the_local_time(db):
    await user(db, 1)
    await store.save_reminder(db, user_id=1, schedule=Schedule(570), now=NOW)
    await store.set_timezone(db, user_id=1, timezone="Asia/Tokyo", now=NOW)
    reminder = await store.get_reminder(db, user_id=1)
    # 15:00 in Tokyo already: tomorrow 09:30 JST.
    assert reminder.due_at == utc(2026, 3, 11, 0, 30) and reminder.due_day == date(2026, 3, 11)
    assert (await users.get_user(db, user_id=1)).timezone == "Asia/Tokyo"
    await store.set_timezone(db, user_id=1, timezone="UTC-05:00", now=NOW)
    assert (await store.get_reminder(db, user_id=1)).due_at == utc(2026, 3, 10, 14, 30)


async def test_a_language_change_under_a_default_zone_moves_the_reminder_when_due(db):
    await user(db, 1, "en")  # no zone set: UTC
    await store.save_reminder(db, user_id=1, schedule=Schedule(12 * 60), now=NOW)
    await users.update_user(db, user_id=1, language="tr")  # now Istanbul by default
    claim = await store.claim_due(db, now=utc(2026, 3, 10, 12), limit=5)
    # 12:00 Istanbul was 09:00Z, three hours ago: too late for today, tomorrow at 12:00 there.
    assert claim.settled == 1 and claim.due == []
    assert (await store.get_reminder(db, user_id=1)).due_at == utc(2026, 3, 11, 9)


async def test_the_due_query_uses_the_index(db):
    if db.dialect != "sqlite":
        pytest.skip("reads SQLite's query plan")
    plan = await db.fetchall("EXPLAIN QUERY PLAN " + store._DUE, (0, 30))
    details = " ".join(row["detail"] for row in plan)
    assert "USING INDEX reminders_due" in details and "TEMP B-TREE" not in details
