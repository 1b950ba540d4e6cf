"""Reporting a question end to end: the report button on explanations, one tap per reason, the
optional comment, /flags for admins only, fixed / dismissed, the author's CLI and /deleteme."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from fake_telegram import FakeTelegram
from questions import cli
from tests.e2e.conftest import button, say, tap
from tests.e2e.harness import BotRunner
from tests.e2e.test_practice import onboard

ADMIN = 701


@pytest.fixture
async def bot(fake: FakeTelegram, tmp_path: Path) -> AsyncIterator[BotRunner]:
    runner = BotRunner(fake, tmp_path, admin_ids=frozenset({ADMIN}))
    await runner.start()
    yield runner
    await runner.stop()
    assert fake.violations == [], "the bot made calls Telegram would refuse"


def asked_question(bot, fake, message):
    return next(q for q in bot.services.bank.questions.values()
                if q.key in fake.buttons(message)[0][0][1])


async def answer_one(fake, bot, user):
    [question] = await say(fake, user, "/quiz")
    asked = asked_question(bot, fake, question)
    _, [explanation] = await tap(fake, user, question, fake.buttons(question)[0][0][1], expect=1)
    return asked, explanation


async def report(fake, user, explanation, reason_label: str):
    _, [reasons] = await tap(fake, user, explanation, button(fake, explanation, "Report"),
                             expect=1)
    toast, _ = await tap(fake, user, reasons, button(fake, reasons, reason_label))
    return reasons, toast


async def edited(fake, chat_id, message, text_part: str):
    """The message once the bot has edited it to contain `text_part`."""
    def current():
        return next(m for m in fake.messages(chat_id) if m["message_id"] == message["message_id"])
    await fake.wait_until(lambda: text_part in current().get("text", ""))
    return current()


async def open_flags(bot):
    return await bot.services.db.fetchall(
        "SELECT question_id, user_id, reason, comment, status FROM question_flags ORDER BY id")


async def test_report_with_reason_and_comment_once_per_reason(fake, bot):
    ada = fake.user(1701, "Ada")
    await onboard(fake, ada)
    asked, explanation = await answer_one(fake, bot, ada)
    row = fake.buttons(explanation)[0]
    assert [t for t, _ in row] == ["Next ▶", "⚑ Report"]  # one row, small
    reasons, toast = await report(fake, ada, explanation, "Wrong answer key")
    assert toast["text"] == "Thanks, reported."
    thanked = await edited(fake, ada.id, reasons, "Wrong answer key")
    assert "one line" in thanked["text"] and not thanked.get("reply_markup")
    [saved] = await say(fake, ada, "The <right> answer is B, see the spec")
    assert "comment is added" in saved["text"]
    rows = await open_flags(bot)
    assert [(r["question_id"], r["reason"], r["comment"]) for r in rows] == [
        (asked.id, "key", "The <right> answer is B, see the spec")]
    # The same reason again (from the old reasons message): answered, nothing stored.
    again, _ = await tap(fake, ada, reasons, f"v1:fl:{asked.key}:key")
    assert "already reported" in again["text"]
    # Another reason is another report; a command skips the comment and runs as usual.
    await tap(fake, ada, reasons, f"v1:fl:{asked.key}:typo")
    [stats] = await say(fake, ada, "/stats")
    assert "Answered" in stats["text"]
    rows = await open_flags(bot)
    assert [(r["reason"], r["comment"]) for r in rows] == [
        ("key", "The <right> answer is B, see the spec"), ("typo", None)]
    # After the command, no message is read as a comment.
    assert await bot.services.db.fetchall("SELECT 1 FROM flag_waiting") == []


async def test_a_multi_line_comment_is_refused_and_changes_nothing(fake, bot):
    ada = fake.user(1702, "Ada")
    await onboard(fake, ada)
    _, explanation = await answer_one(fake, bot, ada)
    await report(fake, ada, explanation, "Unclear")
    [msg] = await say(fake, ada, "line one\nline two")
    assert "one line" in msg["text"]
    assert (await open_flags(bot))[0]["comment"] is None
    [msg] = await say(fake, ada, "x" * 201)
    assert "200" in msg["text"]
    [msg] = await say(fake, ada, "fine now")
    assert "comment is added" in msg["text"]
    assert (await open_flags(bot))[0]["comment"] == "fine now"


async def test_the_comment_wait_expires(fake, bot):
    ada = fake.user(1703, "Ada")
    await onboard(fake, ada)
    _, explanation = await answer_one(fake, bot, ada)
    await report(fake, ada, explanation, "Outdated")
    bot.clock.advance(minutes=6)
    [msg] = await say(fake, ada, "/jd")  # a wait of another feature reads the next message
    [msg] = await say(fake, ada, "late comment")
    assert "comment is added" not in msg["text"]
    assert (await open_flags(bot))[0]["comment"] is None


async def test_flags_for_admins_only_grouped_with_fixed_and_dismissed(fake, bot, tmp_path):
    ada, bo, admin = fake.user(1704, "Ada"), fake.user(1705, "Bo"), fake.user(ADMIN, "Root")
    for user in (ada, bo):
        await onboard(fake, user)
    asked, explanation = await answer_one(fake, bot, ada)
    await report(fake, ada, explanation, "Unclear")
    await say(fake, ada, "What does <b>this</b> mean?")
    # Bo reports the same question (the reasons message works for whoever taps it).
    _, [reasons] = await tap(fake, bo, explanation, button(fake, explanation, "Report"),
                             expect=1, chat_id=ada.id)
    await tap(fake, bo, reasons, f"v1:fl:{asked.key}:unclear", chat_id=ada.id)
    [denied] = await say(fake, ada, "/flags")
    assert "don't know that command" in denied["text"]
    forged, _ = await tap(fake, ada, denied, "v1:fx:f:1")
    assert "expired" in forged["text"]
    [listing] = await say(fake, admin, "/flags")
    assert asked.id in listing["text"] and "reports: 2" in listing["text"]
    assert "Unclear ×2" in listing["text"]
    assert "&lt;b&gt;this&lt;/b&gt;" in listing["html"]
    [help_msg] = await say(fake, admin, "/help")
    assert "/flags" in help_msg["text"]
    [help_msg] = await say(fake, ada, "/help")
    assert "/flags" not in help_msg["text"]
    # The author's view, from the database file.
    db_path = str(bot.settings.database_path)
    assert await asyncio.to_thread(cli.main, ["flags", "--db", db_path]) == 0
    dismiss = button(fake, listing, "dismiss")
    toast, _ = await tap(fake, admin, listing, button(fake, listing, "fixed"))
    assert toast["text"] == "Marked fixed."
    await edited(fake, admin.id, listing, "No open reports")
    again, _ = await tap(fake, admin, listing, dismiss)
    assert again["text"] == "You already used this button."  # stale: answered, nothing changes
    statuses = {r["status"] for r in await open_flags(bot)}
    assert statuses == {"fixed"}


async def test_the_cli_prints_open_reports(fake, bot, capsys):
    ada = fake.user(1706, "Ada")
    await onboard(fake, ada)
    asked, explanation = await answer_one(fake, bot, ada)
    await report(fake, ada, explanation, "Typo or translation")
    await say(fake, ada, "typo in the Turkish text")
    capsys.readouterr()
    db_path = str(bot.settings.database_path)
    assert await asyncio.to_thread(cli.main, ["flags", "--db", db_path]) == 0
    out = capsys.readouterr().out
    assert asked.id in out and "typo x1" in out and "typo in the Turkish text" in out
    assert await asyncio.to_thread(cli.main, ["flags", "--db", db_path + ".missing"]) == 1


async def test_review_explanations_have_the_report_button(fake, bot):
    ada = fake.user(1707, "Ada")
    await onboard(fake, ada)
    [question] = await say(fake, ada, "/quiz")
    asked = asked_question(bot, fake, question)
    wrong = next(k for k in asked.option_keys if k != asked.correct)
    await tap(fake, ada, question, f"v1:a:{asked.key}:{wrong}", expect=1)
    bot.clock.advance(minutes=11)
    [due] = await say(fake, ada, "/review")
    _, [explanation] = await tap(fake, ada, due, f"v1:rv:{asked.key}:{asked.correct}", expect=1)
    assert fake.buttons(explanation)[0][-1][0] == "⚑ Report"


async def test_deleteme_erases_the_users_reports(fake, bot):
    ada = fake.user(1708, "Ada")
    await onboard(fake, ada)
    _, explanation = await answer_one(fake, bot, ada)
    await report(fake, ada, explanation, "Outdated")
    [confirm] = await say(fake, ada, "/deleteme")
    await tap(fake, ada, confirm, button(fake, confirm, "Yes, erase"))
    await fake.wait_until(lambda: any("Done" in m.get("text", "") for m in fake.messages(ada.id)))
    rows = await bot.services.db.fetchall("SELECT 1 FROM question_flags WHERE user_id = ?",
                                          (ada.id,))
    assert rows == []
