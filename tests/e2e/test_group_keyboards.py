"""A keyboard in a group belongs to the member it was shown to (issue 17, item 1): forged
answers, someone else's `Next` and report buttons, review-form buttons are turned away; personal
commands are answered in private (issue 19)."""

from __future__ import annotations

from tests.e2e.conftest import say, tap

GROUP = -1009876543210


async def setup(fake, bot):
    bob, eve = fake.user(5001, "Bob"), fake.user(5002, "Eve")
    fake.group(GROUP, "Prep", members={bob: "member", eve: "member"})
    for user in (bob, eve):
        await say(fake, user, "/field backend", expect=2)  # set, and the level picker
        await say(fake, user, "/level junior")
    [question] = await say(fake, bob, "/quiz", chat_id=GROUP)
    return bob, eve, question


def answers_of(bot, user_id):
    return bot.services.db.fetchall("SELECT * FROM answers WHERE user_id = ?", (user_id,))


async def test_forged_answers_on_someone_elses_question_are_refused(fake, bot):
    bob, eve, question = await setup(fake, bot)
    real = fake.buttons(question)[0][0][1]  # v1:a:<key>:a:<bob>
    key = real.split(":")[2]
    for forged in (f"v1:a:{key}:b", f"v1:a:{key}:b:{eve.id}", f"v1:rv:{key}:b"):
        answer, _ = await tap(fake, eve, question, forged, chat_id=GROUP)
        assert answer["text"].startswith("These buttons are for the member who asked")
    assert await answers_of(bot, eve.id) == []
    shown = next(m for m in fake.bot_messages(GROUP) if m["message_id"] == question["message_id"])
    assert fake.buttons(shown), "Bob's question keeps its buttons"
    # Bob's own tap still counts.
    answer, [explanation] = await tap(fake, bob, question, real, expect=1, chat_id=GROUP)
    assert answer["text"].startswith(("✅", "❌"))
    assert len(await answers_of(bot, bob.id)) == 1
    # His `Next` is his too: Eve's tap asks nothing.
    next_data = fake.buttons(explanation)[0][0][1]
    before = len(fake.bot_messages(GROUP))
    answer, _ = await tap(fake, eve, explanation, next_data, chat_id=GROUP)
    assert answer["text"].startswith("These buttons are for the member who asked")
    assert len(fake.bot_messages(GROUP)) == before


async def test_a_review_button_is_refused_in_a_group_even_for_the_asker(fake, bot):
    bob, _, question = await setup(fake, bot)
    key = fake.buttons(question)[0][0][1].split(":")[2]
    answer, _ = await tap(fake, bob, question, f"v1:rv:{key}:a", chat_id=GROUP)
    assert "expired" in answer["text"]
    assert await answers_of(bot, bob.id) == []


async def test_someone_elses_report_button_says_what_it_is(fake, bot):
    bob, eve, question = await setup(fake, bot)
    real = fake.buttons(question)[0][0][1]
    _, [explanation] = await tap(fake, bob, question, real, expect=1, chat_id=GROUP)
    report = next(d for row in fake.buttons(explanation) for t, d in row if "Report" in t)
    answer, _ = await tap(fake, eve, explanation, report, chat_id=GROUP)
    assert answer["text"] == "Only the member who answered can report this question."


async def test_personal_commands_in_a_group_are_answered_in_private(fake, bot):
    bob, eve, _ = await setup(fake, bot)
    before = len(fake.bot_messages(GROUP))
    # Bob has a private chat with the bot: the group sees nothing, his chat gets the answer.
    mine = len(fake.bot_messages(bob.id))
    fake.send_message(bob, "/timezone", chat_id=GROUP)
    [note, picker] = (await fake.wait_for_bot_messages(bob.id, mine + 2))[mine:]
    assert note["text"] == "🔒 You sent /timezone in “\u2068Prep\u2069”. Personal things stay here, between us:"
    assert fake.buttons(picker), "the time zone picker, in private"
    assert len(fake.bot_messages(GROUP)) == before
    # Someone who never started the bot gets one line in the group and a deep link.
    zed = fake.user(5003, "Zed", language_code="tr")
    fake.add_member(GROUP, zed)
    [line] = await say(fake, zed, "/stats", chat_id=GROUP)
    assert "/stats kişisel bir komut" in line["text"]  # no group language yet: the sender's
    assert fake.buttons(line) == [[("Özel sohbeti aç ▶", "https://t.me/coach_test_bot?start=stats")]]
    # The link opens the private chat on that command.
    [answer] = await say(fake, zed, "/start stats")
    assert "answered" in answer["text"] or "cevap" in answer["text"]
