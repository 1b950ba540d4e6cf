"""Admin uploads and /reload through the fake Telegram: imports go live, bad files change nothing,
progress survives a reload, and the admin tools stay hidden from everyone else."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from fake_telegram import FakeTelegram
from tests.conftest import TEST_BANK
from tests.e2e.conftest import button, say, tap
from tests.e2e.harness import BotRunner
from tests.question_files import csv_bytes, row, snapshot
from tests.shared_files import catalog_sample

ADMIN = 501


@pytest.fixture
async def bot(fake: FakeTelegram, tmp_path: Path) -> AsyncIterator[BotRunner]:
    """The bot with its own copy of the test bank and one admin."""
    questions = tmp_path / "questions"
    shutil.copytree(TEST_BANK, questions)
    runner = BotRunner(fake, tmp_path, questions_dir=questions, admin_ids=frozenset({ADMIN}))
    await runner.start()
    yield runner
    await runner.stop()
    assert fake.violations == [], "the bot made calls Telegram would refuse"


async def upload(fake, user, name: str, data: bytes, caption: str | None = None, expect=1):
    before = len(fake.bot_messages(user.id))
    fake.send_document(user, name, data, caption=caption)
    return (await fake.wait_for_bot_messages(user.id, before + expect))[before:]


def new_topic_rows() -> list[dict[str, str]]:
    return [row("be-new-001", topic="new-topic", topic_name="New topic"),
            row("be-new-001", locale="tr", topic="new-topic", topic_name="Yeni konu")]


async def test_an_admin_upload_is_imported_and_live(fake, bot):
    admin = fake.user(ADMIN, "Ada")
    [reply] = await upload(fake, admin, "new.csv", csv_bytes(new_topic_rows()))
    assert reply["text"].startswith("📥 Imported \u2068new.csv\u2069: 1 added, 0 updated, 0 unchanged.")
    assert "backend/new-topic: +1 ~0 =0" in reply["text"]
    assert "The bank now has 6 questions, live for everyone." in reply["text"]
    questions_dir = bot.settings.questions_dir
    assert (questions_dir / "backend" / "new-topic.yaml").is_file()
    assert "be-new-001" in bot.services.bank.questions and bot.services.bank_version == 1
    # The same file again: nothing changes, nothing is written.
    before = snapshot(questions_dir)
    [again] = await upload(fake, admin, "new.csv", csv_bytes(new_topic_rows()))
    assert again["text"].startswith("📥 Imported \u2068new.csv\u2069: 0 added, 0 updated, 1 unchanged.")
    assert snapshot(questions_dir) == before


async def test_a_user_gets_the_imported_question(fake, bot):
    admin, ada = fake.user(ADMIN, "Ada"), fake.user(601, "Bo")
    await upload(fake, admin, "new.csv", csv_bytes(new_topic_rows()))
    await say(fake, ada, "/start", expect=3)
    [_, lang_msg, field_msg] = fake.bot_messages(ada.id)[-3:]
    _, [level_msg] = await tap(fake, ada, field_msg, button(fake, field_msg, "Backend"), expect=1)
    await tap(fake, ada, level_msg, button(fake, level_msg, "Mid"), expect=1)
    [question] = await say(fake, ada, "/quiz new-topic")
    assert "Which header lets a CDN serve a stale copy?" in question["text"]
    assert "New topic" in question["text"]


async def test_an_invalid_upload_lists_the_errors_and_changes_nothing(fake, bot):
    admin = fake.user(ADMIN, "Ada")
    before = snapshot(bot.settings.questions_dir)
    bank = bot.services.bank
    rows = [row("be-new-001", topic="t", correct="z"), row("be-new-002", topic="t", locale="xx")]
    [reply] = await upload(fake, admin, "bad.csv", csv_bytes(rows))
    assert reply["text"].startswith("❌ \u2068bad.csv\u2069 was not imported: 2 problems. Nothing changed.")
    assert "• bad.csv: row 2: correct key 'z' is not one of the options" in reply["text"]
    assert "• bad.csv: row 3: locale 'xx': use en or tr" in reply["text"]
    assert snapshot(bot.settings.questions_dir) == before
    assert bot.services.bank is bank


async def test_broken_files_get_a_clear_reply(fake, bot):
    admin = fake.user(ADMIN, "Ada")
    [reply] = await upload(fake, admin, "sheet.csv", "body,correct\nç".encode("latin-1"))
    assert "not UTF-8 text" in reply["text"] and "CSV UTF-8" in reply["text"]
    [reply] = await upload(fake, admin, "page.json", b"[" * 50_000)
    assert "nested too deeply" in reply["text"]
    [reply] = await upload(fake, admin, "pack.yaml", b"field: [unclosed")
    assert "not valid YAML" in reply["text"]


async def test_many_problems_are_cut_to_one_message(fake, bot):
    admin = fake.user(ADMIN, "Ada")
    rows = [row(f"be-x-{n:03d}", topic="t", seniority="expert" + "x" * 300) for n in range(200)]
    [reply] = await upload(fake, admin, "many.csv", csv_bytes(rows))
    assert "200 problems" in reply["text"] and "… +188" in reply["text"]
    assert len(reply["text"]) < 4096


async def test_the_shared_catalog_sample_can_be_uploaded(fake, bot):
    admin = fake.user(ADMIN, "Ada")
    sample = catalog_sample().read_bytes()
    [reply] = await upload(fake, admin, "catalog.json", sample)
    assert reply["text"].startswith("📥 Imported \u2068catalog.json\u2069: 6 added")
    assert "ml-engineer/ti-distributed-strategies-sync: +6" in reply["text"]
    ids = {q.id for q in bot.services.bank.pool("ml-engineer")}
    assert "01a05d13-8d21-739a-baa2-7dab67be4093" in ids


async def test_caption_flags_dry_run_and_a_bad_caption(fake, bot):
    admin = fake.user(ADMIN, "Ada")
    before = snapshot(bot.settings.questions_dir)
    [reply] = await upload(fake, admin, "new.csv", csv_bytes(new_topic_rows()),
                           caption="--level senior --dry-run")
    assert reply["text"].startswith("🔎 Dry run of \u2068new.csv\u2069: 1 would be added")
    assert snapshot(bot.settings.questions_dir) == before
    [reply] = await upload(fake, admin, "new.csv", csv_bytes(new_topic_rows()),
                           caption="please import")
    assert reply["text"].startswith("❌ I did not understand the caption.")
    [reply] = await upload(fake, admin, "new.csv", csv_bytes(new_topic_rows()),
                           caption="--level=senior")
    assert reply["text"].startswith("📥 Imported")
    assert bot.services.bank.questions["be-new-001"].seniority == "senior"


async def test_a_file_over_20_mb_is_refused_before_downloading(fake, bot):
    admin = fake.user(ADMIN, "Ada")
    [reply] = await upload(fake, admin, "huge.csv", b"x" * (20 * 1024 * 1024 + 1))
    assert reply["text"] == "❌ \u2068huge.csv\u2069 is larger than 20 MB. Split it into smaller files."
    assert fake.calls_to("getFile") == []


async def test_files_from_non_admins_and_other_files_are_left_alone(fake, bot):
    ada, admin = fake.user(602, "Ada"), fake.user(ADMIN, "Bo")
    before = snapshot(bot.settings.questions_dir)
    fake.send_document(ada, "new.csv", csv_bytes(new_topic_rows()))
    fake.send_document(admin, "notes.txt", b"hello")
    [help_reply] = await say(fake, ada, "/help")
    assert help_reply["text"].startswith("Interview coach")
    await say(fake, admin, "/help")
    assert fake.calls_to("getFile") == []
    assert snapshot(bot.settings.questions_dir) == before


async def test_reload_swaps_the_bank_and_refuses_a_broken_one(fake, bot):
    admin = fake.user(ADMIN, "Ada")
    questions = bot.settings.questions_dir
    seen = []
    bot.services.on_bank_change(lambda bank: seen.append(len(bank)))
    shutil.copy(questions / "backend" / "queues.yaml", questions / "queues-copy.yaml")
    (questions / "queues-copy.yaml").write_text(
        (questions / "queues-copy.yaml").read_text().replace("topic: queues", "topic: queues2")
        .replace("test-queue-001", "test-queue-002"))
    [reply] = await say(fake, admin, "/reload")
    assert reply["text"] == ("🔄 Reloaded: 6 questions in 2 fields (1 new, 0 gone). "
                             "Progress is kept.")
    assert seen == [6] and bot.services.bank_version == 1
    good = bot.services.bank
    (questions / "broken.yaml").write_text("field: x\ntopic: y\nquestions: [{id: q}]\n")
    [reply] = await say(fake, admin, "/reload")
    assert reply["text"].startswith("❌ The question folder has")
    assert "kept the bank in use (6 questions)" in reply["text"]
    assert "broken.yaml: question q" in reply["text"]
    assert bot.services.bank is good and bot.services.bank_version == 1


async def test_progress_survives_a_reload_and_removed_questions_are_skipped(fake, bot):
    admin, ada = fake.user(ADMIN, "Ada"), fake.user(603, "Bo")
    await say(fake, ada, "/start", expect=3)
    field_msg = fake.bot_messages(ada.id)[-1]
    _, [level_msg] = await tap(fake, ada, field_msg, button(fake, field_msg, "Frontend"), expect=1)
    await tap(fake, ada, level_msg, button(fake, level_msg, "Junior"), expect=1)
    [first] = await say(fake, ada, "/quiz")
    await tap(fake, ada, first, fake.buttons(first)[0][0][1], expect=1)
    [second] = await say(fake, ada, "/quiz")  # the frontend field has one junior question
    # The admin removes the frontend topic and reloads.
    (bot.settings.questions_dir / "frontend" / "css.yaml").unlink()
    [reply] = await say(fake, admin, "/reload")
    assert "(0 new, 1 gone)" in reply["text"]
    answer, _ = await tap(fake, ada, second, fake.buttons(second)[0][0][1])
    assert "expired" in answer["text"]
    [stats] = await say(fake, ada, "/stats")
    assert "Answered: 1" in stats["text"]


async def test_admin_commands_are_only_in_the_admins_help(fake, bot):
    admin, ada = fake.user(ADMIN, "Ada"), fake.user(604, "Bo", language_code="tr")
    [admin_help] = await say(fake, admin, "/help")
    assert "/reload — Re-read the question folder (admins)" in admin_help["text"]
    assert "Send a .csv, .json (catalog page) or .yaml file here" in admin_help["text"]
    [user_help] = await say(fake, ada, "/help")
    assert "/reload" not in user_help["text"] and "Yönetici" not in user_help["text"]
    [unknown] = await say(fake, ada, "/reload")
    assert unknown["text"].startswith("Bu komutu bilmiyorum.")
    menus = [call.params["commands"] for call in fake.calls_to("setMyCommands")]
    assert menus and all("reload" not in str(commands) for commands in menus)


async def test_a_folder_that_cannot_be_written_gets_a_clear_reply(fake, bot):
    admin = fake.user(ADMIN, "Ada")
    # A plain file where the new field's folder has to go (permissions would not stop root).
    (bot.settings.questions_dir / "wf").write_text("not a folder")
    rows = [row("wf-001", field="wf", topic="t")]
    [reply] = await upload(fake, admin, "new.csv", csv_bytes(rows))
    assert reply["text"] == ("❌ \u2068new.csv\u2069 could not be written to the question folder "
                             "(File exists). The bank is unchanged.")
    assert "wf-001" not in bot.services.bank.questions


async def test_an_empty_or_header_only_file_is_said_to_hold_no_questions(fake, bot):
    admin = fake.user(ADMIN, "Ada")
    before = snapshot(bot.settings.questions_dir)
    for name, data in (("empty.csv", b""), ("header.csv", csv_bytes([])),
                       ("blank.yaml", b"\n")):
        [reply] = await upload(fake, admin, name, data)
        assert reply["text"] == (f"📭 \u2068{name}\u2069 holds no questions (an empty file, or a "
                                 "header row only). Nothing changed.")
    assert snapshot(bot.settings.questions_dir) == before
