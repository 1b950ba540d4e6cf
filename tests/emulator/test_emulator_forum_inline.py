"""Forum topics and inline mode in the fake Bot API: where messages go, what a closed or deleted
topic answers, inline queries, results posted via the bot, and taps and edits on them."""

from __future__ import annotations

import pytest
from telegram import (
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InlineQueryResultArticle,
    InputTextMessageContent,
    ReplyParameters,
)
from telegram.error import BadRequest

from fake_telegram import FakeTelegram

FORUM = -1009000000001
GROUP = -1009000000002


@pytest.fixture
def forum(fake: FakeTelegram):
    admin = fake.user(71, "Ana")
    fake.group(FORUM, "Study hall", members={admin: "creator"}, forum=True)
    fake.group(GROUP, "Plain group", members={admin: "member"})
    return admin


async def test_a_message_to_a_topic_lands_there_and_a_reply_follows_its_topic(fake, bot, forum):
    topic = fake.create_topic(FORUM, "Backend")
    asked = fake.send_message(forum, "/round", chat_id=FORUM, thread_id=topic)
    assert asked["message_thread_id"] == topic and asked["is_topic_message"] is True
    sent = await bot.send_message(FORUM, "in the topic", message_thread_id=topic)
    assert sent.message_thread_id == topic and sent.is_topic_message
    replied = await bot.send_message(FORUM, "a reply",
                                     reply_parameters=ReplyParameters(asked["message_id"]))
    assert replied.message_thread_id == topic
    general = await bot.send_message(FORUM, "General")
    assert general.message_thread_id is None
    assert [m["text"] for m in fake.topic_messages(FORUM, topic)] == ["in the topic", "a reply"]
    assert (await bot.get_chat(FORUM)).is_forum is True


async def test_thread_ids_are_refused_where_there_is_no_such_topic(fake, bot, forum):
    topic = fake.create_topic(FORUM, "Frontend")
    with pytest.raises(BadRequest, match="thread not found"):
        await bot.send_message(GROUP, "no topics here", message_thread_id=topic)
    fake.close_topic(FORUM, topic)
    with pytest.raises(BadRequest, match="(?i)topic_closed"):
        await bot.send_message(FORUM, "closed", message_thread_id=topic)
    fake.close_topic(FORUM, topic, closed=False)
    await bot.send_message(FORUM, "reopened", message_thread_id=topic)
    fake.delete_topic(FORUM, topic)
    with pytest.raises(BadRequest, match="thread not found"):
        await bot.send_message(FORUM, "deleted", message_thread_id=topic)
    assert fake.topic_messages(FORUM, topic) == []
    fake.violations.clear()


async def test_inline_queries_need_inline_mode(fake, bot, forum):
    assert (await bot.get_me()).supports_inline_queries is False
    with pytest.raises(ValueError, match="inline mode is off"):
        fake.inline_query(forum, "sql")
    fake.inline_mode = True
    assert (await bot.get_me()).supports_inline_queries is True


async def test_a_chosen_result_is_posted_via_the_bot_and_edited_by_its_inline_id(fake, bot, forum):
    fake.inline_mode = True
    query_id = fake.inline_query(forum, "sql", chat_type="supergroup")
    update = fake.updates[-1]["inline_query"]
    assert update["query"] == "sql" and update["chat_type"] == "supergroup"
    markup = InlineKeyboardMarkup([[InlineKeyboardButton("A", callback_data="v1:x:a")]])
    await bot.answer_inline_query(query_id, [InlineQueryResultArticle(
        "q1", "A question", InputTextMessageContent("<b>Which</b> index?", parse_mode="HTML"),
        reply_markup=markup)], cache_time=5, is_personal=True)
    answer = await fake.wait_inline_answer(query_id)
    assert answer["cache_time"] == 5
    posted = fake.choose_inline_result(forum, query_id, "q1", GROUP)
    assert posted["via_bot"]["id"] == bot.id and posted["text"] == "Which index?"
    assert "inline_message_id" not in fake.api_message(posted)
    tap_id = fake.tap(forum, posted, "v1:x:a", chat_id=GROUP)
    tapped = fake.updates[-1]["callback_query"]
    assert "message" not in tapped and tapped["inline_message_id"]
    await bot.answer_callback_query(tap_id, "ok")
    assert await bot.edit_message_text("1 answer", inline_message_id=tapped["inline_message_id"],
                                       reply_markup=markup) is True
    assert fake.messages(GROUP)[-1]["text"] == "1 answer"
    with pytest.raises(BadRequest, match="not modified"):
        await bot.edit_message_text("1 answer", inline_message_id=tapped["inline_message_id"],
                                    reply_markup=markup)
    with pytest.raises(BadRequest, match="(?i)message_id_invalid"):
        await bot.edit_message_text("x", inline_message_id="AgAAAnope")
    with pytest.raises(BadRequest, match="too old"):
        await bot.answer_inline_query(query_id, [])
    fake.violations.clear()


async def test_inline_answers_are_checked_like_telegram(fake, bot, forum):
    fake.inline_mode = True
    too_many = fake.inline_query(forum, "")
    results = [InlineQueryResultArticle(str(n), "t", InputTextMessageContent("x"))
               for n in range(51)]
    with pytest.raises(BadRequest, match="(?i)results_too_much"):
        await bot.answer_inline_query(too_many, results)
    duplicate = fake.inline_query(forum, "")
    with pytest.raises(BadRequest, match="(?i)duplicate"):
        await bot.answer_inline_query(duplicate, results[:1] * 2)
    fake.violations.clear()
