"""Group rounds end to end in a supergroup with three members and an admin: first taps,
reveals, scoreboards, the leaderboard, /stop, group settings, restarts and the send budget."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot import callbacks
from fake_telegram import FakeTelegram, FakeUser
from tests.e2e.conftest import say, tap
from tests.e2e.harness import BotRunner
from tests.shared_files import API_SPEC

# Run on SQLite and again on PostgreSQL (tests/conftest.py).
pytestmark = pytest.mark.both_databases

GROUP = -1001234567890
# Short timers for tests; the countdown is tested on its own.
FAST = {"round_min_seconds": 1, "round_pause_seconds": 0.1, "round_tick_seconds": 0}


@dataclass
class Team:
    admin: FakeUser
    ada: FakeUser
    bob: FakeUser
    cem: FakeUser


@pytest.fixture
def team(fake: FakeTelegram) -> Team:
    members = Team(fake.user(3001, "Ana"), fake.user(3002, "Ada"), fake.user(3003, "Bob"),
                   fake.user(3004, "Cem", language_code="tr"))
    fake.group(GROUP, "Interview Prep", members={
        members.admin: "administrator", members.ada: "member", members.bob: "member",
        members.cem: "member"})
    return members


@pytest.fixture
async def rounds_bot(fake: FakeTelegram, tmp_path: Path) -> AsyncIterator[BotRunner]:
    runner = BotRunner(fake, tmp_path, **FAST)
    await runner.start()
    yield runner
    await runner.stop()
    assert fake.violations == [], "the bot made calls Telegram would refuse"


def group_says(fake, user, text, expect=1):
    return say(fake, user, text, expect=expect, chat_id=GROUP)


def round_questions(fake) -> list[dict]:
    """The round question messages in the group, as they are now (edits included)."""
    return [m for m in fake.bot_messages(GROUP)
            if any((d or "").startswith("v1:g:") for row in fake.buttons(m) for _, d in row)
            or "Question " in m.get("text", "") or "Soru " in m.get("text", "")]


def current(fake, message) -> dict:
    return next(m for m in fake.bot_messages(GROUP) if m["message_id"] == message["message_id"])


async def wait_for_question(runner: BotRunner, number: int,
                            timeout: float = 10) -> dict:  # noqa: ASYNC109
    """Let the round's time pass (the test clock, not the real one) until question `number`."""
    fake = runner.fake
    await runner.let_time_pass(lambda: len(round_questions(fake)) >= number, timeout=timeout)
    return round_questions(fake)[number - 1]


async def wait_for_text(runner: BotRunner, needle: str,
                        timeout: float = 10) -> dict:  # noqa: ASYNC109
    """Let the round's time pass until a group message contains `needle`; returns it."""
    return await runner.let_time_pass(lambda: find_text(runner.fake, needle), timeout=timeout)


def find_text(fake, needle: str) -> dict | None:
    return next((m for m in fake.bot_messages(GROUP) if needle in m.get("text", "")), None)


# Button data by message id, kept from when each question was first seen: after the reveal
# the buttons are gone, but a slow client can still send a tap on them.
_seen_buttons: dict[int, dict[str, str]] = {}


def seen_buttons(fake, message) -> dict[str, str]:
    if message["message_id"] not in _seen_buttons or not _seen_buttons[message["message_id"]]:
        _seen_buttons[message["message_id"]] = {t: d for row in fake.buttons(message)
                                                for t, d in row}
    return _seen_buttons[message["message_id"]]


def letter_data(fake, message, letter: str) -> str:
    return seen_buttons(fake, message)[letter]


def shown(fake, message, key: str) -> str:
    """The letter the option `key` (its key in the pack) is shown under: options are shuffled."""
    return next(letter for letter, data in seen_buttons(fake, message).items()
                if callbacks.RoundAnswer.parse(data).option == key)


async def asked(runner: BotRunner, fake, message):
    """The bank question behind a round question message, from its buttons."""
    data = callbacks.RoundAnswer.parse(fake.buttons(message)[0][0][1])
    row = await runner.services.db.fetchone(
        "SELECT question_id FROM round_questions WHERE round_id = ? AND position = ?",
        (data.round_id, data.position))
    return runner.services.bank.questions[row["question_id"]]


async def group_tap(fake, user, message, letter):
    answer, _ = await tap(fake, user, message, letter_data(fake, message, letter), chat_id=GROUP)
    return answer["text"]


def wrong_letter(fake, message, question) -> str:
    return shown(fake, message, next(k for k in question.option_keys if k != question.correct))


async def test_first_tap_counts_then_reveal_results_and_scoreboard(fake, team, rounds_bot):
    clock = rounds_bot.clock
    [announcement, first] = await group_says(fake, team.ada, "/round 2 2", expect=2)
    assert "Quiz round" in announcement["text"] and "started by \u2068Ada\u2069" in announcement["text"]
    assert "2 questions, 2 s each" in announcement["text"]
    assert "Question 1/2" in first["text"] and "2 s to answer" in first["text"]
    question = await asked(rounds_bot, fake, first)
    right, wrong = shown(fake, first, question.correct), wrong_letter(fake, first, question)
    assert [t for t, _ in fake.buttons(first)[0]] == [k.upper() for k in question.option_keys]

    clock.advance(seconds=0.2)
    assert await group_tap(fake, team.ada, first, right) == f"🔒 Locked in: {right}"
    assert await group_tap(fake, team.ada, first, wrong) == \
        f"Your answer is already locked in: {right}"
    assert await group_tap(fake, team.bob, first, wrong) == f"🔒 Locked in: {wrong}"
    assert await group_tap(fake, team.bob, first, right) == \
        f"Your answer is already locked in: {wrong}"
    clock.advance(seconds=0.3)
    assert await group_tap(fake, team.cem, first, right) == f"🔒 Cevabın alındı: {right}"
    # A member who joined after the question was sent plays too; forged data is refused.
    dee = fake.user(3005, "Dee")
    fake.add_member(GROUP, dee)
    assert await group_tap(fake, dee, first, wrong) == f"🔒 Locked in: {wrong}"
    for forged in ("v1:g:999:1:a", "v1:g:1:9:a", "v1:g:1:1:z", "v1:g:x"):
        answer, _ = await tap(fake, dee, first, forged, chat_id=GROUP)
        assert answer["text"] == "This round has ended. Start a new one with /round.", forged
    # Nobody sees who picked what before the reveal.
    assert not any(name in m["text"] for m in fake.bot_messages(GROUP)
                   for name in ("Bob", "Cem", "Dee"))

    results = await wait_for_text(rounds_bot, "Got it right")
    revealed = current(fake, first)
    assert not revealed.get("reply_markup")
    assert f"Answer: {right}" in revealed["text"] and "4 answered, 2 right" in revealed["text"]
    assert f"The answer is {right}." in results["text"]
    lines = results["text"].splitlines()
    assert lines.index("1. \u2068Ada\u2069 · 0.2 s · +1.45") < lines.index("2. \u2068Cem\u2069 · 0.5 s · +1.38")
    assert "Bob" not in results["text"]
    assert await group_tap(fake, team.bob, first, right) == "⌛ Time's up: this question is closed."

    second = await wait_for_question(rounds_bot, 2)
    assert "Question 2/2" in second["text"]
    board = await wait_for_text(rounds_bot, "Round over")
    assert "Nobody got this one." in fake.bot_messages(GROUP)[-2]["text"]
    assert board["text"].splitlines()[1:] == [
        "🥇 1. \u2068Ada\u2069 · 1 right · 1.45 pts", "🥈 2. \u2068Cem\u2069 · 1 right · 1.38 pts",
        "3. \u2068Bob\u2069 · 0 right · 0.00 pts", "3. \u2068Dee\u2069 · 0 right · 0.00 pts"]  # no medal for 0
    # A new round may start once the last one is over.
    [again, _] = await group_says(fake, team.bob, "/round 1 1", expect=2)
    assert "started by \u2068Bob\u2069" in again["text"]
    await wait_for_text(rounds_bot, "Nobody answered this time.")


async def test_ties_share_a_rank_and_group_answers_count_in_personal_stats(fake, team,
                                                                            rounds_bot):
    [_, first] = await group_says(fake, team.admin, "/round 1 2", expect=2)
    question = await asked(rounds_bot, fake, first)
    for member in (team.ada, team.cem):
        await group_tap(fake, member, first, shown(fake, first, question.correct))
    await group_tap(fake, team.bob, first, wrong_letter(fake, first, question))
    board = await wait_for_text(rounds_bot, "Round over")
    assert board["text"].splitlines()[1:] == [
        "🥇 1. \u2068Ada\u2069 · 1 right · 1.50 pts", "🥇 1. \u2068Cem\u2069 · 1 right · 1.50 pts",
        "3. \u2068Bob\u2069 · 0 right · 0.00 pts"]
    [stats] = await say(fake, team.ada, "/stats")
    assert "Answered: 1" in stats["text"] and "in group rounds: 1" in stats["text"]


async def test_bad_arguments_one_round_at_a_time_and_private_chats(fake, team, rounds_bot):
    for args in ("/round 0", "/round 21", "/round 5 500", "/round 1 2 3", "/round five ten"):
        [msg] = await group_says(fake, team.ada, args)
        assert "questions from 1 to 20 (default 5)" in msg["text"], args
        assert "seconds from 1 to 120" in msg["text"]
    [msg] = await group_says(fake, team.ada, "/round 2 2 nosuchtopic")
    assert "http-caching" in msg["text"] and "css" in msg["text"]
    await group_says(fake, team.ada, "/round@coach_test_bot 2 5", expect=2)
    [busy] = await group_says(fake, team.bob, "/round")
    assert "already running" in busy["text"]
    [private] = await say(fake, team.ada, "/round")
    assert "groups" in private["text"] and "startgroup=" in private["html"]
    [private] = await say(fake, team.cem, "/leaderboard")
    assert "gruplarda" in private["text"]
    [stopped] = await group_says(fake, team.ada, "/stop")
    assert "Round stopped" in stopped["text"]


async def test_stop_is_for_the_starter_and_admins(fake, team, rounds_bot):
    [msg] = await group_says(fake, team.bob, "/stop")
    assert msg["text"] == "No round is running. Start one with /round."
    [_, first] = await group_says(fake, team.ada, "/round 3 30", expect=2)
    question = await asked(rounds_bot, fake, first)
    await group_tap(fake, team.bob, first, shown(fake, first, question.correct))
    [refused] = await group_says(fake, team.bob, "/stop")
    assert "only whoever started the round or a group admin" in refused["text"]
    [board] = await group_says(fake, team.admin, "/stop")
    assert board["text"].startswith("⏹ Round stopped by \u2068Ana\u2069 after 1 of 3 questions.")
    assert "1. \u2068Bob\u2069 · 1 right · 1.50 pts" in board["text"]
    closed = current(fake, first)
    assert not closed.get("reply_markup") and "Answer:" in closed["text"]
    assert await group_tap(fake, team.cem, first, "A") == "⌛ Süre doldu: bu soru kapandı."
    # The starter may stop their own round; no further question follows a stop.
    await group_says(fake, team.bob, "/round 2 30", expect=2)
    [board] = await group_says(fake, team.bob, "/stop")
    assert "Round stopped by \u2068Bob\u2069 after 1 of 2" in board["text"]
    assert "Nobody answered this time." in board["text"]
    assert fake.calls_to("getChatMember")  # the admin was asked of Telegram
    assert len(round_questions(fake)) == 2


async def test_leaderboard_all_time_and_this_week(fake, team, rounds_bot):
    [msg] = await group_says(fake, team.ada, "/leaderboard")
    assert "No rounds played here yet" in msg["text"]
    for _ in range(2):
        before = len(round_questions(fake))
        await group_says(fake, team.ada, "/round 1 1", expect=2)
        first = await wait_for_question(rounds_bot, before + 1)
        question = await asked(rounds_bot, fake, first)
        await group_tap(fake, team.ada, first, shown(fake, first, question.correct))
        await group_tap(fake, team.bob, first, wrong_letter(fake, first, question))
        await rounds_bot.let_time_pass(lambda: "Round over" in fake.bot_messages(GROUP)[-1]["text"])
    [board] = await group_says(fake, team.ada, "/leaderboard")
    text = board["text"]
    assert text.startswith("🏆 Leaderboard · Interview Prep")
    week, all_time = text.split("All time")
    assert "🥇 1. \u2068Ada\u2069 · 3.00 pts · 2 rounds" in week
    assert "\n2. \u2068Bob\u2069 · 0.00 pts · 2 rounds" in week  # ranked, but no medal for 0
    assert "🥇 1. \u2068Ada\u2069 · 3.00 pts · 2 rounds" in all_time
    rounds_bot.clock.advance(days=8)
    # The group speaks the language of the member who started its first round (Ada's
    # English), whoever asks; once an admin picks Turkish, everyone gets Turkish.
    [board] = await group_says(fake, team.cem, "/leaderboard")
    week, all_time = board["text"].split("All time")
    assert "No rounds played this week yet." in week and "Ada" in all_time
    await group_says(fake, team.admin, "/language tr")
    [board] = await group_says(fake, team.ada, "/leaderboard")
    week, all_time = board["text"].split("Bugüne kadar")
    assert "🥇 1. \u2068Ada\u2069 · 3,00 puan · 2 tur" in all_time
    assert "Bu hafta henüz tur oynanmadı." in week


async def test_group_settings_are_for_admins_and_choose_the_questions(fake, team, rounds_bot):
    [msg] = await group_says(fake, team.bob, "/field frontend")
    assert "Only the group's admins" in msg["text"]
    [msg] = await group_says(fake, team.admin, "/field frontend")
    assert "Frontend" in msg["text"]
    [msg] = await group_says(fake, team.admin, "/level junior")
    assert "Junior" in msg["text"]
    [msg] = await group_says(fake, team.admin, "/language tr")
    assert msg["text"] == "🌐 Bu grubun turları artık şu dilde: Türkçe."
    [msg] = await group_says(fake, team.bob, "/level")
    assert "Ön yüz" in msg["text"] and "Junior" in msg["text"]
    [announcement, first] = await group_says(fake, team.ada, "/round 1 1", expect=2)
    assert "bilgi yarışması turu başlattı: 1 soru, soru başına 1 sn" in announcement["text"]
    assert "flex" in first["text"] and "Soru 1/1" in first["text"]
    await wait_for_text(rounds_bot, "Tur bitti")
    # Private choices are untouched by the group's.
    user = await rounds_bot.services.db.fetchone(
        "SELECT field, language FROM users WHERE user_id = ?", (team.admin.id,))
    assert user is None or (user["field"] is None and user["language"] == "en")


async def test_restart_resumes_a_question_with_time_left(fake, team, tmp_path):
    runner = BotRunner(fake, tmp_path, **FAST)
    await runner.start()
    try:
        [_, first] = await group_says(fake, team.ada, "/round 2 3", expect=2)
        question = await asked(runner, fake, first)
        await group_tap(fake, team.ada, first, shown(fake, first, question.correct))
        await runner.restart()
        # Taps keep working across the restart; the question is revealed when its time is up.
        assert await group_tap(fake, team.bob, first, shown(fake, first, question.correct)) == \
            f"🔒 Locked in: {shown(fake, first, question.correct)}"
        await wait_for_text(runner, "Got it right")
        assert "2 answered, 2 right" in current(fake, first)["text"]
        board = await wait_for_text(runner, "Round over")
        assert "\u2068Ada\u2069 · 1 right" in board["text"] and "\u2068Bob\u2069 · 1 right" in board["text"]
        assert len(round_questions(fake)) == 2
    finally:
        await runner.stop()
    assert fake.violations == []


async def test_restart_after_the_time_ran_out_reveals_and_carries_on(fake, team, tmp_path):
    runner = BotRunner(fake, tmp_path, **FAST)
    await runner.start()
    try:
        [_, first] = await group_says(fake, team.ada, "/round 2 20", expect=2)
        question = await asked(runner, fake, first)
        await group_tap(fake, team.cem, first, shown(fake, first, question.correct))
        await runner.stop()
        runner.clock.advance(minutes=5)  # the bot was down past the deadline
        await runner.start()
        results = await wait_for_text(runner, "Got it right", timeout=5)
        assert "1. \u2068Cem\u2069" in results["text"]
        assert not current(fake, first).get("reply_markup")
        second = await wait_for_question(runner, 2)
        assert fake.buttons(second)  # the round carried on with its next question
        [board] = await group_says(fake, team.ada, "/stop")
        assert "\u2068Cem\u2069 · 1 right · 1.50 pts" in board["text"]
    finally:
        await runner.stop()
    assert fake.violations == []


async def test_countdown_edits_and_the_send_budget(fake, team, tmp_path):
    runner = BotRunner(fake, tmp_path, **{**FAST, "round_tick_seconds": 1})
    await runner.start()
    try:
        [_, first] = await group_says(fake, team.ada, "/round 2 3", expect=2)
        question = await asked(runner, fake, first)
        await group_tap(fake, team.ada, first, shown(fake, first, question.correct))
        runner.elapse(seconds=1)  # the first countdown edit is due: 2 s left
        await fake.wait_until(lambda: "1 answered" in current(fake, first)["text"], timeout=5)
        assert "s left" in current(fake, first)["text"]
        await wait_for_text(runner, "Round over")
    finally:
        await runner.stop()
    edits = [c for c in fake.calls_to("editMessageText") if c.ok]
    # Per question: two countdown edits (2 s and 1 s left) and the reveal.
    assert len(edits) == 2 * 3
    sends = [c for c in fake.calls_to("sendMessage") if c.ok and c.chat_id == GROUP]
    assert len(sends) == 1 + 2 * 2 + 1
    assert fake.stats.max_per_minute(GROUP) == len(edits) + len(sends) <= 15
    assert fake.violations == []


async def crowd_round(fake, tmp_path, *, repeats: bool = True):
    """200 members (and a host) in a group; all tap the first question within one go, a
    quarter of them twice. Returns the runner, the question, and {query id: letter}."""
    admin = fake.user(4000, "Host")
    crowd = [fake.user(4001 + i, f"M{i:03d}") for i in range(200)]
    fake.group(GROUP, "Big Group", members={admin: "administrator",
                                            **{m: "member" for m in crowd}})
    runner = BotRunner(fake, tmp_path, **FAST)
    await runner.start()
    [_, first] = await group_says(fake, admin, "/round 1 10", expect=2)
    question = await asked(runner, fake, first)
    letters = [k.upper() for k in question.option_keys]
    firsts = {fake.tap(m, first, letter_data(fake, first, letters[i % len(letters)]),
                       chat_id=GROUP): letters[i % len(letters)] for i, m in enumerate(crowd)}
    seconds = [fake.tap(m, first, letter_data(fake, first, letters[0]), chat_id=GROUP)
               for m in crowd[::4]] if repeats else []
    return runner, admin, first, question, firsts, seconds


async def test_two_hundred_members_tapping_at_once_are_all_counted_once(fake, tmp_path):
    runner, admin, first, question, firsts, seconds = await crowd_round(fake, tmp_path)
    try:
        answers = {q: await fake.wait_answer(q, timeout=20) for q in [*firsts, *seconds]}
        for query, letter in firsts.items():
            assert answers[query]["text"] == f"🔒 Locked in: {letter}"
        assert all(answers[q]["text"].startswith("Your answer is already") for q in seconds)
        [board] = await group_says(fake, admin, "/stop")
        db = runner.services.db
        rows = await db.fetchone("SELECT COUNT(*) AS n, COUNT(DISTINCT user_id) AS users,"
                                 " SUM(points) AS points FROM round_answers")
        right = sum(1 for letter in firsts.values()
                    if letter == shown(fake, first, question.correct))
        # The clock stood still, so every right answer has the whole speed bonus.
        assert (rows["n"], rows["users"], rows["points"]) == (200, 200, right * 150)
        personal = await db.fetchone(
            "SELECT COUNT(*) AS n, COUNT(DISTINCT user_id) AS users FROM answers"
            " WHERE source = 'group'")
        assert (personal["n"], personal["users"]) == (200, 200)
        assert f"200 answered, {right} right" in current(fake, first)["text"]
        assert "…and" in board["text"] and len(board["text"]) <= 4096
    finally:
        await runner.stop()
    assert fake.violations == []


@pytest.mark.slow
async def test_two_hundred_taps_are_answered_within_a_second(fake, tmp_path):
    """A timing figure for the README, out of the default run: the slowest answer to 200
    simultaneous first taps (the fake and the bot share one process and core here)."""
    runner, _, _, _, firsts, _ = await crowd_round(fake, tmp_path, repeats=False)
    try:
        for query in firsts:
            await fake.wait_answer(query, timeout=20)
        latencies = sorted(fake.stats.callback_latency[q] for q in firsts)
        print(f"200 taps: median {latencies[100]:.2f} s, slowest {latencies[-1]:.2f} s")
        assert latencies[-1] < 1.0
    finally:
        await runner.stop()


@pytest.mark.slow
@pytest.mark.parametrize("seconds", [10, 30])
async def test_a_five_question_round_stays_under_twenty_a_minute(tmp_path, seconds):
    """Real timers and Telegram's limits on: the busiest minute of a 5-question round."""
    async with FakeTelegram(spec_path=API_SPEC, rate_limits=True) as fake:
        members = [fake.user(5001 + i, f"P{i}") for i in range(4)]
        fake.group(GROUP, "Timed", members={m: "member" for m in members})
        runner = BotRunner(fake, tmp_path, round_min_seconds=10)
        await runner.start()
        try:
            await group_says(fake, members[0], f"/round 5 {seconds}", expect=2)
            for number in range(1, 6):
                await fake.wait_until(lambda n=number: len(round_questions(fake)) >= n,
                                      timeout=seconds + 60)
                message = round_questions(fake)[number - 1]
                for member in members:
                    await group_tap(fake, member, message, "A")
            await fake.wait_until(lambda: find_text(fake, "Round over"),
                                  timeout=seconds * 5 + 120)
        finally:
            await runner.stop()
        busiest = fake.stats.max_per_minute(GROUP)
        print(f"{seconds}-second questions: busiest minute {busiest} sends/edits, "
              f"per minute {fake.stats.per_minute(GROUP)}")
        assert busiest <= 15
        assert fake.stats.too_many_requests == 0 and fake.violations == []


async def test_start_in_a_group_explains_rounds(fake, team, rounds_bot):
    [msg] = await group_says(fake, team.admin, "/start@coach_test_bot round")
    assert "/round" in msg["text"] and "All fields" in msg["text"] and "Mid" in msg["text"]
    assert not fake.buttons(msg)


async def round_status(runner: BotRunner) -> str | None:
    row = await runner.services.db.fetchone("SELECT status FROM rounds ORDER BY id DESC LIMIT 1")
    return row["status"] if row else None


async def test_failing_sends_are_retried_and_a_lost_group_ends_the_round(fake, team, rounds_bot,
                                                                         monkeypatch):
    from bot import telegram_limits
    from services import rounds as round_service

    monkeypatch.setattr(round_service, "RETRY_SECONDS", 0.1)
    monkeypatch.setattr(telegram_limits, "NETWORK_BACKOFF", 0.01)  # the request layer's retries
    # Telegram down for longer than the request layer's own retries: the round waits it out.
    fake.fail_next("sendMessage", 502, times=4, chat_id=GROUP)
    [first] = await group_says(fake, team.ada, "/round 2 1")  # the announcement failed
    assert "Question 1/2" in first["text"]
    second = await wait_for_question(rounds_bot, 2)
    # Then the bot is removed from the group: the round ends instead of retrying forever.
    fake.fail_next("sendMessage", 403, "Forbidden: bot was kicked from the supergroup chat",
                   chat_id=GROUP)
    await rounds_bot.let_time_pass(lambda: _is(round_status(rounds_bot), "stopped"), timeout=10)
    assert not current(fake, second).get("reply_markup")  # the reveal edit still went through
    [again, _] = await group_says(fake, team.bob, "/round 1 1", expect=2)
    assert "started by \u2068Bob\u2069" in again["text"]


async def _is(awaitable, expected) -> bool:
    return await awaitable == expected


async def test_two_groups_play_at_the_same_time(fake, team, rounds_bot):
    other = -1009876543210
    fake.group(other, "Night Owls", members={team.bob: "creator", team.cem: "member"})
    await group_says(fake, team.ada, "/round 1 2", expect=2)
    fake.send_message(team.bob, "/round 1 2", chat_id=other)
    theirs = (await fake.wait_for_bot_messages(other, 2))[1]
    ours = round_questions(fake)[0]
    # A button from one group's question means nothing in the other group's round.
    assert await group_tap(fake, team.cem, ours, "A") == "🔒 Cevabın alındı: A"
    answer, _ = await tap(fake, team.cem, theirs, letter_data(fake, ours, "B"), chat_id=other)
    assert answer["text"] == "Bu tur bitti. /round ile yenisini başlat."
    await wait_for_text(rounds_bot, "Round over")
    await rounds_bot.let_time_pass(lambda: "Round over" in fake.bot_messages(other)[-1]["text"])
    assert "Cem" in fake.bot_messages(GROUP)[-1]["text"]
    assert "Nobody answered" in fake.bot_messages(other)[-1]["text"]


async def test_a_round_follows_its_group_to_the_new_supergroup(fake, team, rounds_bot):
    old, new = -4002, -1004002
    fake.group(old, "Study", members={team.ada: "creator", team.bob: "member"}, chat_type="group")
    fake.send_message(team.ada, "/round 2 2", chat_id=old)
    first = (await fake.wait_for_bot_messages(old, 2))[1]
    question = await asked(rounds_bot, fake, first)
    await group_tap_in(fake, team.bob, first, shown(fake, first, question.correct), old)
    fake.group(new, "Study", members={team.ada: "creator", team.bob: "member"})
    fake.enqueue_update({"message": {
        "message_id": 99, "date": 0, "chat": {"id": old, "type": "group", "title": "Study"},
        "from": {"id": team.ada.id, "is_bot": False, "first_name": "Ada"},
        "migrate_to_chat_id": new}})
    # The question in progress is asked again in the new chat, and the round goes on there.
    again = await fake.wait_until(lambda: next(
        (m for m in fake.bot_messages(new) if "Question 1/2" in m["text"]), None))
    assert await group_tap_in(fake, team.bob, again, "A", new) == \
        f"Your answer is already locked in: {shown(fake, first, question.correct)}"
    board = await rounds_bot.let_time_pass(lambda: next(
        (m for m in fake.bot_messages(new) if "Round over" in m["text"]), None), timeout=10)
    assert "\u2068Bob\u2069 · 1 right" in board["text"]
    assert any("Question 2/2" in m["text"] for m in fake.bot_messages(new))
    await rounds_bot.let_time_pass(lambda: _is(round_status(rounds_bot), "finished"))


async def group_tap_in(fake, user, message, letter, chat_id):
    data = {t: d for row in fake.buttons(message) for t, d in row}[letter]
    answer, _ = await tap(fake, user, message, data, chat_id=chat_id)
    return answer["text"]


async def test_a_group_upgrade_found_through_a_failed_send_moves_the_round(fake, team,
                                                                         rounds_bot):
    old, new = -4003, -1004003
    fake.group(old, "Study", members={team.ada: "creator", team.bob: "member"}, chat_type="group")
    fake.send_message(team.ada, "/round 2 1", chat_id=old)
    await fake.wait_for_bot_messages(old, 2)  # the announcement and question 1
    fake.group(new, "Study", members={team.ada: "creator", team.bob: "member"})
    # The service message has not arrived yet: the next send to the old id says where to go.
    fake.fail_next("sendMessage", 400, "Bad Request: group chat was upgraded to a supergroup "
                   "chat", chat_id=old, migrate_to_chat_id=new)
    board = await fake.wait_until(lambda: next(
        (m for m in fake.bot_messages(new) if "Round over" in m["text"]), None), timeout=15)
    assert board is not None
    texts = [m["text"] for m in fake.bot_messages(new)]
    assert any("Question 2/2" in t for t in texts)
    await fake.wait_until(lambda: _is(round_status(rounds_bot), "finished"))


async def test_removing_the_bot_ends_its_round_at_once(fake, team, rounds_bot, caplog):
    [announcement] = await group_says(fake, team.ada, "/round 3 30")
    await wait_for_question(rounds_bot, 1)
    calls_before = len(fake.calls)
    fake.add_member(GROUP, fake.me, "kicked", notify=True)
    await fake.wait_until(lambda: _is(round_status(rounds_bot), "stopped"), timeout=5)
    # No countdown or reveal keeps trying the group, and nothing logs a traceback.
    assert not any(c.chat_id == GROUP for c in fake.calls[calls_before:])
    assert not [r for r in caplog.records if r.exc_info]
