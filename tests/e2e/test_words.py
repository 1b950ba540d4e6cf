"""Words end to end (issue 20): plural forms, dates, the bot's description, the menu in the
chosen language, /remind in Turkish words, the reminder's wording after practising."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from fake_telegram import FakeTelegram
from tests.e2e.conftest import button, say, tap
from tests.e2e.harness import BotRunner
from tests.e2e.test_practice import onboard

TICK = 0.05


@pytest.fixture
async def bot(fake: FakeTelegram, tmp_path: Path) -> AsyncIterator[BotRunner]:
    runner = BotRunner(fake, tmp_path, reminder_tick_seconds=TICK)
    await runner.start()
    yield runner
    await runner.stop()
    assert fake.violations == [], "the bot made calls Telegram would refuse"


async def answer_one(fake: FakeTelegram, bot: BotRunner, user) -> None:
    """Answer one /quiz question (right or wrong does not matter here)."""
    [question] = await say(fake, user, "/quiz")
    await tap(fake, user, question, fake.buttons(question)[0][0][1], expect=1)


async def test_an_empty_chat_says_what_the_bot_does_in_both_languages(fake, bot):
    english = fake.bot_texts[("description", "")]
    turkish = fake.bot_texts[("description", "tr")]
    assert "interview coach" in english and "mülakat koçu" in turkish
    assert fake.bot_texts[("short_description", "")].startswith("Interview coach")
    assert fake.bot_texts[("short_description", "tr")].startswith("Mülakat koçu")
    assert len(english) <= 512 and len(fake.bot_texts[("short_description", "tr")]) <= 120


async def test_the_command_menu_follows_the_language_the_user_chose(fake, bot):
    ada = fake.user(3001, "Ada", language_code="en")
    await onboard(fake, ada)
    assert fake.menu_for(ada, ada.id)[0]["description"].startswith("Start and choose")
    await say(fake, ada, "/language tr")
    menu = {c["command"]: c["description"] for c in fake.menu_for(ada, ada.id)}
    assert menu["start"] == "Başla: dil, alan ve seviye seç" and "remind" in menu
    # Back to English with the button: the menu follows again.
    [choice] = await say(fake, ada, "/language")
    await tap(fake, ada, choice, button(fake, choice, "English"))
    await fake.wait_until(lambda: fake.menu_for(ada, ada.id)[0]["description"]
                          .startswith("Start and choose") or None)
    # Someone else's menu is untouched.
    bo = fake.user(3002, "Bo", language_code="tr")
    assert fake.menu_for(bo, bo.id)[0]["description"].startswith("Başla")
    await say(fake, bo, "/language en")
    assert fake.menu_for(bo, bo.id)[0]["description"].startswith("Start and choose")
    # /deleteme forgets the choice: the menu is Telegram's language's again.
    [confirm] = await say(fake, bo, "/deleteme")
    await tap(fake, bo, confirm, button(fake, confirm, "Yes"))
    await fake.wait_until(lambda: fake.menu_for(bo, bo.id)[0]["description"]
                          .startswith("Başla") or None)


async def test_counted_words_take_their_plural_form(fake, bot):
    ada = fake.user(3003, "Ada")
    await onboard(fake, ada)
    await answer_one(fake, bot, ada)
    [stats] = (await say(fake, ada, "/stats", expect=2))[:1]
    assert "Streak: 1 day · Best: 1 day" in stats["text"] and "(s)" not in stats["text"]
    await say(fake, ada, "/language tr")
    [stats] = (await say(fake, ada, "/stats", expect=2))[:1]
    assert "Seri: 1 gün · En iyi: 1 gün" in stats["text"]


async def test_remind_reads_the_turkish_words_it_prints(fake, bot):
    ayse = fake.user(3004, "Ayşe", language_code="tr")
    [msg] = await say(fake, ayse, "/remind 12:30 hafta içi")
    assert "Hatırlatıcı: 12:30 (hafta içi)" in msg["text"]
    [msg] = await say(fake, ayse, "/remind 12:30 Hafta Sonu")
    assert "Hatırlatıcı: 12:30 (hafta sonu)" in msg["text"]
    [msg] = await say(fake, ayse, "/remind 12:30 her gün")
    assert "Hatırlatıcı: 12:30 (her gün)" in msg["text"]
    [msg] = await say(fake, ayse, "/remind 12:30 Pzt–Cum her zaman")
    assert "(hafta içi)" in msg["text"] and "Pratik yaptığın günlerde de gönderilir" in msg["text"]
    [msg] = await say(fake, ayse, "/remind kapat")
    assert msg["text"].startswith("🔕 Hatırlatıcılar kapatıldı.")
    # The English words keep working.
    [msg] = await say(fake, ayse, "/remind 09:30 mon-fri always")
    assert "(hafta içi)" in msg["text"]
    [msg] = await say(fake, ayse, "/remind off")
    assert msg["text"].startswith("🔕")


async def test_after_practising_today_remind_names_tomorrows_reminder(fake, bot):
    ada = fake.user(3005, "Ada")
    await onboard(fake, ada)
    [msg] = await say(fake, ada, "/remind 21:00")
    assert "Next: today at 21:00." in msg["text"]
    await answer_one(fake, bot, ada)
    [msg] = await say(fake, ada, "/remind")
    assert "Next: tomorrow at 21:00." in msg["text"]  # today's will not be sent
    [msg] = await say(fake, ada, "/remind 21:00 always")
    assert "Next: today at 21:00." in msg["text"]  # an `always` one will


async def test_an_always_reminder_after_practising_does_not_say_one_question_keeps_the_streak(
        fake, bot):
    ada = fake.user(3006, "Ada")
    await onboard(fake, ada)
    await say(fake, ada, "/remind 09:30 always")
    await answer_one(fake, bot, ada)
    before = len(fake.bot_messages(ada.id))
    bot.clock.now = datetime(2026, 3, 10, 9, 31, tzinfo=UTC)
    [reminder] = (await fake.wait_for_bot_messages(ada.id, before + 1))[before:]
    assert reminder["text"].startswith("⏰ Time to practise!")
    assert "Streak: 1 day ·" in reminder["text"]
    assert "keeps your" not in reminder["text"] and "streak is safe" in reminder["text"]
    await asyncio.sleep(3 * TICK)
