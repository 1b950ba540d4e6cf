"""/jd and /plan end to end, with the full bundled bank: paste, match, choose, practise, odd input."""

from __future__ import annotations

import copy
import json
import logging
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.logs import setup_logging
from fake_telegram import FakeTelegram
from questions.loader import Bank
from tests.conftest import TEST_TOKEN
from tests.e2e.conftest import button, say, tap
from tests.e2e.harness import BotRunner
from tests.jobmatch.evaluate import load_ads

ADS = {ad["id"]: ad["text"] for ad in load_ads()}
# A 1x1 PNG, for the photo a user might send instead of the ad's text.
PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082")


@pytest.fixture
async def bot(fake: FakeTelegram, tmp_path: Path,
              bundled_bank: Bank) -> AsyncIterator[BotRunner]:
    runner = BotRunner(fake, tmp_path, bank=bundled_bank)
    app = await runner.start()
    # The matcher is built in the background after the start; these tests time the answers.
    await app.bot_data["matcher_warm_up"]
    yield runner
    await runner.stop()
    assert fake.violations == [], "the bot made calls Telegram would refuse"


def current(fake: FakeTelegram, user, message) -> dict:
    """A message as it is now (after edits)."""
    return next(m for m in fake.messages(user.id) if m["message_id"] == message["message_id"])


async def tap_edit(fake, user, message, data: str):
    """Tap a button that edits its message; returns the answer and the message once edited."""
    before = copy.deepcopy(current(fake, user, message))  # messages are edited in place
    answer, _ = await tap(fake, user, message, data)
    edited = await fake.wait_until(
        lambda: (now := current(fake, user, message)) != before and now)
    return answer, edited


async def paste(fake, user, text: str):
    [prompt] = await say(fake, user, "/jd")
    assert ".txt" in prompt["text"]
    [result] = await say(fake, user, text)
    return result


async def nothing_more(fake, user) -> None:
    """Nothing answered the last message: the next bot message is the reply to /help."""
    [reply] = await say(fake, user, "/help")
    assert "/quiz" in reply["text"]


async def test_an_ad_is_matched_and_use_this_starts_a_plan(fake, bot):
    ada = fake.user(2001, "Ada")
    result = await paste(fake, ada, ADS["backend-en-go-senior"])
    text = result["text"]
    assert "Best match: Backend" in text and "% confident" in text
    assert "Level: Senior" in text and "“Senior”" in text
    assert "Kafka" in text and "OpenTelemetry" in text  # the ad's own words, by topic
    assert [label for row in fake.buttons(result) for label, _ in row] == [
        "✅ Use this", "🔁 Change field", "✖️ Cancel"]
    use = button(fake, result, "Use this")
    answer, used = await tap_edit(fake, ada, result, use)
    assert answer.get("text") is None
    assert "Plan started" in used["text"] and "Best match: Backend" in used["text"]
    assert fake.buttons(used) == [[("Start practice ▶", "v1:n")]]
    user = await bot.services.db.fetchone("SELECT field, level FROM users WHERE user_id = ?",
                                          (ada.id,))
    assert (user["field"], user["level"]) == ("backend", "senior")
    again, _ = await tap(fake, ada, result, use)  # a double tap
    assert "expired" in again["text"]

    [plan] = await say(fake, ada, "/plan")
    assert "Your plan: Backend" in plan["text"] and "not practised yet" in plan["text"]
    assert "since 10 Mar 2026" in plan["text"]  # the same date format as everywhere in English
    _, [question] = await tap(fake, ada, used, "v1:n", expect=1)
    await tap(fake, ada, question, fake.buttons(question)[0][0][1], expect=1)
    [plan] = await say(fake, ada, "/plan")
    assert "1 answered" in plan["text"] or "not practised yet" in plan["text"]
    [ended] = await say(fake, ada, "/plan off")
    assert "Plan ended" in ended["text"]
    [none] = await say(fake, ada, "/plan")
    assert "no plan" in none["text"]
    [bad] = await say(fake, ada, "/plan sideways")
    assert "/plan off" in bad["text"]


async def test_plan_questions_lean_to_the_plan_topics(fake, bot):
    ada = fake.user(2002, "Ada")
    result = await paste(fake, ada, ADS["data-tr-mid-etl"])
    await tap_edit(fake, ada, result, button(fake, result, "Use this"))
    plan = await bot.services.db.fetchone("SELECT topics FROM jd_plans WHERE user_id = ?",
                                          (ada.id,))
    topics = set(json.loads(plan["topics"]))
    assert len(topics) < len(bot.services.bank.fields["data-engineer"].topics)
    asked = []
    for _ in range(12):
        [question] = await say(fake, ada, "/quiz")
        key = fake.buttons(question)[0][0][1].split(":")[2]
        asked.append(bot.services.bank.by_key[key].topic)
    assert sum(topic in topics for topic in asked) >= 6


async def test_a_turkish_ad_for_a_turkish_user(fake, bot):
    ayse = fake.user(2003, "Ayşe", language_code="tr")
    result = await paste(fake, ayse, ADS["mobile-tr-android-mid"])
    assert "En uygun alan: Mobil" in result["text"] and "Seviye: Mid" in result["text"]
    assert "Kotlin" in result["text"]
    labels = [label for row in fake.buttons(result) for label, _ in row]
    assert labels == ["✅ Bunu kullan", "🔁 Alanı değiştir", "✖️ Vazgeç"]


async def test_the_ad_may_follow_the_command(fake, bot):
    ada = fake.user(2004, "Ada")
    [result] = await say(fake, ada, "/jd " + ADS["security-en-pentest-mid"])
    assert "Best match: Security" in result["text"] and "Level: Mid" in result["text"]


async def test_an_off_topic_ad_gets_an_honest_answer_and_a_field_list(fake, bot):
    ada = fake.user(2005, "Ada")
    result = await paste(fake, ada, ADS["offtopic-en-chef"])
    assert "No confident match" in result["text"]
    labels = [label for row in fake.buttons(result) for label, _ in row]
    assert "Backend" in labels and "Game Development" in labels and labels[-1] == "✖️ Cancel"
    _, chosen = await tap_edit(fake, ada, result, button(fake, result, "Frontend"))
    assert "Frontend (your choice)" in chosen["text"] and "Level: Mid" in chosen["text"]
    assert "names none of this field's topics" in chosen["text"]
    _, done = await tap_edit(fake, ada, chosen, button(fake, chosen, "Use this"))
    assert "Field Frontend and level Mid set. No plan" in done["text"]
    user = await bot.services.db.fetchone("SELECT field FROM users WHERE user_id = ?", (ada.id,))
    assert user["field"] == "frontend"


async def test_change_field_then_cancel_changes_nothing(fake, bot):
    ada = fake.user(2006, "Ada")
    result = await paste(fake, ada, ADS["fullstack-en-next-mid"])
    assert "Best match: Fullstack" in result["text"]
    _, listing = await tap_edit(fake, ada, result, button(fake, result, "Change field"))
    assert "Which field" in listing["text"]
    _, chosen = await tap_edit(fake, ada, listing, button(fake, listing, "Backend"))
    assert "Backend (your choice)" in chosen["text"] and "Topics of this field" in chosen["text"]
    use = button(fake, chosen, "Use this")
    _, cancelled = await tap_edit(fake, ada, chosen, button(fake, chosen, "Cancel"))
    assert "Cancelled" in cancelled["text"] and not fake.buttons(cancelled)
    late, _ = await tap(fake, ada, chosen, use)
    assert "expired" in late["text"]
    user = await bot.services.db.fetchone("SELECT field FROM users WHERE user_id = ?", (ada.id,))
    assert user["field"] is None
    assert await bot.services.db.fetchone("SELECT * FROM jd_plans") is None


async def test_forged_and_foreign_buttons_are_answered_and_change_nothing(fake, bot):
    ada, bo = fake.user(2007, "Ada"), fake.user(2008, "Bo")
    result = await paste(fake, ada, ADS["qa-en-automation-mid"])
    use = button(fake, result, "Use this")
    [hello] = await say(fake, bo, "/help")
    for data in (use, "v1:j:u:999999:0", "v1:j:zz:1", "v1:jf:x:y", "v1:jf:1:99", "v1:j",
                 "v1:j:u:99999999999999999999:0", "v1:jf:1:99999999999999999999"):
        answer, _ = await tap(fake, bo, hello, data)
        assert "expired" in answer["text"], data
    assert await bot.services.db.fetchone("SELECT * FROM jd_plans") is None


async def test_odd_input_gets_a_clear_answer_and_the_wait_goes_on(fake, bot):
    ada = fake.user(2009, "Ada")
    await say(fake, ada, "/jd")
    [short] = await say(fake, ada, "Python developer")
    assert "too short" in short["text"]
    before = len(fake.bot_messages(ada.id))
    fake.send_photo(ada, PNG)
    [photo] = (await fake.wait_for_bot_messages(ada.id, before + 1))[before:]
    assert "can't read pictures" in photo["text"]
    for name, data, mime, expected in [
        ("ad.pdf", b"%PDF-1.7 ...", "application/pdf", "only read text or .txt"),
        ("ad.docx", b"PK\x03\x04", None, "I only read text"),
        ("ad.txt", b"a" * (100 * 1024 + 1), "text/plain", "up to 100 KB"),
        ("ad.txt", bytes(range(256)) * 8, "text/plain", "I only read text"),
    ]:
        before = len(fake.bot_messages(ada.id))
        fake.send_document(ada, name, data, mime_type=mime)
        [reply] = (await fake.wait_for_bot_messages(ada.id, before + 1))[before:]
        assert expected in reply["text"], (name, reply["text"])
    before = len(fake.bot_messages(ada.id))
    fake.send_document(ada, "ad.txt", ADS["database-tr-dba-mid"].encode("utf-8"))
    [result] = (await fake.wait_for_bot_messages(ada.id, before + 1))[before:]
    assert "Best match: Database" in result["text"]
    await nothing_more(fake, ada)  # matched: the wait is over, plain text is left alone
    fake.send_message(ada, ADS["database-tr-dba-mid"])
    await nothing_more(fake, ada)


async def test_a_forwarded_picture_with_the_ad_in_its_caption_is_read(fake, bot):
    ada = fake.user(2014, "Ada")
    await say(fake, ada, "/jd")
    before = len(fake.bot_messages(ada.id))
    caption = ("Junior Flutter Developer wanted: Flutter and Dart, widgets and state management, "
               "REST APIs, offline storage with SQLite, publishing to Google Play and TestFlight.")
    fake.send_photo(ada, PNG, caption=caption)
    [result] = (await fake.wait_for_bot_messages(ada.id, before + 1))[before:]
    assert "Best match: Mobile" in result["text"] and "Level: Junior" in result["text"]


async def test_the_wait_survives_a_restart_and_ends_after_ten_minutes(fake, bot):
    ada = fake.user(2010, "Ada")
    await say(fake, ada, "/jd")
    await bot.restart()
    [result] = await say(fake, ada, ADS["ml-en-senior-pytorch"])
    assert "Best match: ML Engineer" in result["text"]
    await say(fake, ada, "/jd")
    bot.clock.advance(minutes=10, seconds=1)
    fake.send_message(ada, ADS["ml-en-senior-pytorch"])
    await nothing_more(fake, ada)


async def test_plain_messages_without_jd_are_left_alone(fake, bot):
    ada = fake.user(2011, "Ada")
    fake.send_message(ada, ADS["game-en-unreal-senior"])
    await nothing_more(fake, ada)


async def test_jd_in_a_group_points_to_the_private_chat(fake, bot):
    ada = fake.user(2012, "Ada")
    fake.group(-2012, "Interview club", {ada: "member"})
    [reply] = await say(fake, ada, "/jd", chat_id=-2012)
    assert "private chat" in reply["text"]


async def test_the_ad_is_neither_stored_nor_logged(fake, bot, caplog):
    root, telegram = logging.getLogger(), logging.getLogger("telegram")
    levels = root.level, telegram.level
    marker = "Quokkaworks"
    ad = ADS["devops-tr-sre-senior"].replace("ödeme platformumuzun",
                                             f"{marker} ödeme platformunun")
    try:
        setup_logging("DEBUG", TEST_TOKEN)
        caplog.set_level(logging.DEBUG)
        ada = fake.user(2013, "Ada")
        result = await paste(fake, ada, ad)
        await tap_edit(fake, ada, result, button(fake, result, "Use this"))
    finally:
        root.setLevel(levels[0])
        telegram.setLevel(levels[1])
    assert "Best match: DevOps / Cloud" in result["text"]
    assert marker not in caplog.text
    await bot.stop()
    database = bot.settings.database_path
    for path in (database, Path(f"{database}-wal")):
        if path.exists():
            assert marker.encode() not in path.read_bytes(), path
    await bot.start()
