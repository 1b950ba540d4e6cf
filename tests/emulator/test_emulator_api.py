"""The fake Bot API answers like Telegram: results for good calls, Telegram's refusals otherwise."""

from __future__ import annotations

import json

import pytest
from telegram import (
    Bot,
    BotCommand,
    BotCommandScopeChat,
    ForceReply,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    LinkPreviewOptions,
    ReplyKeyboardMarkup,
    ReplyParameters,
)
from telegram.constants import ChatAction, ParseMode
from telegram.error import BadRequest, Forbidden
from telegram.ext import Defaults, ExtBot

from fake_telegram import FakeTelegram
from tests.shared_files import API_SPEC


async def refusal(http, fake: FakeTelegram, method: str, **params) -> dict:
    """Call the method with form-encoded params (as PTB does) and return the 400 body."""
    form = {k: v if isinstance(v, str) else json.dumps(v) for k, v in params.items()}
    response = await http.post(fake.api_url(method), data=form)
    body = response.json()
    assert response.status_code == body["error_code"] == 400, body
    assert body["ok"] is False
    return body


async def test_get_me_is_a_bot_with_a_username(fake, bot, http):
    assert bot.username == "coach_test_bot"
    body = (await http.get(fake.api_url("getMe"))).json()
    assert body["ok"] is True
    assert body["result"]["is_bot"] is True and body["result"]["can_join_groups"] is True
    # Method names are case-insensitive in Telegram.
    assert (await http.get(fake.api_url("GETME"))).json()["result"]["id"] == 123456


async def test_html_message_stores_text_entities_and_html(fake, http):
    ada = fake.user(1001, "Ada")
    fake.send_message(ada, "/start")
    html = "<b>Hi</b> 👋 <i>there</i> &amp; welcome"
    response = await http.post(
        fake.api_url("sendMessage"), data={"chat_id": "1001", "text": html, "parse_mode": "HTML"}
    )
    result = response.json()["result"]
    assert result["text"] == "Hi 👋 there & welcome"
    assert result["entities"] == [
        {"type": "bold", "offset": 0, "length": 2},
        {"type": "italic", "offset": 6, "length": 5},
    ]
    assert result["from"]["username"] == "coach_test_bot"
    stored = fake.last_bot_message(1001)
    assert stored["html"] == html and stored["edit_count"] == 0
    assert [m["from"]["id"] for m in fake.messages(1001)] == [1001, 123456]


@pytest.mark.needs_spec
@pytest.mark.parametrize(
    ("params", "description"),
    [
        ({"text": "<blink>hi</blink>", "parse_mode": "HTML"},
         'Bad Request: can\'t parse entities: Unsupported start tag "blink" at byte offset 0'),
        ({"text": "2 < 3", "parse_mode": "HTML"},
         'Bad Request: can\'t parse entities: Unsupported start tag "" at byte offset 2'),
        ({"text": "x" * 4097}, "Bad Request: message is too long"),
        ({"text": "  \n "}, "Bad Request: message text is empty"),
        ({"text": "<b></b>", "parse_mode": "HTML"}, "Bad Request: message text is empty"),
        ({"text": "hi", "reply_markup": {"inline_keyboard": [[
            {"text": "A", "callback_data": "é" * 32 + "x"}]]}},
         "Bad Request: BUTTON_DATA_INVALID"),
        ({"text": "hi", "reply_markup": {"inline_keyboard": [[{"text": "A"}]]}},
         "Bad Request: text buttons are unallowed in the inline keyboard"),
        ({"text": "hi", "disable_web_page_preview": True},
         'Bad Request: unknown parameter "disable_web_page_preview"'),
        ({"text": "hi", "reply_markup": {"inline_keyboard": [[
            {"text": "A", "callback_data": "a", "colour": "red"}]]}},
         "Bad Request: can't parse inline keyboard button: Unknown field \"colour\" in "
         "InlineKeyboardButton (at reply_markup.inline_keyboard[0][0].colour)"),
        ({"text": "hi", "reply_markup": "{not json"},
         "Bad Request: can't parse reply keyboard markup JSON object"),
    ],
)  # fmt: skip
async def test_send_message_refusals(fake, http, params, description):
    fake.send_message(fake.user(1001, "Ada"), "hello")
    body = await refusal(http, fake, "sendMessage", chat_id=1001, **params)
    assert body["description"] == description
    assert fake.violations == [f"sendMessage chat 1001: 400 {description}"]


@pytest.mark.needs_spec
async def test_missing_required_params(fake, http):
    assert (await refusal(http, fake, "sendMessage", text="hi"))["description"] == (
        "Bad Request: chat_id is empty"
    )
    body = await refusal(http, fake, "getChatMember", chat_id=1)
    assert body["description"] == 'Bad Request: parameter "user_id" is required'
    body = await refusal(
        http, fake, "sendMessage", chat_id="1001", text="hi", disable_notification="yes"
    )
    assert (
        body["description"]
        == 'Bad Request: parameter "disable_notification" must be of type Boolean'
    )
    assert len(fake.violations) == 3


async def test_unknown_chat_blocked_user_and_bot_cannot_write_first(fake, bot):
    with pytest.raises(BadRequest, match="Chat not found"):
        await bot.send_message(424242, "hi")
    ada = fake.user(1001, "Ada")
    with pytest.raises(Forbidden, match="bot can't initiate conversation with a user"):
        await bot.send_message(ada.id, "hi")
    fake.send_message(ada, "/start")
    ada.blocked = True
    with pytest.raises(Forbidden, match="bot was blocked by the user"):
        await bot.send_message(ada.id, "hi")
    with pytest.raises(BadRequest, match="Message to delete not found"):
        await bot.delete_message(ada.id, 99)
    assert len(fake.violations) == 4
    assert (
        fake.violations[2] == "sendMessage chat 1001: 403 Forbidden: bot was blocked by the user"
    )


async def test_edit_text_in_place_and_not_modified(fake, bot):
    ada = fake.user(1001, "Ada")
    fake.send_message(ada, "/start")
    keyboard = InlineKeyboardMarkup([[InlineKeyboardButton("Go", callback_data="go")]])
    sent = await bot.send_message(
        ada.id, "<b>Question</b>", reply_markup=keyboard, parse_mode="HTML"
    )
    with pytest.raises(BadRequest, match="Message is not modified"):
        await bot.edit_message_text(
            "<b>Question</b>", ada.id, sent.message_id, reply_markup=keyboard, parse_mode="HTML"
        )
    # Same text without the keyboard is a change: the keyboard goes away.
    await bot.edit_message_text("<b>Question</b>", ada.id, sent.message_id, parse_mode="HTML")
    stored = fake.last_bot_message(ada.id)
    assert stored["reply_markup"] is None and stored["edit_count"] == 1
    assert stored["edit_history"][0]["reply_markup"] == keyboard.to_dict()
    with pytest.raises(BadRequest, match="Message can't be edited"):
        await bot.edit_message_text("mine?", ada.id, fake.messages(ada.id)[0]["message_id"])
    with pytest.raises(BadRequest, match="Message to edit not found"):
        await bot.edit_message_text("gone", ada.id, 999)
    description = fake.violations[0].split(": 400 ", 1)[1]
    assert description == (
        "Bad Request: message is not modified: specified new message content and reply markup "
        "are exactly the same as a current content and reply markup of the message"
    )


async def test_answer_callback_query_once_with_latency(fake, bot):
    ada = fake.user(1001, "Ada")
    fake.send_message(ada, "/start")
    keyboard = InlineKeyboardMarkup([[InlineKeyboardButton("A", callback_data="v1:a")]])
    sent = await bot.send_message(ada.id, "Pick", reply_markup=keyboard)
    assert fake.buttons(fake.last_bot_message(ada.id)) == [[("A", "v1:a")]]
    query_id = fake.tap(ada, sent.message_id, "v1:a")
    await bot.answer_callback_query(query_id, "Noted", show_alert=True)
    answer = await fake.wait_answer(query_id, timeout=1)
    assert answer["text"] == "Noted" and answer["show_alert"] is True
    assert 0 <= fake.stats.callback_latency[query_id] < 1
    with pytest.raises(BadRequest, match="Query is too old"):
        await bot.answer_callback_query(query_id)
    with pytest.raises(BadRequest, match="Message_too_long"):
        await bot.answer_callback_query(fake.tap(ada, sent.message_id, "v1:a"), "x" * 201)


async def test_send_photo_multipart_and_file_id_reuse(fake, bot, png):
    ada = fake.user(1001, "Ada")
    fake.send_message(ada, "/start")
    sent = await bot.send_photo(ada.id, png, caption="<b>Chart</b>", parse_mode=ParseMode.HTML)
    assert sent.photo[-1].width == 1 and sent.caption == "Chart"
    assert sent.caption_entities[0].type == "bold"
    again = await bot.send_photo(ada.id, sent.photo[-1].file_id)
    assert again.photo[-1].file_id == sent.photo[-1].file_id
    stored = fake.files[sent.photo[-1].file_id]
    assert stored.data == png
    with pytest.raises(BadRequest, match="Image_process_failed"):
        await bot.send_photo(ada.id, b"GIF89a not really")
    with pytest.raises(BadRequest, match="Wrong file identifier"):
        await bot.send_photo(ada.id, "AgACAgIAAxkBAAI-no-such-file")
    # A photo from the user can be fetched like any file.
    fake.send_photo(ada, png, caption="my chart")
    update = (await bot.get_updates())[-1]
    assert update.message.caption == "my chart"
    photo_file = await update.message.photo[-1].get_file()
    assert bytes(await photo_file.download_as_bytearray()) == png


async def test_get_file_and_download_a_users_document(fake, bot):
    ada = fake.user(1001, "Ada")
    message = fake.send_document(ada, "bank.csv", b"q,a\n1,2\n", caption="my bank")
    update = (await bot.get_updates())[0]
    assert update.message.document.file_name == "bank.csv"
    assert update.message.document.mime_type == "text/csv"
    assert update.message.caption == "my bank"
    file = await bot.get_file(message["document"]["file_id"])
    assert file.file_path.startswith(fake.base_file_url)
    assert bytes(await file.download_as_bytearray()) == b"q,a\n1,2\n"
    # The bot may send the same document back by file_id, but not as a photo.
    sent = await bot.send_document(ada.id, message["document"]["file_id"])
    assert sent.document.file_name == "bank.csv"
    with pytest.raises(BadRequest, match="(?i)can't use file of type document as photo"):
        await bot.send_photo(ada.id, message["document"]["file_id"])


async def test_set_my_commands_validation_and_scopes(fake, bot):
    await bot.set_my_commands([BotCommand("start", "Start"), BotCommand("quiz", "A question")])
    await bot.set_my_commands([BotCommand("hafta", "Haftalık")], language_code="tr")
    assert [c["command"] for c in fake.commands()] == ["start", "quiz"]
    assert fake.commands(language_code="tr") == [{"command": "hafta", "description": "Haftalık"}]
    assert [c.command for c in await bot.get_my_commands()] == ["start", "quiz"]
    group = fake.group(-100123, "Study group")
    await bot.set_my_commands(
        [BotCommand("round", "Group round")], scope=BotCommandScopeChat(-100123)
    )
    assert fake.commands(f"chat:{group['id']}") == [
        {"command": "round", "description": "Group round"}
    ]
    for bad in (BotCommand("Start", "x"), BotCommand("a" * 33, "x"), BotCommand("ok", "")):
        with pytest.raises(BadRequest, match="Bot_command"):
            await bot.set_my_commands([bad])
    with pytest.raises(BadRequest, match="Bot_commands_too_much"):
        await bot.set_my_commands([BotCommand(f"c{i}", "x") for i in range(101)])
    await bot.delete_my_commands()
    assert fake.commands() == []
    assert len(fake.violations) == 4


async def test_ptb_full_send_path_passes_the_spec(fake, bot):
    """Everything PTB serializes for a rich message is valid against the spec."""
    ada = fake.user(1001, "Ada")
    first = fake.send_message(ada, "/start")
    keyboard = InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton("A", callback_data="v1:a"),
                InlineKeyboardButton("B", callback_data="v1:b"),
            ],
            [InlineKeyboardButton("Docs", url="https://core.telegram.org/bots/api")],
        ]
    )
    sent = await bot.send_message(
        ada.id,
        '<b>Q1</b> <code>x &lt; y</code>\n<pre><code class="language-python">x = 1</code></pre>',
        parse_mode=ParseMode.HTML,
        reply_markup=keyboard,
        link_preview_options=LinkPreviewOptions(is_disabled=True),
        reply_parameters=ReplyParameters(first["message_id"]),
        disable_notification=True,
        protect_content=True,
    )
    assert sent.reply_to_message.text == "/start"
    await bot.edit_message_reply_markup(ada.id, sent.message_id, reply_markup=None)
    await bot.send_message(ada.id, "Type it", reply_markup=ForceReply(input_field_placeholder="…"))
    await bot.send_message(ada.id, "Pick", reply_markup=ReplyKeyboardMarkup([["A", "B"]]))
    await bot.send_chat_action(ada.id, ChatAction.TYPING)
    await bot.get_chat(ada.id)
    await bot.get_chat_member(ada.id, ada.id)
    await bot.set_my_description("Coach", language_code="en")
    await bot.set_my_short_description("Short")
    await bot.get_webhook_info()
    assert fake.violations == []
    assert fake.chat_actions(ada.id) == ["typing"]
    assert fake.unimplemented == {}


async def test_group_membership_and_privacy_mode(fake: FakeTelegram, bot: Bot):
    ada, bob = fake.user(1001, "Ada"), fake.user(1002, "Bob")
    group = fake.group(-100123, "Study group", members={ada: "creator", bob: "member"})
    assert group["type"] == "supergroup"
    assert (await bot.get_chat_member(-100123, ada.id)).status == "creator"
    assert (await bot.get_chat_member(-100123, bob.id)).status == "member"
    assert (await bot.get_chat_member(-100123, fake.user(1003, "Cy").id)).status == "left"
    admins = await bot.get_chat_administrators(-100123)
    assert [a.user.id for a in admins] == [ada.id]
    # Privacy mode: the bot sees commands and replies, not chatter.
    fake.send_message(bob, "hello all", chat_id=-100123)
    fake.send_message(bob, "/round@coach_test_bot", chat_id=-100123)
    fake.send_message(bob, "/round@other_bot", chat_id=-100123)
    updates = await bot.get_updates()
    assert [u.message.text for u in updates] == ["/round@coach_test_bot"]
    # A member's message can't be deleted by a bot that isn't an admin.
    with pytest.raises(BadRequest, match="Message can't be deleted"):
        await bot.delete_message(-100123, fake.messages(-100123)[0]["message_id"])
    fake.add_member(-100123, fake.me, "left")
    with pytest.raises(Forbidden, match="bot is not a member of the supergroup chat"):
        await bot.send_message(-100123, "hi")


@pytest.mark.needs_spec
async def test_tokens_and_unknown_methods(fake, http):
    assert (await http.get(f"{fake.base_url}123:short/getMe")).status_code == 401
    assert (await http.get(f"{fake.base_url}nonsense/getMe")).status_code == 404
    body = (await http.get(fake.api_url("sendMesage"))).json()
    assert body == {"ok": False, "error_code": 404, "description": "Not Found"}
    # A real method the emulator does not implement: accepted, and noted.
    body = (await http.post(fake.api_url("setChatMenuButton"), data={"chat_id": "1"})).json()
    assert body == {"ok": True, "result": True}
    assert fake.unimplemented["setChatMenuButton"] == 1


async def test_pinned_token_rejects_others(http):
    async with FakeTelegram(spec_path=API_SPEC, token="42:ABCDEFGHIJKLMNOPQRSTUVWXYZ") as fake:
        assert (await http.get(fake.api_url("getMe"))).json()["result"]["id"] == 42
        other = await http.get(fake.api_url("getMe", token="43:ABCDEFGHIJKLMNOPQRSTUVWXYZ"))
        assert other.json() == {"ok": False, "error_code": 401, "description": "Unauthorized"}


@pytest.mark.needs_spec
async def test_params_added_by_ptb_defaults_are_ignored_like_telegram(fake):
    ada = fake.user(1001, "Ada")
    fake.send_message(ada, "/start")
    defaults = Defaults(parse_mode=ParseMode.HTML, disable_notification=True, protect_content=True)
    async with ExtBot(fake.token, base_url=fake.base_url, defaults=defaults) as bot:
        keyboard = InlineKeyboardMarkup([[InlineKeyboardButton("A", callback_data="a")]])
        sent = await bot.send_message(ada.id, "<i>Pick</i>", reply_markup=keyboard)
        await bot.edit_message_reply_markup(ada.id, sent.message_id, reply_markup=None)
    assert fake.violations == []
    assert fake.ignored_params["editMessageReplyMarkup.parse_mode"] == 1
    assert fake.last_bot_message(ada.id)["entities"] == [
        {"type": "italic", "offset": 0, "length": 4}
    ]


async def test_enqueued_updates_teach_the_fake_their_chats(fake, bot):
    fake.enqueue_update(
        {
            "message": {
                "message_id": 7,
                "date": 1,
                "chat": {"id": -100999, "type": "supergroup", "title": "Imported"},
                "from": {"id": 2001, "is_bot": False, "first_name": "Eve"},
                "text": "/start@coach_test_bot",
            }
        }
    )
    [update] = await bot.get_updates()
    assert update.message.chat.title == "Imported"
    reply = await bot.send_message(-100999, "hello", reply_parameters=ReplyParameters(7))
    assert reply.message_id == 8 and reply.reply_to_message.from_user.first_name == "Eve"
    assert [m["message_id"] for m in fake.messages(-100999)] == [7, 8]
