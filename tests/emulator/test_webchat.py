"""The playground's page API on the emulator: users, chats and menus, events since a cursor,
send, tap, answers, refused calls, files, and bad input refused with a clear error."""

from __future__ import annotations

import asyncio
import time

import pytest
from telegram import (
    BotCommand,
    BotCommandScopeAllChatAdministrators,
    BotCommandScopeAllGroupChats,
    ForceReply,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
)

from fake_telegram import FakeTelegram

GROUP = -1001234567890


class Page:
    """What the web page does, over HTTP."""

    def __init__(self, http, fake: FakeTelegram) -> None:
        self.http = http
        self.root = f"http://{fake.host}:{fake.port}/play/api"

    async def get(self, path: str, status: int = 200, **query) -> dict:
        response = await self.http.get(f"{self.root}/{path}", params=query)
        assert response.status_code == status, response.text
        return response.json()

    async def post(self, path: str, body: dict, status: int = 200, **headers) -> dict:
        response = await self.http.post(f"{self.root}/{path}", json=body, headers=headers)
        assert response.status_code == status, response.text
        return response.json()

    async def events(self, user: int, since: int = 0, wait: float = 0) -> dict:
        return await self.get("events", user=user, since=since, wait=wait)


@pytest.fixture
def page(http, fake) -> Page:
    return Page(http, fake)


@pytest.fixture
def cast(fake):
    ada = fake.user(1001, "Ada", language_code="en")
    ayse = fake.user(1002, "Ayşe", language_code="tr")
    bob = fake.user(1003, "Bob", language_code="en")
    fake.group(GROUP, "Study group", {ada: "creator", ayse: "member", bob: "member"})
    return ada, ayse, bob


def keyboard(*labels: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[InlineKeyboardButton(x, callback_data=f"v1:{x}") for x in labels]])


async def test_the_page_and_its_files_are_served(fake, http):
    base = f"http://{fake.host}:{fake.port}"
    index = await http.get(f"{base}/play/")
    assert index.status_code == 200 and "text/html" in index.headers["content-type"]
    assert "/play/static/app.js" in index.text and "/play/static/style.css" in index.text
    script = await http.get(f"{base}/play/static/app.js")
    assert script.status_code == 200 and "javascript" in script.headers["content-type"]
    assert (await http.get(f"{base}/play/static/webchat.py")).status_code == 404
    assert (await http.get(f"{base}/play/static/..%2Fwebchat.py")).status_code == 404
    home = await http.get(f"{base}/", follow_redirects=False)
    assert home.status_code == 302 and home.headers["location"] == "/play/"


async def test_users_chats_and_the_menu_each_user_sees(fake, bot, page, cast):
    ada, ayse, bob = cast
    await bot.set_my_commands([BotCommand("quiz", "A question")])
    await bot.set_my_commands([BotCommand("quiz", "Bir soru")], language_code="tr")
    await bot.set_my_commands([BotCommand("round", "A group round")],
                              scope=BotCommandScopeAllGroupChats())
    await bot.set_my_commands([BotCommand("round", "A group round"), BotCommand("stop", "Stop")],
                              scope=BotCommandScopeAllChatAdministrators())
    await bot.set_my_description("I ask interview questions.")
    await bot.set_my_description("Mülakat soruları sorarım.", language_code="tr")
    users = await page.get("users")
    assert [u["name"] for u in users["users"]] == ["Ada", "Ayşe", "Bob"]
    assert users["bot"]["username"] == "coach_test_bot"

    chats = (await page.get("chats", user=ayse.id))["chats"]
    assert [(c["id"], c["type"]) for c in chats] == [(ayse.id, "private"), (GROUP, "supergroup")]
    assert chats[0]["menu"] == [{"command": "quiz", "description": "Bir soru"}]
    assert chats[0]["description"] == "Mülakat soruları sorarım."
    assert [c["command"] for c in chats[1]["menu"]] == ["round"]
    # Ada created the group, so she gets the administrators' menu there.
    ada_private, ada_group = (await page.get("chats", user=ada.id))["chats"]
    assert ada_private["description"] == "I ask interview questions."
    assert [c["command"] for c in ada_group["menu"]] == ["round", "stop"]
    assert {m["name"]: m["status"] for m in ada_group["members"]} == {
        "Coach Test Bot": "member", "Ada": "creator", "Ayşe": "member", "Bob": "member"}


async def test_messages_since_a_cursor_with_edits_and_deletes(fake, bot, page, cast):
    ada, _, _ = cast
    sent = await page.post("send", {"user": ada.id, "text": "/start"})
    assert sent["message"]["text"] == "/start"
    assert sent["message"]["entities"] == [{"type": "bot_command", "offset": 0, "length": 6}]
    first = await page.events(ada.id)
    assert [m["text"] for m in first["messages"]] == ["/start"]
    question = await bot.send_message(ada.id, "<b>Pick</b> one", parse_mode="HTML",
                                      reply_markup=keyboard("A", "B"))
    await bot.edit_message_text("<b>Pick</b> one: A", ada.id, question.message_id,
                                parse_mode="HTML")
    news = await page.events(ada.id, since=first["cursor"])
    # Sent then edited: the page gets it once, as it is now.
    [message] = news["messages"]
    assert message["text"] == "Pick one: A" and message["edited"] is True
    assert message["entities"] == [{"type": "bold", "offset": 0, "length": 4}]
    assert "reply_markup" not in message
    await bot.delete_message(ada.id, question.message_id)
    gone = await page.events(ada.id, since=news["cursor"])
    assert gone["messages"] == [
        {"chat_id": ada.id, "message_id": question.message_id, "deleted": True}]
    # Nothing new: the cursor stays and the lists are empty.
    assert (await page.events(ada.id, since=gone["cursor"]))["messages"] == []
    # A cursor from before a restart of the emulator starts the page over.
    assert (await page.events(ada.id, since=gone["cursor"] + 100))["reset"] is True


async def test_a_long_poll_wakes_up_when_the_bot_sends(fake, bot, page, cast):
    ada, _, _ = cast
    await page.post("send", {"user": ada.id, "text": "hello"})
    cursor = (await page.events(ada.id))["cursor"]
    poll = asyncio.create_task(page.events(ada.id, since=cursor, wait=10))
    await asyncio.sleep(0.1)
    began = time.monotonic()
    await bot.send_message(ada.id, "Hi!")
    news = await poll
    assert time.monotonic() - began < 1.0
    assert [m["text"] for m in news["messages"]] == ["Hi!"]


async def test_each_user_sees_their_own_chats_only(fake, bot, page, cast):
    ada, ayse, bob = cast
    await page.post("send", {"user": ada.id, "text": "/start"})
    await page.post("send", {"user": bob.id, "chat": GROUP, "text": "/help"})
    await bot.send_message(GROUP, "Commands: /quiz")
    ada_sees = {(m["chat_id"], m["text"]) for m in (await page.events(ada.id))["messages"]}
    bob_sees = {(m["chat_id"], m["text"]) for m in (await page.events(bob.id))["messages"]}
    assert ada_sees == {(ada.id, "/start"), (GROUP, "/help"), (GROUP, "Commands: /quiz")}
    assert bob_sees == {(GROUP, "/help"), (GROUP, "Commands: /quiz")}


async def test_a_tap_and_its_answer_reach_only_the_user_who_tapped(fake, bot, page, cast):
    ada, _, bob = cast
    await page.post("send", {"user": ada.id, "chat": GROUP, "text": "/quiz"})
    question = await bot.send_message(GROUP, "Which?", reply_markup=keyboard("A", "B"))
    cursor = (await page.events(ada.id))["cursor"]
    tapped = await page.post("tap", {"user": ada.id, "chat": GROUP,
                                     "message_id": question.message_id, "data": "v1:B"})
    [update] = [u for u in fake.updates if "callback_query" in u]
    assert update["callback_query"]["id"] == tapped["query_id"]
    assert update["callback_query"]["from"]["first_name"] == "Ada"
    await bot.answer_callback_query(tapped["query_id"], "❌ Not quite", show_alert=True)
    news = await page.events(ada.id, since=cursor)
    assert news["answers"] == [{"query_id": tapped["query_id"], "text": "❌ Not quite",
                                "show_alert": True, "chat_id": GROUP,
                                "message_id": question.message_id}]
    assert (await page.events(bob.id, since=cursor))["answers"] == []


async def test_bot_actions_reply_keyboards_and_force_reply_reach_the_page(fake, bot, page, cast):
    ada, _, _ = cast
    await page.post("send", {"user": ada.id, "text": "/import"})
    cursor = (await page.events(ada.id))["cursor"]
    await bot.send_chat_action(ada.id, "typing")
    await bot.send_message(ada.id, "Send the file name", reply_markup=ForceReply())
    news = await page.events(ada.id, since=cursor)
    assert news["actions"] == [{"chat_id": ada.id, "action": "typing"}]
    assert news["messages"][0]["force_reply"] is True


async def test_refused_calls_are_events_with_their_place_in_the_chat(fake, bot, page, cast):
    ada, _, _ = cast
    await page.post("send", {"user": ada.id, "text": "/start"})
    cursor = (await page.events(ada.id))["cursor"]
    response = await page.http.post(fake.api_url("sendMessage"),
                                    data={"chat_id": str(ada.id), "text": "x" * 4097})
    assert response.status_code == 400
    [violation] = (await page.events(ada.id, since=cursor))["violations"]
    assert violation == {
        "chat_id": ada.id, "after_message_id": 1, "chat_title": "Ada (private)",
        "text": "sendMessage chat 1001: 400 Bad Request: message is too long"}
    listed = await page.get("violations")
    assert listed == {"ok": True, "cursor": 1, "violations": [violation["text"]]}
    assert (await page.get("violations", since=1))["violations"] == []
    fake.violations.clear()  # this one was on purpose


async def test_photos_and_documents_both_ways(fake, bot, page, cast, png):
    ada, _, _ = cast
    await page.post("send", {"user": ada.id, "text": "/stats"})
    await bot.send_photo(ada.id, png, caption="Your week")
    [photo] = [m for m in (await page.events(ada.id))["messages"] if "photo" in m]
    served = await page.http.get(f"{page.root}/files/{photo['photo'][-1]['file_id']}")
    assert served.status_code == 200 and served.headers["content-type"] == "image/png"
    assert served.content == png
    upload = await page.http.post(
        f"{page.root}/send", data={"user": str(ada.id), "text": "my pack"},
        files={"file": ("pack.yaml", b"field: x\n", "application/x-yaml")})
    assert upload.status_code == 200, upload.text
    document = upload.json()["message"]["document"]
    assert document["file_name"] == "pack.yaml" and upload.json()["message"]["caption"] == "my pack"
    fetched = await page.http.get(f"{page.root}/files/{document['file_id']}")
    # What users upload is offered as a download, never shown as a page on this origin.
    assert fetched.headers["content-disposition"] == 'attachment; filename="pack.yaml"'
    assert fetched.content == b"field: x\n"
    assert (await page.http.get(f"{page.root}/files/nope")).status_code == 404


async def test_adding_a_user_and_changing_their_language(fake, bot, page, cast):
    await bot.set_my_commands([BotCommand("quiz", "A question")])
    await bot.set_my_commands([BotCommand("quiz", "Bir soru")], language_code="tr")
    cursor = (await page.events(1001))["cursor"]
    added = (await page.post("users", {"name": "  Cem ", "language": "tr"}))["user"]
    assert added == {"id": 1004, "name": "Cem", "language": "tr", "started": False,
                     "blocked": False}
    assert fake.chats[GROUP].members[1004] == "member"
    assert (await page.events(1001, since=cursor))["directory"] is True
    await page.post("users/1004", {"language": "en"})
    [private, group] = (await page.get("chats", user=1004))["chats"]
    assert private["menu"] == [{"command": "quiz", "description": "A question"}]
    assert group["id"] == GROUP
    # The bot gets the new language_code with the user's next message.
    await page.post("send", {"user": 1004, "text": "/start"})
    assert fake.updates[-1]["message"]["from"]["language_code"] == "en"


async def test_bad_input_gets_a_clear_error_and_changes_nothing(fake, bot, page, cast):
    ada, _, _ = cast
    assert (await page.get("chats", 404, user=999))["error"] == "no pretend user 999"
    assert (await page.get("events", 400, user="ada"))["error"] == "user must be a number"
    assert "not a member" in (await page.post(
        "send", {"user": ada.id, "chat": -100999, "text": "hi"}, 403))["error"]
    assert "1-4096" in (await page.post("send", {"user": ada.id, "text": " "}, 400))["error"]
    question = await _started_question(fake, bot, page, ada)
    assert "has no button" in (await page.post("tap", {
        "user": ada.id, "message_id": question.message_id, "data": "v1:forged"}, 400))["error"]
    assert (await page.post("users", {"name": "", "language": "en"}, 400))["error"]
    assert (await page.post("users", {"name": "Dan", "language": "english"}, 400))["error"]
    assert (await page.post("users", {"name": "Dan"}, 403, Origin="http://evil.example"))[
        "error"] == "cross-origin requests are refused"
    bad_json = await page.http.post(f"{page.root}/send", content=b"[1]",
                                    headers={"Content-Type": "application/json"})
    assert bad_json.status_code == 400
    assert sorted(fake.users) == [1001, 1002, 1003]
    assert [u for u in fake.updates if "callback_query" in u] == []


async def _started_question(fake, bot, page, user):
    await page.post("send", {"user": user.id, "text": "/quiz"})
    return await bot.send_message(user.id, "Which?", reply_markup=keyboard("A", "B"))
