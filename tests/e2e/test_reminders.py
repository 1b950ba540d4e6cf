"""Reminders end to end: set one, restart, see it delivered once; downtime; practised days;
a blocked user; a 429 and a 5xx from the fake server; /timezone; a fan-out at the rate limit."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot import telegram_limits
from fake_telegram import FakeTelegram
from handlers.reminders import BATCH
from storage import reminders as store
from tests.conftest import Clock
from tests.e2e.conftest import button, say, tap
from tests.e2e.harness import BotRunner
from tests.e2e.test_practice import onboard
from tests.shared_files import API_SPEC

# Run on SQLite and again on PostgreSQL (tests/conftest.py).
pytestmark = pytest.mark.both_databases

TICK = 0.05  # the reminder job's interval in these tests (20 s in production)


@pytest.fixture
async def bot(fake: FakeTelegram, tmp_path: Path) -> AsyncIterator[BotRunner]:
    runner = BotRunner(fake, tmp_path, reminder_tick_seconds=TICK)
    await runner.start()
    yield runner
    await runner.stop()
    assert fake.violations == [], "the bot made calls Telegram would refuse"


def reminders_to(fake: FakeTelegram, chat_id: int) -> list[dict]:
    return [m for m in fake.bot_messages(chat_id) if "Time to practise" in m["text"]
            or "Pratik zamanı" in m["text"]]


async def edited(fake: FakeTelegram, chat_id: int, message: dict, needle: str) -> dict:
    """The message once an edit has put `needle` in it (the bot edits after answering a tap)."""
    def find():
        now = next(m for m in fake.messages(chat_id) if m["message_id"] == message["message_id"])
        return now if needle in now["text"] else None

    return await fake.wait_until(find)


async def settled(bot: BotRunner, user_id: int) -> store.Reminder:
    """Wait until the job has dealt with the user's due reminder (its next one is later)."""

    async def done():
        reminder = await store.get_reminder(bot.services.db, user_id=user_id)
        return reminder if reminder and (reminder.due_at is None
                                         or reminder.due_at > bot.clock()) else None

    return await bot.fake.wait_until(done, timeout=5)


async def test_a_reminder_set_before_a_restart_is_delivered_once(fake, bot):
    ada = fake.user(2001, "Ada")
    await onboard(fake, ada)
    [saved] = await say(fake, ada, "/remind 09:30")
    assert saved["text"].startswith("✅ Saved. ⏰ Daily reminder at 09:30 (every day).")
    assert "Time zone: UTC (the default" in saved["text"] and "Next: today at 09:30." in saved["text"]
    await bot.stop()
    bot.clock.advance(minutes=45)  # down at 09:30, back at 09:45: sent late, once
    await bot.start()
    before = len(fake.bot_messages(ada.id))
    [reminder] = (await fake.wait_for_bot_messages(ada.id, before + 1))[before:]
    assert reminder["text"].startswith("⏰ Time to practise!")
    assert "Streak: 0 days · 🔁 Due for review: 0" in reminder["text"]
    assert "Start a streak today!" in reminder["text"]
    # Two restarts close together: still one reminder today.
    await bot.restart()
    bot.clock.advance(minutes=1)
    await bot.restart()
    await settled(bot, ada.id)
    await asyncio.sleep(5 * TICK)
    assert len(reminders_to(fake, ada.id)) == 1
    # Start practice opens a question at once, like /quiz.
    _, [question] = await tap(fake, ada, reminder, button(fake, reminder, "Start practice"),
                              expect=1)
    assert [t for t, _ in fake.buttons(question)[0]] == ["A", "B", "C", "D"]
    # The next day's reminder comes at 09:30 again.
    bot.clock.now = datetime(2026, 3, 11, 9, 30, 5, tzinfo=UTC)
    await fake.wait_until(lambda: len(reminders_to(fake, ada.id)) == 2)


async def test_down_for_more_than_two_hours_skips_that_day(fake, bot):
    ada = fake.user(2002, "Ada")
    await say(fake, ada, "/remind 09:30")
    await bot.stop()
    bot.clock.now = datetime(2026, 3, 10, 11, 31, tzinfo=UTC)
    await bot.start()
    reminder = await settled(bot, ada.id)
    assert reminder.due_at == datetime(2026, 3, 11, 9, 30, tzinfo=UTC)
    assert reminders_to(fake, ada.id) == []
    bot.clock.now = datetime(2026, 3, 11, 9, 30, tzinfo=UTC)
    await fake.wait_until(lambda: len(reminders_to(fake, ada.id)) == 1)


async def test_no_reminder_on_a_day_already_practised(fake, bot):
    ada = fake.user(2003, "Ada")
    await onboard(fake, ada)
    await say(fake, ada, "/remind 09:30")
    [question] = await say(fake, ada, "/quiz")
    await tap(fake, ada, question, fake.buttons(question)[0][0][1], expect=1)
    bot.clock.advance(minutes=31)
    await settled(bot, ada.id)
    assert reminders_to(fake, ada.id) == []
    bot.clock.now = datetime(2026, 3, 11, 9, 31, tzinfo=UTC)
    await fake.wait_until(lambda: reminders_to(fake, ada.id))
    [reminder] = reminders_to(fake, ada.id)
    assert "Streak: 1 day ·" in reminder["text"]
    assert "keeps your 1-day streak alive" in reminder["text"]


async def wait_off(bot: BotRunner, user_id: int) -> None:
    async def off():
        reminder = await store.get_reminder(bot.services.db, user_id=user_id)
        return reminder is not None and not reminder.on

    await bot.fake.wait_until(off, timeout=5)


async def test_a_user_who_blocks_the_bot_is_switched_off_before_any_send(fake, bot, caplog):
    ada = fake.user(2012, "Ada")
    await say(fake, ada, "/remind 09:30")
    caplog.set_level(logging.INFO, logger="handlers.reminders")
    fake.block(ada)  # Telegram sends my_chat_member (kicked)
    await wait_off(bot, ada.id)
    bot.clock.advance(minutes=31)
    await asyncio.sleep(5 * TICK)
    assert len([c for c in fake.calls_to("sendMessage") if c.chat_id == ada.id]) == 1
    assert sum("switched off" in r.getMessage() for r in caplog.records) == 1


async def test_a_403_switches_the_reminder_off_and_is_logged_once(fake, bot, caplog):
    ada = fake.user(2004, "Ada")
    await say(fake, ada, "/remind 09:30")
    ada.blocked = True  # blocked without the bot hearing of it (e.g. while it was down)
    caplog.set_level(logging.INFO, logger="handlers.reminders")
    bot.clock.advance(minutes=31)
    await wait_off(bot, ada.id)
    refused = [c for c in fake.calls_to("sendMessage") if c.chat_id == ada.id and not c.ok]
    assert [c.error_code for c in refused] == [403]
    # Telegram refuses that send, but the bot could not have known: the one expected refusal.
    assert fake.violations == ["sendMessage chat 2004: 403 Forbidden: bot was blocked by the user"]
    fake.violations.clear()
    bot.clock.advance(days=1)
    await asyncio.sleep(5 * TICK)
    assert len([c for c in fake.calls_to("sendMessage") if c.chat_id == ada.id]) == 2
    switched = [r for r in caplog.records if "switched off" in r.getMessage()]
    assert len(switched) == 1 and str(ada.id) in switched[0].getMessage()
    # Unblocked and back: /remind shows the reminder off.
    fake.unblock(ada)
    [status] = await say(fake, ada, "/remind")
    assert status["text"].startswith("🔕 Reminders are off.")


async def test_a_429_is_waited_out_and_the_reminder_goes_once(fake, bot):
    ada = fake.user(2005, "Ada")
    await say(fake, ada, "/remind 09:30")
    fake.fail_next("sendMessage", 429, retry_after=1, chat_id=ada.id)
    bot.clock.advance(minutes=30)
    await fake.wait_until(lambda: reminders_to(fake, ada.id), timeout=6)
    await asyncio.sleep(5 * TICK)
    assert len(reminders_to(fake, ada.id)) == 1
    codes = [c.error_code for c in fake.calls_to("sendMessage") if c.chat_id == ada.id]
    assert codes == [None, 429, None]  # the /remind reply, the refused try, the reminder


async def test_server_errors_are_retried_a_bounded_number_of_times(fake, bot, monkeypatch):
    monkeypatch.setattr(telegram_limits, "NETWORK_BACKOFF", 0.01)
    ada, bo = fake.user(2006, "Ada"), fake.user(2007, "Bo")
    await say(fake, ada, "/remind 09:30")
    await say(fake, bo, "/remind 09:30")
    fake.fail_next("sendMessage", 500, chat_id=ada.id)  # once: the retry gets through
    fake.fail_next("sendMessage", 502, times=10, chat_id=bo.id)  # for good: given up
    bot.clock.advance(minutes=30)
    await fake.wait_until(lambda: reminders_to(fake, ada.id))
    await settled(bot, bo.id)
    await asyncio.sleep(0.3)
    assert len(reminders_to(fake, ada.id)) == 1 and reminders_to(fake, bo.id) == []
    tries = [c for c in fake.calls_to("sendMessage") if c.chat_id == bo.id and not c.ok]
    assert len(tries) == telegram_limits.NETWORK_RETRIES + 1
    assert (await store.get_reminder(bot.services.db, user_id=bo.id)).on  # tomorrow as usual


async def test_a_connection_lost_after_sending_is_not_retried(fake, bot):
    ada = fake.user(2013, "Ada")
    await say(fake, ada, "/remind 09:30")
    fake.drop_next("sendMessage", after=True)  # Telegram delivered it; the answer got lost
    bot.clock.advance(minutes=30)
    await fake.wait_until(lambda: reminders_to(fake, ada.id))
    await settled(bot, ada.id)
    await asyncio.sleep(0.3)
    # Sending again might have made it two reminders; the one that arrived is the only one.
    assert len(reminders_to(fake, ada.id)) == 1
    assert len([c for c in fake.calls_to("sendMessage") if c.chat_id == ada.id]) == 2


async def test_remind_keyboard_arguments_and_bad_input(fake, bot):
    ada = fake.user(2008, "Ada")
    [status] = await say(fake, ada, "/remind")
    assert status["text"].startswith("🔕 Reminders are off.")
    answer, _ = await tap(fake, ada, status, button(fake, status, "21:00"))
    assert answer["text"] == "⏰ Reminder at 21:00."
    shown = await edited(fake, ada.id, status, "Daily reminder at 21:00")
    assert "Next: today at 21:00." in shown["text"] and button(fake, shown, "✓ 21:00")
    answer, _ = await tap(fake, ada, shown, button(fake, shown, "Off"))
    assert answer["text"] == "🔕 Reminders off."
    shown = await edited(fake, ada.id, status, "Reminders are off")
    assert button(fake, shown, "✓ 🔕 Off")
    [msg] = await say(fake, ada, "/remind 9:30 mon-fri always")
    assert "09:30 (weekdays)" in msg["text"] and "Sent even on days" in msg["text"]
    [msg] = await say(fake, ada, "/remind 9:30 sat,sun")
    assert "09:30 (weekends)" in msg["text"] and "Next: Sat at 09:30." in msg["text"]
    [msg] = await say(fake, ada, "/remind 25:00 <b>")
    assert "couldn't read “25:00 &lt;b&gt;”" in msg["html"]
    [msg] = await say(fake, ada, "/remind off")
    assert msg["text"].startswith("🔕 Reminders are off. Send /remind 09:30")
    stale, _ = await tap(fake, ada, status, "v1:r:2599")
    assert "expired" in stale["text"]
    # Sent in a group, it is answered (and set) in Ada's private chat.
    group = fake.group(-100777, "Study group", members={ada: "member"})
    before = len(fake.bot_messages(ada.id))
    fake.send_message(ada, "/remind@coach_test_bot 09:30", chat_id=group["id"])
    sent = await fake.wait_for_bot_messages(ada.id, before + 2)
    assert sent[before]["text"].startswith("🔒 You sent /remind in")
    assert "09:30" in sent[before + 1]["text"] and fake.bot_messages(group["id"]) == []


async def test_timezone_command_suggestions_and_the_reminder_moves(fake, bot):
    ada = fake.user(2009, "Ada")
    [msg] = await say(fake, ada, "/timezone")
    assert "Your time zone: UTC (the default until you choose one); it's 09:00" in msg["text"]
    assert button(fake, msg, "Europe/Istanbul")
    await say(fake, ada, "/remind 09:30")
    [msg] = await say(fake, ada, "/timezone Istambul")
    assert "don't know the time zone “Istambul”" in msg["text"]
    offered = [text for row in fake.buttons(msg) for text, _ in row]
    assert offered[0] == "Europe/Istanbul" and "Asia/Istanbul" not in offered  # never an alias
    answer, _ = await tap(fake, ada, msg, button(fake, msg, "Europe/Istanbul"))
    assert answer["text"] == "🌍 Time zone: Europe/Istanbul"
    shown = await edited(fake, ada.id, msg, "Time zone set to Europe/Istanbul; it's 12:00 there")
    assert "reminder stays at 09:30 local time; next: tomorrow at 09:30" in shown["text"]
    [msg] = await say(fake, ada, "/timezone america/new_york")
    assert "set to America/New_York; it's 05:00" in msg["text"]
    assert "next: today at 09:30" in msg["text"]
    [msg] = await say(fake, ada, "/timezone UTC+3")
    assert "set to UTC+03:00" in msg["text"]
    [msg] = await say(fake, ada, "/remind")
    assert "Time zone: UTC+03:00." in msg["text"]
    [msg] = await say(fake, ada, "/timezone Mars/Olympus")
    assert "Europe/Istanbul or an offset" in msg["text"] and not fake.buttons(msg)


async def test_turkish_users_default_to_istanbul_and_read_turkish(fake, bot):
    ayse = fake.user(2010, "Ayşe", language_code="tr")
    [msg] = await say(fake, ayse, "/remind 12:30 pzt-cum")
    assert "Hatırlatıcı: 12:30 (hafta içi)" in msg["text"]
    assert "Saat dilimi: Europe/Istanbul (varsayılan" in msg["text"]
    assert "Bir sonraki: bugün saat 12:30." in msg["text"]
    bot.clock.now = datetime(2026, 3, 10, 9, 31, tzinfo=UTC)  # 12:31 in Istanbul
    await fake.wait_until(lambda: reminders_to(fake, ayse.id))
    [reminder] = reminders_to(fake, ayse.id)
    assert "Tekrar zamanı gelen: 0 soru" in reminder["text"] and button(fake, reminder, "Pratiğe başla")


async def test_the_review_count_comes_from_the_services_hook(fake, bot):
    async def three_due(user_id: int, now: datetime) -> int:
        return 3

    bot.services.due_reviews = three_due
    ada = fake.user(2011, "Ada")
    await say(fake, ada, "/remind 09:30")
    bot.clock.advance(minutes=30)
    await fake.wait_until(lambda: reminders_to(fake, ada.id))
    assert "Due for review: 3" in reminders_to(fake, ada.id)[0]["text"]


async def burst(tmp_path: Path, count: int) -> tuple[FakeTelegram, list, float]:
    """`count` users, half due at 08:59 and half at 09:00, found due together at 09:01 by a bot
    with the real rate limiter against a fake that enforces Telegram's flood limits."""
    async with FakeTelegram(spec_path=API_SPEC, rate_limits=True) as fake:
        runner = BotRunner(fake, tmp_path, Clock(datetime(2026, 3, 10, 8, 0, tzinfo=UTC)),
                           reminder_tick_seconds=TICK, rate_limiter=telegram_limits.limiter)
        await runner.start()
        try:
            users = [fake.user(3000 + i, f"U{i}") for i in range(count)]
            for i, user in enumerate(users):
                fake.send_message(user, "/remind 09:00" if i % 2 else "/remind 08:59")
            await fake.wait_until(lambda: all(fake.bot_messages(u.id) for u in users),
                                  timeout=10 + count / 20)
            started = len(fake.calls_to("sendMessage"))
            runner.clock.now = datetime(2026, 3, 10, 9, 1, tzinfo=UTC)
            await fake.wait_until(lambda: all(reminders_to(fake, u.id) for u in users),
                                  timeout=10 + count / 20)
        finally:
            await runner.stop()
        sends = fake.calls_to("sendMessage")[started:]
        return fake, sends, sends[-1].time - sends[0].time


async def test_a_burst_drains_at_the_rate_limit_in_due_order(tmp_path):
    fake, sends, _ = await burst(tmp_path, 40)
    assert len(sends) == 40 and all(c.ok for c in sends)
    order = [int(c.chat_id) % 2 for c in sends]
    # Earliest first: claimed a batch at a time in due order, so every 08:59 one is in the first
    # batch. A batch's sends are in flight together, each on its own connection, so their order
    # of arrival within the batch is the network's.
    assert sorted(order[:BATCH]) == [0] * 20 + [1] * (BATCH - 20)
    assert order[BATCH:] == [1] * (40 - BATCH)
    assert fake.stats.max_per_second() <= 30
    assert fake.stats.too_many_requests == 0 and fake.violations == []


@pytest.mark.slow
async def test_a_600_reminder_burst_measured(tmp_path):
    fake, sends, seconds = await burst(tmp_path, 600)
    rate = (len(sends) - 1) / seconds
    print(f"\n{len(sends)} reminders due at once sent in {seconds:.1f} s: {rate:.1f} messages/s,"
          f" at most {fake.stats.max_per_second()} in any second, "
          f"{fake.stats.too_many_requests} answered 429")
    assert len(sends) == 600 and all(c.ok for c in sends)
    assert [int(c.chat_id) % 2 for c in sends] == [0] * 300 + [1] * 300
    assert 25 <= rate <= 30 and fake.stats.max_per_second() <= 30
    assert fake.stats.too_many_requests == 0 and fake.violations == []
