"""What the fake Telegram knows (users, chats, messages, files, updates) and the users' side of it.
Tests act as users through these methods; the Bot API handlers in `methods.py` share the state.
"""

from __future__ import annotations

import asyncio
import html
import inspect
import itertools
import logging
import mimetypes
import re
import secrets
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fake_telegram.html_entities import entities_to_html, utf16_len
from fake_telegram.images import image_size
from fake_telegram.models import JSON, FakeUser, Stats, StoredFile

log = logging.getLogger(__name__)

UPDATE_TYPES = (
    "message", "edited_message", "channel_post", "edited_channel_post", "business_connection",
    "business_message", "edited_business_message", "deleted_business_messages", "guest_message",
    "message_reaction", "message_reaction_count", "inline_query", "chosen_inline_result",
    "callback_query", "shipping_query", "pre_checkout_query", "purchased_paid_media", "poll",
    "poll_answer", "my_chat_member", "chat_member", "chat_join_request", "chat_boost",
    "removed_chat_boost", "managed_bot",
)  # fmt: skip
# Without allowed_updates Telegram sends everything except these.
_OPT_IN_UPDATES = frozenset({"chat_member", "message_reaction", "message_reaction_count"})
_MEMBER_STATUSES = frozenset(
    {"creator", "administrator", "member", "restricted", "left", "kicked"}
)
# The permissions a ChatMemberRestricted must list.
_RIGHTS = (
    "can_send_messages", "can_send_audios", "can_send_documents", "can_send_photos",
    "can_send_videos", "can_send_video_notes", "can_send_voice_notes", "can_send_polls",
    "can_send_other_messages", "can_add_web_page_previews", "can_react_to_messages",
    "can_edit_tag", "can_change_info", "can_invite_users", "can_pin_messages", "can_manage_topics",
)  # fmt: skip
_PRESENT = frozenset({"creator", "administrator", "member", "restricted"})
_ADMINS = frozenset({"creator", "administrator"})
_INTERNAL_KEYS = frozenset(
    {"html", "edit_count", "edit_history", "deleted", "entities", "inline_message_id"}
)
_COMMAND_RE = re.compile(r"/[A-Za-z0-9_]{1,32}(@[A-Za-z0-9_]{3,32})?")
_FILE_ID_PREFIX = {"photo": "AgACAgIAAxkBAAI", "document": "BQACAgIAAxkBAAI"}
_PHOTO_SIDES = (90, 320, 800, 1280)


@dataclass
class ChatState:
    """One chat: its Chat object, members' statuses and message history (deleted ones kept)."""

    chat: JSON
    members: dict[int, str] = field(default_factory=dict)
    messages: list[JSON] = field(default_factory=list)
    by_id: dict[int, JSON] = field(default_factory=dict)
    actions: list[tuple[float, str]] = field(default_factory=list)
    next_message_id: int = 1
    # A forum's topics by thread id (the id of the message that created the topic).
    topics: dict[int, JSON] = field(default_factory=dict)

    @property
    def id(self) -> int:
        return int(self.chat["id"])

    @property
    def is_private(self) -> bool:
        return self.chat["type"] == "private"

    @property
    def is_forum(self) -> bool:
        return bool(self.chat.get("is_forum"))

    def live(self, message_id: int) -> JSON | None:
        message = self.by_id.get(message_id)
        return None if message is None or message.get("deleted") else message


@dataclass
class CallbackQueryState:
    """A tap on a button, and the bot's answer once it comes."""

    id: str
    user: FakeUser
    chat_id: int
    message_id: int
    data: str
    tapped_at: float
    answer: JSON | None = None
    latency: float | None = None
    inline_message_id: str | None = None


@dataclass
class InlineQueryState:
    """A user typing `@bot query` in some chat, and the bot's answer once it comes."""

    id: str
    user: FakeUser
    query: str
    chat_type: str
    asked_at: float
    answer: JSON | None = None
    latency: float | None = None


@dataclass
class Webhook:
    """What setWebhook set, plus the last delivery error as getWebhookInfo reports it."""

    url: str
    secret_token: str | None = None
    max_connections: int = 40
    ip_address: str | None = None
    has_custom_certificate: bool = False
    last_error_date: int | None = None
    last_error_message: str | None = None


class TelegramState:
    """Users, chats, messages, files and the update queue of one fake bot."""

    def __init__(
        self,
        *,
        bot_id: int,
        bot_username: str,
        bot_name: str,
        privacy_mode: bool = True,
    ):
        self.me = FakeUser(bot_id, bot_name, None, bot_username, is_bot=True)
        # With privacy mode on (Telegram's default) a bot sees only some group messages.
        self.privacy_mode = privacy_mode
        self.users: dict[int, FakeUser] = {}
        self.chats: dict[int, ChatState] = {}
        self.files: dict[str, StoredFile] = {}
        self.files_by_path: dict[str, StoredFile] = {}
        self.updates: list[JSON] = []
        self.allowed_updates: frozenset[str] | None = None
        self.dropped_updates: list[JSON] = []
        self.undelivered_messages: list[JSON] = []
        self.callback_queries: dict[str, CallbackQueryState] = {}
        # Inline mode is off until the bot's owner turns it on with @BotFather (/setinline).
        self.inline_mode = False
        self.inline_queries: dict[str, InlineQueryState] = {}
        # Telegram accepts an answer to an inline query for a few seconds only.
        self.inline_query_ttl = 10.0
        # Messages sent through the bot in inline mode: inline_message_id -> (chat, message).
        self.inline_messages: dict[str, tuple[int, int]] = {}
        # Telegram stops accepting answers after a while (about 15 s in practice).
        self.callback_query_ttl = 15.0
        self.bot_commands: dict[tuple[str, str], list[JSON]] = {}
        self.bot_texts: dict[tuple[str, str], str] = {}
        self.webhook: Webhook | None = None
        self.unimplemented: Counter[str] = Counter()
        self.listeners: list[Callable[[str, JSON], Any]] = []
        # The bot's calls Telegram would have refused, one line each ("sendMessage chat 1: 400").
        self.violations: list[str] = []
        self._update_ids = itertools.count(100_000_001)
        self._query_ids = itertools.count(1)
        self._file_numbers = itertools.count(0)
        self._changed = asyncio.Event()
        self.closing = False
        # Bumped by every getUpdates call, so an older long poll knows it was superseded.
        self.poll_generation = 0
        self.strict_ampersand = True
        self.allow_local_webhooks = True
        self.stats = Stats()

    # -- change notification ------------------------------------------------------------------

    def touch(self, kind: str = "", payload: JSON | None = None) -> None:
        """Wake everything waiting on the state and tell listeners (the playground)."""
        self._changed.set()
        self._changed = asyncio.Event()
        if kind:
            for listener in list(self.listeners):
                try:
                    listener(kind, payload or {})
                except Exception:  # a broken viewer must not break the bot's calls
                    log.exception("emulator listener failed on %s", kind)

    def webhook_changed(self) -> None:
        """Called after setWebhook/deleteWebhook; the server starts or stops delivery."""

    async def wait_changed(self, timeout: float) -> None:  # noqa: ASYNC109
        event = self._changed
        try:
            await asyncio.wait_for(event.wait(), timeout)
        except TimeoutError:
            pass

    # -- objects ---------------------------------------------------------------------------------

    def bot_user(self) -> JSON:
        return {
            **self.me.to_dict(),
            "can_join_groups": True,
            "can_read_all_group_messages": not self.privacy_mode,
            "supports_inline_queries": self.inline_mode,
            "can_connect_to_business": False,
            "has_main_web_app": False,
        }

    def api_message(self, message: JSON, *, with_reply: bool = True) -> JSON:
        """The Message object Telegram would send: internal bookkeeping and empty fields left out."""
        out = {k: v for k, v in message.items() if k not in _INTERNAL_KEYS and v is not None}
        if "text" in message and message.get("entities"):
            out["entities"] = message["entities"]
        if not out.get("caption_entities"):
            out.pop("caption_entities", None)
        markup = out.get("reply_markup")
        if not (isinstance(markup, dict) and "inline_keyboard" in markup):
            out.pop("reply_markup", None)  # only inline keyboards are part of a Message
        if not with_reply:
            out.pop("reply_to_message", None)
        return out

    def resolve_user(self, user_id: int) -> JSON | None:
        user = self.users.get(user_id)
        return user.to_dict() if user else None

    # -- users and chats (test side) ---------------------------------------------------------

    def user(
        self,
        user_id: int,
        first_name: str,
        language_code: str | None = "en",
        username: str | None = None,
        *,
        last_name: str | None = None,
        blocked: bool = False,
        started: bool = False,
    ) -> FakeUser:
        """A fake user (the same object again for a known id)."""
        if user_id <= 0:
            raise ValueError("user ids are positive")
        if user_id in self.users:
            return self.users[user_id]
        user = FakeUser(
            user_id, first_name, language_code, username, blocked, last_name, started=started
        )
        self.users[user_id] = user
        return user

    def _register(self, user: FakeUser) -> FakeUser:
        return self.users.setdefault(user.id, user)

    def private_chat(self, user: FakeUser) -> ChatState:
        chat = self.chats.get(user.id)
        if chat is None:
            info = {k: v for k, v in user.to_dict().items() if k in ("first_name", "last_name")}
            if user.username:
                info["username"] = user.username
            chat = ChatState({"id": user.id, "type": "private", **info})
            chat.members = {user.id: "member", self.me.id: "member"}
            self.chats[user.id] = chat
        return chat

    def group(
        self,
        chat_id: int,
        title: str,
        members: dict[FakeUser, str] | None = None,
        *,
        username: str | None = None,
        chat_type: str | None = None,
        bot_status: str = "member",
        forum: bool = False,
    ) -> JSON:
        """A group the bot is in (supergroup for ids starting -100); returns its Chat object.
        forum=True makes it a supergroup with topics (add them with create_topic)."""
        if chat_id >= 0:
            raise ValueError("group chat ids are negative")
        kind = chat_type or ("supergroup" if str(chat_id).startswith("-100") else "group")
        if forum and kind != "supergroup":
            raise ValueError("only supergroups have topics")
        info: JSON = {"id": chat_id, "title": title, "type": kind}
        if forum:
            info["is_forum"] = True
        if username:
            info["username"] = username
        chat = self.chats.get(chat_id) or ChatState(info)
        chat.chat.update(info)
        self.chats[chat_id] = chat
        self._set_status(chat, self.me.id, bot_status)
        for user, status in (members or {}).items():
            self._register(user)
            self._set_status(chat, user.id, status)
        return chat.chat

    def add_member(
        self, chat_id: int, user: FakeUser, status: str = "member", *, notify: bool = False
    ) -> None:
        """Set a member's status; notify=True also sends (my_)chat_member like Telegram does."""
        chat = self._chat_or_raise(chat_id)
        if not user.is_bot:
            self._register(user)
        old = chat.members.get(user.id, "left")
        self._set_status(chat, user.id, status)
        if notify:
            kind = "my_chat_member" if user.id == self.me.id else "chat_member"
            actor = next(
                (
                    self.users[u]
                    for u, s in chat.members.items()
                    if s == "creator" and u in self.users
                ),
                user,
            )
            self.enqueue_update(
                {
                    kind: {
                        "chat": chat.chat,
                        "from": actor.to_dict(),
                        "date": int(time.time()),
                        "old_chat_member": self.member_object(chat, user.id, old),
                        "new_chat_member": self.member_object(chat, user.id, status),
                    }
                }
            )

    # -- forum topics ----------------------------------------------------------------------------

    def create_topic(self, chat_id: int, name: str) -> int:
        """A new topic in a forum; returns its message_thread_id."""
        chat = self._chat_or_raise(chat_id)
        if not chat.is_forum:
            raise ValueError(f"chat {chat_id} is not a forum")
        creator = next((u for u, s in chat.members.items() if s == "creator"), self.me.id)
        sender = self.me.to_dict() if creator == self.me.id else self.resolve_user(creator)
        service = self.add_message(
            chat, sender or {"id": creator, "is_bot": False, "first_name": "Admin"},
            {"forum_topic_created": {"name": name, "icon_color": 7322096}})
        thread_id = int(service["message_id"])
        service.update(message_thread_id=thread_id, is_topic_message=True)
        chat.topics[thread_id] = {"name": name, "closed": False, "deleted": False}
        self.touch("topic", {"chat_id": chat_id, "thread_id": thread_id, "name": name})
        return thread_id

    def close_topic(self, chat_id: int, thread_id: int, *, closed: bool = True) -> None:
        """An admin closes (or reopens) a topic: only admins may post there meanwhile."""
        self._topic(chat_id, thread_id)["closed"] = closed

    def delete_topic(self, chat_id: int, thread_id: int) -> None:
        """An admin deletes a topic with all its messages."""
        chat = self._chat_or_raise(chat_id)
        self._topic(chat_id, thread_id)["deleted"] = True
        for message in chat.messages:
            if message.get("message_thread_id") == thread_id:
                message["deleted"] = True

    def _topic(self, chat_id: int, thread_id: int) -> JSON:
        topic = self._chat_or_raise(chat_id).topics.get(thread_id)
        if topic is None:
            raise ValueError(f"no topic {thread_id} in chat {chat_id}")
        return topic

    def topic_messages(self, chat_id: int, thread_id: int | None) -> list[JSON]:
        """The bot's live messages in one topic of a forum (None: the General topic)."""
        return [m for m in self.bot_messages(chat_id) if m.get("message_thread_id") == thread_id]

    def block(self, user: FakeUser) -> None:
        """The user blocks the bot: later sends get 403 and the bot gets my_chat_member."""
        self._set_blocked(user, True)

    def unblock(self, user: FakeUser) -> None:
        self._set_blocked(user, False)

    def _set_blocked(self, user: FakeUser, blocked: bool) -> None:
        user = self._register(user)
        chat = self.private_chat(user)
        user.started = True  # only someone who opened the bot can block it
        user.blocked = blocked
        old, new = ("member", "kicked") if blocked else ("kicked", "member")
        self.enqueue_update(
            {
                "my_chat_member": {
                    "chat": chat.chat,
                    "from": user.to_dict(),
                    "date": int(time.time()),
                    "old_chat_member": self.member_object(chat, self.me.id, old),
                    "new_chat_member": self.member_object(chat, self.me.id, new),
                }
            }
        )

    def _set_status(self, chat: ChatState, user_id: int, status: str) -> None:
        if status not in _MEMBER_STATUSES:
            raise ValueError(f"unknown member status {status!r}")
        chat.members[user_id] = status

    def _chat_or_raise(self, chat_id: int) -> ChatState:
        chat = self.chats.get(chat_id)
        if chat is None:
            raise ValueError(f"no chat {chat_id}; create it with fake.group(...)")
        return chat

    def member_object(self, chat: ChatState, user_id: int, status: str) -> JSON:
        """A ChatMember object with the fields its status requires."""
        user = self.me.to_dict() if user_id == self.me.id else self.resolve_user(user_id)
        member: JSON = {"status": status, "user": user or {"id": user_id, "is_bot": False}}
        if status == "creator":
            member["is_anonymous"] = False
        elif status == "administrator":
            member.update(
                can_be_edited=False,
                is_anonymous=False,
                can_manage_chat=True,
                can_delete_messages=True,
                can_manage_video_chats=True,
                can_restrict_members=True,
                can_promote_members=False,
                can_change_info=True,
                can_invite_users=True,
                can_post_stories=False,
                can_edit_stories=False,
                can_delete_stories=False,
                can_pin_messages=True,
            )
        elif status == "restricted":
            member.update({"is_member": True, "until_date": 0, **dict.fromkeys(_RIGHTS, False)})
        elif status == "kicked":
            member["until_date"] = 0
        return member

    # -- messages (both sides) -------------------------------------------------------------------

    def add_message(
        self,
        chat: ChatState,
        sender: JSON,
        content: JSON,
        *,
        reply_markup: JSON | None = None,
        reply_to: JSON | None = None,
    ) -> JSON:
        """Store a new message in the chat and return its record (a live dict, edits apply)."""
        message: JSON = {
            "message_id": chat.next_message_id,
            "from": sender,
            "chat": chat.chat,
            "date": int(time.time()),
            **content,
            "reply_markup": reply_markup,
            "edit_count": 0,
            "edit_history": [],
        }
        if reply_to is not None:
            message["reply_to_message"] = self.api_message(reply_to, with_reply=False)
        chat.next_message_id += 1
        chat.messages.append(message)
        chat.by_id[message["message_id"]] = message
        return message

    def messages(self, chat_id: int) -> list[JSON]:
        """Messages in the chat, oldest first, edits applied, deleted ones left out."""
        chat = self.chats.get(chat_id)
        return [m for m in chat.messages if not m.get("deleted")] if chat else []

    def bot_messages(self, chat_id: int) -> list[JSON]:
        return [m for m in self.messages(chat_id) if m.get("from", {}).get("id") == self.me.id]

    def last_bot_message(self, chat_id: int) -> JSON | None:
        sent = self.bot_messages(chat_id)
        return sent[-1] if sent else None

    def deleted_messages(self, chat_id: int) -> list[JSON]:
        chat = self.chats.get(chat_id)
        return [m for m in chat.messages if m.get("deleted")] if chat else []

    def chat_actions(self, chat_id: int) -> list[str]:
        chat = self.chats.get(chat_id)
        return [action for _, action in chat.actions] if chat else []

    @staticmethod
    def buttons(message: JSON | None) -> list[list[tuple[str, str | None]]]:
        """The inline keyboard as rows of (text, callback_data or url)."""
        markup = (message or {}).get("reply_markup") or {}
        return [
            [(b.get("text", ""), b.get("callback_data", b.get("url"))) for b in row]
            for row in markup.get("inline_keyboard", [])
        ]

    # -- the users' side -------------------------------------------------------------------------

    def _user_chat(self, user: FakeUser, chat_id: int | None) -> ChatState:
        user = self._register(user)
        if chat_id is None or chat_id == user.id:
            if user.blocked:
                raise ValueError(
                    f"{user.first_name} blocked the bot; unblock before writing to it"
                )
            user.started = True
            return self.private_chat(user)
        chat = self._chat_or_raise(chat_id)
        if chat.members.get(user.id) not in _PRESENT:
            raise ValueError(
                f"{user.first_name} is not a member of {chat_id}; use fake.add_member first"
            )
        return chat

    def _message_in(self, chat: ChatState, message: JSON | int) -> JSON:
        message_id = message if isinstance(message, int) else int(message["message_id"])
        found = chat.live(message_id)
        if found is None:
            raise ValueError(f"no message {message_id} in chat {chat.id}")
        return found

    def send_message(
        self,
        user: FakeUser,
        text: str,
        *,
        chat_id: int | None = None,
        reply_to: JSON | int | None = None,
        entities: list[JSON] | None = None,
        thread_id: int | None = None,
    ) -> JSON:
        """The user writes `text` (in a forum topic with `thread_id`); a leading /command gets
        its bot_command entity."""
        if not text.strip() or utf16_len(text) > 4096:
            raise ValueError("a user message has 1-4096 characters")
        chat = self._user_chat(user, chat_id)
        if entities is None:
            match = _COMMAND_RE.match(text)
            entities = (
                [{"type": "bot_command", "offset": 0, "length": utf16_len(match.group())}]
                if match
                else []
            )
        content: JSON = {
            "text": text, "entities": entities, "html": entities_to_html(text, entities)
        }
        if thread_id is not None:
            topic = self._topic(chat.id, thread_id)
            if topic["deleted"] or topic["closed"]:
                raise ValueError(f"topic {thread_id} is closed or deleted")
            content.update(message_thread_id=thread_id, is_topic_message=True)
        return self._user_message(chat, user, content, reply_to)

    def send_document(
        self,
        user: FakeUser,
        filename: str,
        data: bytes,
        mime_type: str | None = None,
        chat_id: int | None = None,
        caption: str | None = None,
    ) -> JSON:
        """The user sends a file; the bot can fetch it with getFile and download it."""
        chat = self._user_chat(user, chat_id)
        mime = mime_type or mimetypes.guess_type(filename)[0] or "application/octet-stream"
        stored = self.store_file("document", data, file_name=filename, mime_type=mime)
        document = {
            "file_name": filename,
            "mime_type": mime,
            "file_id": stored.file_id,
            "file_unique_id": stored.file_unique_id,
            "file_size": len(data),
        }
        return self._user_message(chat, user, {"document": document, **_caption(caption)}, None)

    def send_photo(
        self,
        user: FakeUser,
        data: bytes,
        chat_id: int | None = None,
        caption: str | None = None,
    ) -> JSON:
        """The user sends a photo (PNG, JPEG or WebP bytes)."""
        if image_size(data) is None:
            raise ValueError("send_photo needs PNG, JPEG or WebP bytes")
        chat = self._user_chat(user, chat_id)
        content = {"photo": self.photo_sizes(data), **_caption(caption)}
        return self._user_message(chat, user, content, None)

    def _user_message(
        self, chat: ChatState, user: FakeUser, content: JSON, reply_to: JSON | int | None
    ) -> JSON:
        target = self._message_in(chat, reply_to) if reply_to is not None else None
        message = self.add_message(chat, user.to_dict(), content, reply_to=target)
        if self._bot_sees(chat, message, target):
            self.enqueue_update({"message": self.api_message(message)})
        else:
            self.undelivered_messages.append(message)
        self.touch("message", message)
        return message

    def _bot_sees(self, chat: ChatState, message: JSON, reply_to: JSON | None) -> bool:
        """Privacy mode: in groups a bot gets commands, replies to it and mentions only."""
        if chat.is_private or not self.privacy_mode:
            return True
        if chat.members.get(self.me.id) in _ADMINS:
            return True
        if chat.members.get(self.me.id) not in _PRESENT:
            return False
        if reply_to is not None and reply_to.get("from", {}).get("id") == self.me.id:
            return True
        text = message.get("text") or message.get("caption") or ""
        command = _COMMAND_RE.match(text)
        if command:
            addressed = command.group(1)
            return not addressed or addressed[1:].lower() == (self.me.username or "").lower()
        return f"@{self.me.username}".lower() in text.lower()

    def edit_message(
        self, user: FakeUser, message: JSON | int, text: str, *, chat_id: int | None = None
    ) -> JSON:
        """The user edits their text message; the bot gets edited_message."""
        chat = self._user_chat(user, chat_id)
        target = self._message_in(chat, message)
        if target.get("from", {}).get("id") != user.id or "text" not in target:
            raise ValueError("users can edit only their own text messages")
        target["edit_history"].append({"text": target["text"], "entities": target["entities"]})
        target.update(text=text, entities=[], html=html.escape(text, quote=False))
        target["edit_date"] = int(time.time())
        target["edit_count"] += 1
        if self._bot_sees(chat, target, None):
            self.enqueue_update({"edited_message": self.api_message(target)})
        self.touch("edit", target)
        return target

    def tap(
        self,
        user: FakeUser,
        message: JSON | int,
        data: str,
        *,
        chat_id: int | None = None,
        strict: bool = False,
    ) -> str:
        """The user presses an inline button carrying `data`; returns the callback query id.

        Any data is sent by default, so tests can replay stale or forged buttons (old clients
        do); strict=True insists the message shows a button with that data right now.
        """
        user = self._register(user)
        if chat_id is None:
            chat_id = int(message["chat"]["id"]) if isinstance(message, dict) else user.id
        chat = self._chat_or_raise(chat_id)
        if not chat.is_private and chat.members.get(user.id) not in _PRESENT:
            raise ValueError(f"{user.first_name} is not a member of {chat_id}")
        target = self._message_in(chat, message)
        inline_id = target.get("inline_message_id")
        if target.get("from", {}).get("id") != self.me.id and not inline_id:
            raise ValueError("callback buttons exist only on the bot's messages")
        datas = [d for row in self.buttons(target) for _, d in row]
        if strict and data not in datas:
            raise ValueError(f"message {target['message_id']} has no button {data!r}: {datas}")
        query_id = str(4_382_000_000_000_000_000 + next(self._query_ids))
        self.callback_queries[query_id] = CallbackQueryState(
            query_id, user, chat.id, target["message_id"], data, time.monotonic(), inline_message_id=inline_id
        )
        query: JSON = {
            "id": query_id,
            "from": user.to_dict(),
            "chat_instance": str(-abs(chat.id) * 7919 - 2_000_000_000_000),
            "data": data,
        }
        if inline_id:
            # A message sent via the bot in inline mode: the bot learns only its inline id.
            query["inline_message_id"] = inline_id
        else:
            query["message"] = self.api_message(target)
        self.enqueue_update({"callback_query": query})
        return query_id

    # -- inline mode (the users' side) ---------------------------------------------------------

    def inline_query(self, user: FakeUser, query: str = "", *, chat_type: str = "sender") -> str:
        """The user types `@bot query` in a chat of `chat_type`; returns the inline query id."""
        if not self.inline_mode:
            raise ValueError("inline mode is off: Telegram sends no inline queries (/setinline)")
        if len(query) > 256:
            raise ValueError("an inline query has at most 256 characters")
        user = self._register(user)
        query_id = str(5_100_000_000_000_000_000 + next(self._query_ids))
        self.inline_queries[query_id] = InlineQueryState(
            query_id, user, query, chat_type, time.monotonic())
        self.enqueue_update({"inline_query": {
            "id": query_id, "from": user.to_dict(), "query": query, "offset": "",
            "chat_type": chat_type}})
        return query_id

    async def wait_inline_answer(self, query_id: str, timeout: float = 5.0) -> JSON:  # noqa: ASYNC109
        """The answerInlineQuery parameters for the query, once the bot answers it."""
        query = self.inline_queries[query_id]
        return await self.wait_until(lambda: query.answer, timeout)

    def choose_inline_result(self, user: FakeUser, query_id: str, result_id: str,
                             chat_id: int, *, thread_id: int | None = None) -> JSON:
        """The user picks a result: it is posted in `chat_id` (in forum topic `thread_id`)
        from the user, via the bot."""
        query = self.inline_queries.get(query_id)
        if query is None or query.answer is None:
            raise ValueError(f"inline query {query_id} has no answer to choose from")
        result = next((r for r in query.answer["results"] if r["id"] == result_id), None)
        if result is None:
            raise ValueError(f"no result {result_id!r} in the answer")
        chat = self._user_chat(user, chat_id)
        content = result["input_message_content"]
        inline_id = "AgAAA" + secrets.token_urlsafe(24)
        posted: JSON = {
            "text": content["text"], "entities": content["entities"], "html": content["html"],
            "via_bot": self.me.to_dict(), "inline_message_id": inline_id,
        }
        if thread_id is not None:
            self._topic(chat.id, thread_id)
            posted.update(message_thread_id=thread_id, is_topic_message=True)
        message = self.add_message(chat, self._register(user).to_dict(), posted,
                                   reply_markup=result.get("reply_markup"))
        self.inline_messages[inline_id] = (chat.id, int(message["message_id"]))
        self.enqueue_update({"chosen_inline_result": {
            "result_id": result_id, "from": query.user.to_dict(), "query": query.query,
            "inline_message_id": inline_id}})
        self.touch("message", message)
        return message

    def answer_of(self, query_id: str) -> JSON | None:
        query = self.callback_queries.get(query_id)
        return query.answer if query else None

    # -- updates -------------------------------------------------------------------------------

    def enqueue_update(self, update: JSON) -> JSON:
        """Queue an update (update_id added); chats and messages in it become known."""
        update = {k: v for k, v in update.items() if k != "update_id"}
        kinds = [k for k in update if k in UPDATE_TYPES]
        if len(kinds) != 1:
            raise ValueError(f"an update has exactly one of {UPDATE_TYPES}, got {list(update)}")
        self._absorb(kinds[0], update[kinds[0]])
        update = {"update_id": next(self._update_ids), **update}
        allowed = self.allowed_updates
        if kinds[0] in _OPT_IN_UPDATES if allowed is None else kinds[0] not in allowed:
            # Telegram doesn't even store updates the bot did not ask for.
            self.dropped_updates.append(update)
            return update
        self.updates.append(update)
        self.touch("update", update)
        return update

    def _absorb(self, kind: str, payload: JSON) -> None:
        """Learn the chat, sender and message of an update a test wrote by hand."""
        if not isinstance(payload, dict):
            return
        sender = payload.get("from")
        if isinstance(sender, dict) and not sender.get("is_bot") and sender.get("id", 0) > 0:
            self.users.setdefault(
                sender["id"],
                FakeUser(
                    sender["id"],
                    sender.get("first_name", "User"),
                    sender.get("language_code"),
                    sender.get("username"),
                ),
            )
        chat_info = payload.get("chat") or (payload.get("message") or {}).get("chat")
        if not isinstance(chat_info, dict) or "id" not in chat_info:
            return
        chat = self.chats.get(chat_info["id"])
        if chat is None:
            if chat_info.get("type") == "private" and chat_info["id"] in self.users:
                chat = self.private_chat(self.users[chat_info["id"]])
            else:
                chat = ChatState(dict(chat_info))
                chat.members[self.me.id] = "member"
                self.chats[chat.id] = chat
        if chat.is_private and chat.id in self.users:
            self.users[chat.id].started = True
        is_new = payload.get("message_id") not in chat.by_id
        if (
            kind in ("message", "channel_post", "business_message")
            and "message_id" in payload
            and is_new
        ):
            message = dict(payload)
            message.setdefault("edit_count", 0)
            message.setdefault("edit_history", [])
            text = message.get("text", message.get("caption", ""))
            ents = message.get("entities", message.get("caption_entities", []))
            message.setdefault("entities", ents)
            message.setdefault("html", entities_to_html(text, ents))
            message.setdefault("reply_markup", None)
            chat.messages.append(message)
            chat.by_id[message["message_id"]] = message
            chat.next_message_id = max(chat.next_message_id, message["message_id"] + 1)
        elif kind in ("my_chat_member", "chat_member"):
            new = payload.get("new_chat_member") or {}
            member_id = (new.get("user") or {}).get("id")
            status = new.get("status")
            if member_id is not None and status in _MEMBER_STATUSES:
                chat.members[member_id] = status
                if kind == "my_chat_member" and chat.is_private and chat.id in self.users:
                    self.users[chat.id].blocked = status == "kicked"

    def accepts(self, update: JSON) -> bool:
        kind = next(k for k in update if k != "update_id")
        if self.allowed_updates is None:
            return kind not in _OPT_IN_UPDATES
        return kind in self.allowed_updates

    # -- files -------------------------------------------------------------------------------

    def store_file(
        self,
        kind: str,
        data: bytes,
        *,
        file_name: str | None = None,
        mime_type: str | None = None,
        extension: str | None = None,
    ) -> StoredFile:
        number = next(self._file_numbers)
        ext = extension or (
            ("." + file_name.rsplit(".", 1)[-1]) if file_name and "." in file_name else ""
        )
        stored = StoredFile(
            file_id=_FILE_ID_PREFIX.get(kind, "CAACAgIAAxkBAAI") + secrets.token_urlsafe(40),
            file_unique_id="AgAD" + secrets.token_urlsafe(9),
            kind=kind,
            data=data,
            file_path=f"{kind}s/file_{number}{ext}",
            file_name=file_name,
            mime_type=mime_type,
        )
        self.files[stored.file_id] = stored
        self.files_by_path[stored.file_path] = stored
        return stored

    def photo_sizes(self, data: bytes, stored: StoredFile | None = None) -> list[JSON]:
        """PhotoSize objects like Telegram's (a few scaled sizes); all sizes share the bytes."""
        width, height = image_size(data) or (512, 512)
        original = stored or self.store_file("photo", data, extension=".jpg")
        sides = [s for s in _PHOTO_SIDES if s < max(width, height)] or [max(width, height)]
        if max(width, height) <= _PHOTO_SIDES[-1] and max(width, height) not in sides:
            sides.append(max(width, height))
        sizes = []
        for index, side in enumerate(sides[: len(_PHOTO_SIDES)]):
            scale = min(1.0, side / max(width, height))
            last = index == len(sides) - 1
            entry = original if last else self.alias_file(original)
            sizes.append(
                {
                    "file_id": entry.file_id,
                    "file_unique_id": entry.file_unique_id,
                    "file_size": len(data) if last else max(1, int(len(data) * scale * scale)),
                    "width": max(1, round(width * scale)),
                    "height": max(1, round(height * scale)),
                }
            )
        return sizes

    def alias_file(self, original: StoredFile) -> StoredFile:
        alias = StoredFile(
            file_id=_FILE_ID_PREFIX.get(original.kind, "CAACAgIAAxkBAAI")
            + secrets.token_urlsafe(40),
            file_unique_id="AgAD" + secrets.token_urlsafe(9),
            kind=original.kind,
            data=original.data,
            file_path=original.file_path,
            file_name=original.file_name,
            mime_type=original.mime_type,
        )
        self.files[alias.file_id] = alias
        return alias

    # -- bot commands --------------------------------------------------------------------------

    def commands(self, scope: str | JSON = "default", language_code: str = "") -> list[JSON]:
        """The commands set with setMyCommands for that scope and language ([] if none)."""
        key = scope if isinstance(scope, str) else scope_key(scope)
        return list(self.bot_commands.get((key, language_code), []))

    def menu_for(self, user: FakeUser, chat_id: int) -> list[JSON]:
        """The command menu a Telegram client shows this user in this chat.

        Telegram tries the narrowest scope first, each with the user's language, then without.
        """
        chat = self.chats.get(chat_id)
        if chat is None or chat.is_private:
            scopes = [f"chat:{chat_id}", "all_private_chats", "default"]
        else:
            admin = chat.members.get(user.id) in _ADMINS
            scopes = [f"chat_member:{chat_id}:{user.id}"]
            scopes += [f"chat_administrators:{chat_id}"] if admin else []
            scopes += [f"chat:{chat_id}"]
            scopes += ["all_chat_administrators"] if admin else []
            scopes += ["all_group_chats", "default"]
        language = (user.language_code or "").split("-")[0].lower()
        for scope in scopes:
            for code in ([language] if language else []) + [""]:
                if (scope, code) in self.bot_commands:
                    return list(self.bot_commands[(scope, code)])
        return []

    # -- waiting -------------------------------------------------------------------------------

    async def wait_until(self, predicate: Callable[[], Any], timeout: float = 5.0) -> Any:  # noqa: ASYNC109
        """Wait until predicate() (sync or async) is truthy and return its value."""
        deadline = time.monotonic() + timeout
        while True:
            value = predicate()
            if inspect.isawaitable(value):
                value = await value
            if value:
                return value
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"condition not met within {timeout} s{self._debug_tail()}")
            # State changes wake us at once; the short cap also catches outside conditions.
            await self.wait_changed(min(remaining, 0.05))

    async def wait_for_bot_messages(
        self,
        chat_id: int,
        count: int = 1,
        timeout: float = 5.0,  # noqa: ASYNC109
    ) -> list[JSON]:
        """Wait until the chat holds at least `count` bot messages; return them all."""
        try:
            return await self.wait_until(
                lambda: (sent := self.bot_messages(chat_id)) and len(sent) >= count and sent,
                timeout,
            )
        except TimeoutError:
            have = len(self.bot_messages(chat_id))
            raise TimeoutError(
                f"chat {chat_id} has {have} bot messages, expected {count} within {timeout} s"
                f"{self._debug_tail()}"
            ) from None

    async def wait_answer(self, query_id: str, timeout: float = 5.0) -> JSON:  # noqa: ASYNC109
        """The answerCallbackQuery parameters for the query, once the bot answers it."""
        if query_id not in self.callback_queries:
            raise ValueError(f"unknown callback query {query_id}")
        try:
            return await self.wait_until(lambda: self.answer_of(query_id), timeout)
        except TimeoutError:
            raise TimeoutError(
                f"callback query {query_id} not answered within {timeout} s{self._debug_tail()}"
            ) from None

    def _debug_tail(self) -> str:
        return ""


def scope_key(scope: JSON | None) -> str:
    """A BotCommandScope as a short key: "default", "chat:-100123", "chat_member:-100:42"."""
    if not scope:
        return "default"
    kind = scope.get("type", "default")
    if kind in ("chat", "chat_administrators"):
        return f"{kind}:{scope.get('chat_id')}"
    if kind == "chat_member":
        return f"chat_member:{scope.get('chat_id')}:{scope.get('user_id')}"
    return str(kind)


def _caption(caption: str | None) -> JSON:
    if caption is None:
        return {}
    return {
        "caption": caption,
        "caption_entities": [],
        "entities": [],
        "html": html.escape(caption, quote=False),
    }
