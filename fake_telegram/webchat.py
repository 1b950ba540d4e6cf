"""The playground's web chat: a static page plus a small JSON API on the emulator's aiohttp app.
The page acts as pretend users (send, tap) and long-polls one event log for what changed.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from aiohttp import web

from fake_telegram.images import image_size
from fake_telegram.models import JSON, FakeUser
from fake_telegram.state import TelegramState

WEB_DIR = Path(__file__).resolve().parent / "web"
STATIC_TYPES = {"app.js": "text/javascript", "style.css": "text/css"}
# A long poll returns after this many seconds at most, so proxies and browsers never give up.
INLINE_WAIT = 5.0  # seconds Telegram's apps wait for inline results
MAX_WAIT = 25.0
FIRST_USER_ID = 1001
MAX_NAME = 64
MAX_UPLOAD = 20 * 1024 * 1024
_LANGUAGE = re.compile(r"[a-z]{2}")
_PRESENT = frozenset({"creator", "administrator", "member", "restricted"})
_MESSAGE_KINDS = frozenset({"message", "bot_message", "edit", "delete"})


@dataclass(frozen=True)
class Event:
    """One change the page may need: a message (new, edited, deleted), a tap's answer,
    a chat action, a refused call, or a change of users, members or command menus."""

    kind: str
    chat_id: int | None = None
    message_id: int | None = None
    user_id: int | None = None
    data: JSON = field(default_factory=dict)


class PageError(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


class WebChat:
    """Routes under /play/ and the event log they serve; one per fake server, which passes
    its state and its router in (so this module needs nothing of the server's)."""

    def __init__(self, fake: TelegramState, router: web.UrlDispatcher):
        self.fake = fake
        # The cursor a page holds is an index into this append-only log.
        self.log: list[Event] = []
        fake.listeners.append(self._on_change)
        router.add_get("/", self._to_page)
        router.add_get("/play", self._to_page)
        router.add_get("/play/", self._page)
        router.add_get("/play/static/{name}", self._static)
        router.add_get("/play/api/users", self._api(self.users))
        router.add_post("/play/api/users", self._api(self.add_user))
        router.add_post("/play/api/users/{user_id}", self._api(self.update_user))
        router.add_get("/play/api/chats", self._api(self.chats))
        router.add_get("/play/api/events", self._api(self.events))
        router.add_post("/play/api/send", self._api(self.send))
        router.add_post("/play/api/tap", self._api(self.tap))
        router.add_post("/play/api/inline", self._api(self.inline))
        router.add_post("/play/api/inline/choose", self._api(self.choose_inline))
        router.add_get("/play/api/violations", self._api(self.violations))
        router.add_get("/play/api/files/{file_id}", self._file)

    # -- the event log -----------------------------------------------------------------------

    def _on_change(self, kind: str, payload: JSON) -> None:
        fake = self.fake
        if kind in _MESSAGE_KINDS:
            self.log.append(Event("message", payload["chat"]["id"], payload["message_id"]))
        elif kind == "answer":
            query = fake.callback_queries.get(payload.get("query_id", ""))
            if query is not None:
                keys = ("text", "show_alert", "url")
                data = {"query_id": query.id, **{k: payload[k] for k in keys if k in payload}}
                self.log.append(
                    Event("answer", query.chat_id, query.message_id, query.user.id, data)
                )
        elif kind == "action":
            self.log.append(
                Event("action", payload["chat_id"], data={"action": payload["action"]})
            )
        elif kind == "violation":
            chat_id = payload.get("chat_id")
            chat = fake.chats.get(chat_id) if isinstance(chat_id, int) else None
            # Shown after the last message the chat had when the call was refused.
            after = chat.next_message_id - 1 if chat else 0
            self.log.append(Event("violation", chat_id, after, data={"text": payload["text"]}))
        elif kind == "commands":
            self.log.append(Event("directory"))

    # -- API ----------------------------------------------------------------------------------

    async def users(self, request: web.Request) -> JSON:
        """The bot and the pretend users."""
        people = sorted(self.fake.users.values(), key=lambda u: u.id)
        return {"bot": self.fake.me.to_dict(), "users": [_person(u) for u in people]}

    async def add_user(self, request: web.Request) -> JSON:
        """A new pretend user, who joins every group the bot is in."""
        body = await _json_body(request)
        name = str(body.get("name", "")).strip()
        if not 1 <= len(name) <= MAX_NAME:
            raise PageError(400, f"a name has 1-{MAX_NAME} characters")
        language = _language(body.get("language", "en"))
        user_id = max([FIRST_USER_ID - 1, *self.fake.users]) + 1
        user = self.fake.user(user_id, name, language_code=language)
        for chat in list(self.fake.chats.values()):
            if not chat.is_private and chat.members.get(self.fake.me.id) in _PRESENT:
                self.fake.add_member(chat.id, user, "member", notify=True)
        self.log.append(Event("directory"))
        return {"user": _person(user)}

    async def update_user(self, request: web.Request) -> JSON:
        """Change a pretend user's language (Telegram sends the new language_code from then on)."""
        user = self._user(request.match_info["user_id"])
        body = await _json_body(request)
        user.language_code = _language(body.get("language"))
        self.log.append(Event("directory"))
        return {"user": _person(user)}

    async def chats(self, request: web.Request) -> JSON:
        """The chats the user sees: their private chat with the bot, then their groups."""
        user = self._user(request.query.get("user"))
        me = self.fake.me
        chats: list[JSON] = [
            {
                "id": user.id,
                "type": "private",
                "title": me.first_name,
                "username": me.username,
                "started": user.started,
                "blocked": user.blocked,
                "description": self._description(user),
                "menu": self.fake.menu_for(user, user.id),
            }
        ]
        for chat in self.fake.chats.values():
            if chat.is_private or chat.members.get(user.id) not in _PRESENT:
                continue
            members = [
                {
                    "id": member_id,
                    "name": me.first_name if member_id == me.id else self._name(member_id),
                    "status": status,
                    "is_bot": member_id == me.id,
                }
                for member_id, status in chat.members.items()
                if status in _PRESENT
            ]
            chats.append(
                {
                    "id": chat.id,
                    "type": chat.chat["type"],
                    "title": chat.chat.get("title", ""),
                    "members": members,
                    "menu": self.fake.menu_for(user, chat.id),
                    "forum": chat.is_forum,
                    "topics": [
                        {"id": thread_id, "name": topic["name"], "closed": topic["closed"]}
                        for thread_id, topic in chat.topics.items()
                        if not topic["deleted"]
                    ],
                }
            )
        return {"chats": chats, "inline": self.fake.inline_mode, "bot": self.fake.me.username}

    async def events(self, request: web.Request) -> JSON:
        """What changed for this user since the cursor; waits up to `wait` seconds for news.

        `since=0` (or a cursor from before a restart) gives every message of the user's chats.
        """
        user = self._user(request.query.get("user"))
        since = _int(request.query.get("since", "0"), "since")
        wait = min(max(_float(request.query.get("wait", "0"), "wait"), 0.0), MAX_WAIT)
        reset = since > len(self.log)
        if reset:
            since = 0
        deadline = time.monotonic() + wait
        while since and since >= len(self.log) and not self.fake.closing:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            await self.fake.wait_changed(remaining)
        visible = self._visible_chats(user)
        news = self.log[since:]
        if since == 0:
            chats = [self.fake.chats[chat_id] for chat_id in sorted(visible)]
            keys = [
                (c.id, m["message_id"]) for c in chats for m in c.messages if not m.get("deleted")
            ]
        else:
            keys = list(
                dict.fromkeys(
                    (e.chat_id, e.message_id)
                    for e in news
                    if e.kind == "message" and e.chat_id in visible
                )
            )
        return {
            "cursor": len(self.log),
            "reset": reset,
            "messages": [self._page_message(chat_id, message_id) for chat_id, message_id in keys],
            "answers": [
                {**e.data, "chat_id": e.chat_id, "message_id": e.message_id}
                for e in news
                if e.kind == "answer" and e.user_id == user.id and since
            ],
            "actions": [
                {"chat_id": e.chat_id, **e.data}
                for e in news
                if e.kind == "action" and e.chat_id in visible and since
            ],
            "violations": [
                {
                    "chat_id": e.chat_id,
                    "after_message_id": e.message_id,
                    "chat_title": self._chat_title(e.chat_id),
                    **e.data,
                }
                for e in news
                if e.kind == "violation"
            ],
            "directory": since == 0 or any(e.kind == "directory" for e in news),
        }

    async def send(self, request: web.Request) -> JSON:
        """The user writes in a chat: text (JSON), or a file with a caption (multipart)."""
        upload: web.FileField | None = None
        if request.content_type == "multipart/form-data":
            form = await request.post()
            body: JSON = {k: v for k, v in form.items() if isinstance(v, str)}
            field = form.get("file")
            if not isinstance(field, web.FileField):
                raise PageError(400, "multipart sends need a file field")
            upload = field
        else:
            body = await _json_body(request)
        user = self._user(body.get("user"))
        chat_id = self._chat_of(user, body.get("chat", user.id))
        text = str(body.get("text") or "")
        try:
            if upload is not None:
                message = self._send_file(user, chat_id, upload, text or None)
            else:
                reply_to = body.get("reply_to")
                thread = body.get("thread")
                message = self.fake.send_message(
                    user,
                    text,
                    chat_id=chat_id,
                    reply_to=_int(reply_to, "reply_to") if reply_to else None,
                    thread_id=_int(thread, "thread") if thread else None,
                )
        except ValueError as err:
            raise PageError(400, str(err)) from None
        return {"message": self._page_message(chat_id, message["message_id"])}

    def _send_file(
        self, user: FakeUser, chat_id: int, upload: web.FileField, caption: str | None
    ) -> JSON:
        data = upload.file.read(MAX_UPLOAD + 1)
        if not data or len(data) > MAX_UPLOAD:
            raise PageError(400, "a file has 1 byte to 20 MB here")
        if caption is not None and len(caption) > 1024:
            raise PageError(400, "a caption has at most 1024 characters")
        if image_size(data) is not None and upload.content_type in ("image/png", "image/jpeg"):
            return self.fake.send_photo(user, data, chat_id=chat_id, caption=caption)
        return self.fake.send_document(
            user,
            upload.filename or "file",
            data,
            upload.content_type or None,
            chat_id=chat_id,
            caption=caption,
        )

    async def tap(self, request: web.Request) -> JSON:
        """The user presses an inline button the message shows right now."""
        body = await _json_body(request)
        user = self._user(body.get("user"))
        chat_id = self._chat_of(user, body.get("chat", user.id))
        message_id = _int(body.get("message_id"), "message_id")
        data = body.get("data")
        if not isinstance(data, str):
            raise PageError(400, "data must be the button's callback_data")
        try:
            query_id = self.fake.tap(user, message_id, data, chat_id=chat_id, strict=True)
        except ValueError as err:
            raise PageError(400, str(err)) from None
        return {"query_id": query_id}

    async def inline(self, request: web.Request) -> JSON:
        """The user types `@bot query` in a chat: the bot's results (title and description)."""
        body = await _json_body(request)
        user = self._user(body.get("user"))
        chat_id = self._chat_of(user, body.get("chat", user.id))
        query = str(body.get("query") or "")[:256]
        chat = self.fake.chats.get(chat_id)
        kind = "sender" if chat is None or chat.is_private else str(chat.chat["type"])
        try:
            query_id = self.fake.inline_query(user, query, chat_type=kind)
            answer = await self.fake.wait_inline_answer(query_id, timeout=INLINE_WAIT)
        except ValueError as err:
            raise PageError(400, str(err)) from None
        except TimeoutError:
            raise PageError(504, "the bot did not answer the inline query in time") from None
        results = [
            {"id": r["id"], "title": r.get("title", ""), "description": r.get("description", "")}
            for r in answer["results"]
        ]
        return {"query_id": query_id, "results": results}

    async def choose_inline(self, request: web.Request) -> JSON:
        """The user picks an inline result: it is posted in the chat via the bot."""
        body = await _json_body(request)
        user = self._user(body.get("user"))
        chat_id = self._chat_of(user, body.get("chat", user.id))
        thread = body.get("thread")
        try:
            message = self.fake.choose_inline_result(
                user, str(body.get("query_id")), str(body.get("result_id")), chat_id,
                thread_id=_int(thread, "thread") if thread else None)
        except ValueError as err:
            raise PageError(400, str(err)) from None
        return {"message": self._page_message(chat_id, message["message_id"])}

    async def violations(self, request: web.Request) -> JSON:
        """Calls the emulator refused, as Telegram would have; `since` is an index."""
        since = _int(request.query.get("since", "0"), "since")
        return {"cursor": len(self.fake.violations), "violations": self.fake.violations[since:]}

    # -- pages and files ------------------------------------------------------------------------

    async def _to_page(self, request: web.Request) -> web.StreamResponse:
        raise web.HTTPFound("/play/")

    async def _page(self, request: web.Request) -> web.StreamResponse:
        return _static_file("index.html", "text/html")

    async def _static(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        if name not in STATIC_TYPES:
            raise web.HTTPNotFound()
        return _static_file(name, STATIC_TYPES[name])

    async def _file(self, request: web.Request) -> web.StreamResponse:
        """A photo or document from a chat: images inline, anything else as a download."""
        stored = self.fake.files.get(request.match_info["file_id"])
        if stored is None:
            raise web.HTTPNotFound()
        headers = {"X-Content-Type-Options": "nosniff", "Cache-Control": "private, max-age=3600"}
        kind = _image_type(stored.data)
        if kind is None:
            # Never render what a bot or user uploaded as a page on this origin.
            name = re.sub(r"[^A-Za-z0-9._ -]", "_", stored.file_name or "file")
            headers["Content-Disposition"] = f'attachment; filename="{name}"'
            kind = "application/octet-stream"
        return web.Response(body=stored.data, content_type=kind, headers=headers)

    # -- helpers -------------------------------------------------------------------------------

    def _api(self, handler: Any) -> Any:
        async def wrapped(request: web.Request) -> web.StreamResponse:
            try:
                if request.method != "GET":
                    _same_origin(request)
                body = await handler(request)
            except PageError as err:
                return _json(err.status, {"ok": False, "error": err.message})
            return _json(200, {"ok": True, **body})

        return wrapped

    def _user(self, value: Any) -> FakeUser:
        user_id = _int(value, "user")
        user = self.fake.users.get(user_id)
        if user is None:
            raise PageError(404, f"no pretend user {user_id}")
        return user

    def _chat_of(self, user: FakeUser, value: Any) -> int:
        chat_id = _int(value, "chat")
        if chat_id != user.id and chat_id not in self._visible_chats(user):
            raise PageError(403, f"{user.first_name} is not a member of chat {chat_id}")
        return chat_id

    def _description(self, user: FakeUser) -> str:
        """What setMyDescription set, in the user's language if it was set for it."""
        texts = self.fake.bot_texts
        language = (user.language_code or "").split("-")[0]
        return texts.get(("description", language)) or texts.get(("description", ""), "")

    def _name(self, user_id: int) -> str:
        user = self.fake.users.get(user_id)
        return user.first_name if user else str(user_id)

    def _chat_title(self, chat_id: int | None) -> str:
        chat = self.fake.chats.get(chat_id) if chat_id is not None else None
        if chat is None:
            return ""
        if chat.is_private:
            return f"{self._name(chat.id)} (private)"
        return str(chat.chat.get("title", chat.id))

    def _visible_chats(self, user: FakeUser) -> set[int]:
        return {
            chat.id
            for chat in self.fake.chats.values()
            if chat.id == user.id
            or (not chat.is_private and chat.members.get(user.id) in _PRESENT)
        }

    def _page_message(self, chat_id: int, message_id: int) -> JSON:
        """The Message a client would get, plus what a client also knows: edited, deleted,
        and the reply keyboard or force-reply the message came with."""
        chat = self.fake.chats[chat_id]
        message = chat.by_id[message_id]
        if message.get("deleted"):
            return {"chat_id": chat_id, "message_id": message_id, "deleted": True}
        page = {**self.fake.api_message(message), "chat_id": chat_id}
        page["edited"] = message.get("edit_count", 0) > 0
        markup = message.get("reply_markup")
        if isinstance(markup, dict):
            if markup.get("force_reply"):
                page["force_reply"] = True
            if isinstance(markup.get("keyboard"), list):
                page["reply_keyboard"] = [
                    [b if isinstance(b, str) else b.get("text", "") for b in row]
                    for row in markup["keyboard"]
                ]
            if markup.get("remove_keyboard"):
                page["remove_keyboard"] = True
        return page


def _person(user: FakeUser) -> JSON:
    return {
        "id": user.id,
        "name": user.first_name,
        "language": user.language_code or "",
        "started": user.started,
        "blocked": user.blocked,
    }


def _language(value: Any) -> str:
    if not isinstance(value, str) or not _LANGUAGE.fullmatch(value):
        raise PageError(400, "language is a two-letter code such as en or tr")
    return value


def _int(value: Any, name: str) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise PageError(400, f"{name} must be a number") from None


def _float(value: Any, name: str) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        raise PageError(400, f"{name} must be a number") from None


async def _json_body(request: web.Request) -> JSON:
    try:
        body = await request.json()
    except ValueError:
        raise PageError(400, "the body must be a JSON object") from None
    if not isinstance(body, dict):
        raise PageError(400, "the body must be a JSON object")
    return body


def _same_origin(request: web.Request) -> None:
    """Refuse writes from other sites open in the same browser (they can reach 127.0.0.1 too)."""
    origin = request.headers.get("Origin")
    if origin and urlsplit(origin).netloc != request.host:
        raise PageError(403, "cross-origin requests are refused")


def _image_type(data: bytes) -> str | None:
    if image_size(data) is None:
        return None
    if data.startswith(b"\x89PNG"):
        return "image/png"
    if data.startswith(b"\xff\xd8"):
        return "image/jpeg"
    return "image/webp"


def _static_file(name: str, content_type: str) -> web.Response:
    body = (WEB_DIR / name).read_bytes()
    return web.Response(
        body=body,
        content_type=content_type,
        charset="utf-8",
        headers={"Cache-Control": "no-store"},
    )


def _json(status: int, body: JSON) -> web.Response:
    return web.Response(
        status=status,
        body=json.dumps(body, ensure_ascii=False).encode(),
        content_type="application/json",
    )
