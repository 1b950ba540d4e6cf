"""Issue 20, flows: /quiz finds a topic by name or near miss and offers the list otherwise,
/quiz before onboarding onboards, /topics keeps its list, /plan counts one thing, long labels."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from questions.cli import BUNDLED
from questions.loader import Bank, load_bank
from storage import jobmatch as plans
from tests.e2e.conftest import button, say, tap
from tests.e2e.harness import BotRunner
from tests.e2e.test_coach import coach, onboard  # noqa: F401 (a fixture)
from tests.e2e.test_practice import onboard as onboard_full


@pytest.fixture(scope="module")
def bundled() -> Bank:
    return load_bank(BUNDLED)


@pytest.fixture
async def full(fake, tmp_path: Path, bundled: Bank) -> AsyncIterator[BotRunner]:
    """The bot with the whole bundled bank: real topic names, long field names."""
    runner = BotRunner(fake, tmp_path, bank=bundled)
    await runner.start()
    yield runner
    await runner.stop()
    assert fake.violations == [], "the bot made calls Telegram would refuse"


def labels(fake, message) -> list[list[str]]:
    return [[label for label, _ in row] for row in fake.buttons(message)]


async def test_quiz_before_onboarding_shows_the_field_picker(fake, bot):
    ada = fake.user(3001, "Ada")
    [picker] = await say(fake, ada, "/quiz")
    assert "/start" not in picker["text"]
    assert any("Backend" in label for row in labels(fake, picker) for label in row)
    _, [level_msg] = await tap(fake, ada, picker, button(fake, picker, "Backend"), expect=1)
    _, [ready] = await tap(fake, ada, level_msg, button(fake, level_msg, "Junior"), expect=1)
    assert "All set" in ready["text"]


async def test_quiz_topic_by_name_in_either_language_or_near_miss(fake, full):
    ada = fake.user(3002, "Ada")
    await onboard_full(fake, ada, field="Database")
    bank = full.services.bank
    for wanted in ("indexes", "İndeksleme", "indexing and query plans", "Indexing"):
        [question] = await say(fake, ada, f"/quiz {wanted}")
        key = fake.buttons(question)[0][0][1].split(":")[2]
        assert bank.by_key[key].topic == "indexing", wanted


async def test_quiz_unknown_topic_offers_the_topics_as_buttons(fake, full):
    ada = fake.user(3003, "Ada")
    await onboard_full(fake, ada, field="Database")
    [offer] = await say(fake, ada, "/quiz <zzz>")
    assert "“<zzz>”" in offer["text"] and "&lt;zzz&gt;" in offer["html"]
    names = [label for row in labels(fake, offer) for label in row]
    assert "Indexing and query plans" in names
    _, [question] = await tap(fake, ada, offer, button(fake, offer, "Indexing"), expect=1)
    key = fake.buttons(question)[0][0][1].split(":")[2]
    assert full.services.bank.by_key[key].topic == "indexing"
    still = next(m for m in fake.messages(ada.id) if m["message_id"] == offer["message_id"])
    assert labels(fake, still) == labels(fake, offer)  # the list stays for another pick


async def test_topics_tap_keeps_the_list_and_the_count_is_labelled(fake, coach):  # noqa: F811
    ada = fake.user(3004, "Ada")
    await onboard(fake, ada)
    [question] = await say(fake, ada, "/quiz api")
    await tap(fake, ada, question, fake.buttons(question)[0][0][1], expect=1)
    [msg] = await say(fake, ada, "/topics")
    assert "REST APIs (1 answered)" in msg["text"]
    _, [asked] = await tap(fake, ada, msg, button(fake, msg, "Caching"), expect=1)
    assert "Caching question" in asked["text"]
    still = next(m for m in fake.messages(ada.id) if m["message_id"] == msg["message_id"])
    assert labels(fake, still) == labels(fake, msg)
    _, [again] = await tap(fake, ada, still, button(fake, still, "Databases"), expect=1)
    assert "Databases question" in again["text"]


async def test_plan_counts_the_same_questions_on_both_sides(fake, coach):  # noqa: F811
    ada = fake.user(3005, "Ada")
    await onboard(fake, ada)
    db = coach.services.db
    now = int(coach.services.now().timestamp()) - 60
    match = await plans.save_match(db, user_id=ada.id, level="junior", ranking=[], now=now)
    assert await plans.adopt_match(db, match_id=match, user_id=ada.id, field="backend",
                                   level="junior", topics=["api"], now=now)
    await say(fake, ada, "/level mid")
    [question] = await say(fake, ada, "/quiz api")  # the topic's one mid question
    await tap(fake, ada, question, fake.buttons(question)[0][0][1], expect=1)
    await say(fake, ada, "/level junior")
    [plan] = await say(fake, ada, "/plan")
    assert "1 answered" in plan["text"] and "1/4 questions seen" in plan["text"]


async def test_long_labels_get_a_row_of_their_own(fake, full):
    ada = fake.user(3006, "Ada")
    _, _, picker = await say(fake, ada, "/start", expect=3)
    rows = labels(fake, picker)
    assert ["QA / Test Automation"] in rows
    assert all(len(row) == 1 for row in rows if any(len(label) > 16 for label in row))
    await tap(fake, ada, picker, button(fake, picker, "DevOps"), expect=1)
    await say(fake, ada, "/language tr")
    [msg] = await say(fake, ada, "/topics")
    assert ["Gözlemlenebilirlik ve olay müdahalesi"] in labels(fake, msg)
