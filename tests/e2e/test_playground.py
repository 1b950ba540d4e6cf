"""The real bot through the playground's page API (what the web chat does): a private quiz,
another user in the group, and the `python -m bot play` process itself."""

from __future__ import annotations

import httpx
import pytest

from fake_telegram import FakeTelegram, playground
from tests.conftest import TEST_BANK
from tests.emulator.test_webchat import Page
from tests.playground_process import PlaygroundProcess

ADA, AYSE, BOB = 1001, 1002, 1003


@pytest.fixture
async def page(fake: FakeTelegram):
    playground.cast(fake)
    async with httpx.AsyncClient(timeout=10) as http:
        yield Page(http, fake)


async def say(page: Page, user: int, text: str, *, chat: int | None = None,
              expect: int = 1) -> list[dict]:
    """Send like the page does and long-poll until `expect` new bot messages arrive."""
    cursor = (await page.events(user))["cursor"]
    await page.post("send", {"user": user, "chat": chat or user, "text": text})
    return await bot_messages(page, user, cursor, expect)


async def press(page: Page, user: int, message: dict, label: str, *, expect: int = 0):
    """Tap the button whose label contains `label`; the answer's toast and new bot messages."""
    data = next(b["callback_data"] for row in message["reply_markup"]["inline_keyboard"]
                for b in row if label in b["text"])
    cursor = (await page.events(user))["cursor"]
    tapped = await page.post("tap", {"user": user, "chat": message["chat_id"],
                                     "message_id": message["message_id"], "data": data})
    answer, new = None, []
    while answer is None or len(new) < expect:
        news = await page.events(user, since=cursor, wait=5)
        assert news["cursor"] > cursor, "nothing happened within 5 s"
        cursor = news["cursor"]
        answer = answer or next(
            (a for a in news["answers"] if a["query_id"] == tapped["query_id"]), None)
        new += [m for m in news["messages"] if m["from"]["is_bot"] and not m["edited"]]
    return answer, new


async def bot_messages(page: Page, user: int, cursor: int, expect: int) -> list[dict]:
    new: list[dict] = []
    while len(new) < expect:
        news = await page.events(user, since=cursor, wait=5)
        assert news["cursor"] > cursor, f"only {len(new)} of {expect} bot messages within 5 s"
        cursor = news["cursor"]
        new += [m for m in news["messages"] if m["from"]["is_bot"] and not m["edited"]]
    return new


async def test_a_private_quiz_through_the_page_api(fake, bot, page):
    welcome, _, fields = await say(page, ADA, "/start", expect=3)
    assert "Hi \u2068Ada\u2069" in welcome["text"]
    _, [levels] = await press(page, ADA, fields, "Backend", expect=1)
    _, [ready] = await press(page, ADA, levels, "Junior", expect=1)
    [question] = await say(page, ADA, "/quiz")
    assert [b["text"] for b in question["reply_markup"]["inline_keyboard"][0]] == [
        "A", "B", "C", "D"]
    answer, [explanation] = await press(page, ADA, question, "A", expect=1)
    assert answer["text"][0] in "✅❌"
    assert explanation["text"].startswith(("✅ Right!", "❌ The answer is"))
    graded = next(m for m in (await page.events(ADA))["messages"]
                  if m["message_id"] == question["message_id"])
    assert graded["edited"] and "Your answer: A" in graded["text"]


async def test_turkish_user_and_the_group_with_another_user(fake, bot, page):
    [welcome, *_] = await say(page, AYSE, "/start", expect=3)
    assert "Merhaba \u2068Ayşe\u2069" in welcome["text"]
    [reply] = await say(page, BOB, "/help", chat=playground.GROUP_ID)
    assert "/quiz" in reply["text"]
    # Ada sees Bob's command and the bot's reply in the group; Bob's private chat stays his.
    events = (await page.events(ADA))["messages"]
    seen = {(m["chat_id"], m["from"]["first_name"]) for m in events
            if m["chat_id"] != playground.FORUM_ID}
    # The forum holds only the two topics Ada opened.
    assert [m["forum_topic_created"]["name"] for m in events
            if m["chat_id"] == playground.FORUM_ID] == list(playground.FORUM_TOPICS)
    assert seen == {(playground.GROUP_ID, "Bob"), (playground.GROUP_ID, "Coach Test Bot")}
    menu = (await page.get("chats", user=AYSE))["chats"][0]["menu"]
    assert menu[0] == {"command": "start", "description": "Başla: dil, alan ve seviye seç"}


def test_play_needs_no_token_and_cleans_up(tmp_path):
    # A developer's .env for the real bot is not used for the token or the database.
    (tmp_path / ".env").write_text(
        "BOT_TOKEN=999999:REAL-TOKEN-abcdefghijklmnopqrstu\nDATABASE_PATH=real.sqlite3\n")
    process = PlaygroundProcess(tmp_path, QUESTIONS_DIR=str(TEST_BANK))
    try:
        url = process.wait_url()
        assert url.startswith("http://127.0.0.1:") and url.endswith("/play/")
        assert "app.js" in httpx.get(url).text
        users = httpx.get(url + "api/users").json()["users"]
        assert [(u["name"], u["language"]) for u in users] == [
            ("Ada", "en"), ("Ayşe", "tr"), ("Bob", "en")]
    finally:
        assert process.stop() == 0, process.output()
    output = process.output()
    database = next(line.split("database ", 1)[1].strip() for line in process.stdout
                    if "database " in line)
    assert "playground.sqlite3" in database
    assert not (tmp_path / database).exists()  # the temporary database is gone
    assert not (tmp_path / "real.sqlite3").exists()
    assert "Traceback" not in output and "BOT_TOKEN" not in output
    assert "is not a file" not in output  # the spec is said only when one asked for is missing


def test_play_starts_quietly_at_info(tmp_path):
    # No spec asked for (the usual start) and the scheduler's own lines: nothing to warn about.
    process = PlaygroundProcess(tmp_path, QUESTIONS_DIR=str(TEST_BANK), LOG_LEVEL="INFO",
                                TELEGRAM_API_SPEC="")
    process.wait_url()
    assert process.stop() == 0
    output = process.output()
    assert "apscheduler" not in output and "spec" not in output.lower(), output
    assert "WARNING" not in output and "Traceback" not in output, output


def test_play_keeps_a_given_database_and_says_once_that_calls_are_unchecked(tmp_path):
    kept = tmp_path / "kept.sqlite3"
    missing = tmp_path / "no-such-api.json"
    process = PlaygroundProcess(tmp_path, "--db", str(kept), QUESTIONS_DIR=str(TEST_BANK),
                                TELEGRAM_API_SPEC=str(missing))
    process.wait_url()
    assert process.stop() == 0
    assert kept.is_file()
    output = process.output()
    assert output.count("is not a file") == 1 and str(missing) in output, output


def test_play_refuses_a_bad_bank(tmp_path):
    bank = tmp_path / "bank"
    bank.mkdir()
    (bank / "x.yaml").write_text("field: a\ntopic: b\nquestions:\n  - id: q1\n    seniority: x\n")
    broken = PlaygroundProcess(tmp_path, "--questions", str(bank))
    assert broken.process.wait(timeout=60) == 1
    broken.stop()
    assert "x.yaml: question q1" in broken.output() and "Traceback" not in broken.output()
