"""A keyboard in a group belongs to the member it was shown to (issue 17, item 1): forged
answers, someone else's `Next`, review-form buttons and /timezone keyboards are turned away."""

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


async def test_someone_elses_timezone_keyboard_is_refused(fake, bot):
    bob, eve, _ = await setup(fake, bot)
    [picker] = await say(fake, bob, "/timezone", chat_id=GROUP)
    zone = fake.buttons(picker)[0][0][1]
    answer, _ = await tap(fake, eve, picker, zone, chat_id=GROUP)
    assert answer["text"].startswith("These buttons are for the member who asked")
    row = await bot.services.db.fetchone("SELECT timezone FROM users WHERE user_id = ?",
                                         (eve.id,))
    assert row["timezone"] is None
