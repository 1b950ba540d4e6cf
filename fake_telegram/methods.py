"""The Bot API methods the emulator implements, with Telegram's checks and error wording.
Each handler takes the state and parsed parameters and returns the `result` or raises ApiError.
"""

from __future__ import annotations

import ipaddress
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from fake_telegram.html_entities import (
    EntityParseError,
    check_link,
    entities_to_html,
    normalize,
    parse_html,
    utf16_len,
)
from fake_telegram.images import image_size
from fake_telegram.models import JSON, ApiError, StoredFile, UploadedFile, bad_request
from fake_telegram.state import (
    UPDATE_TYPES,
    ChatState,
    TelegramState,
    Webhook,
    scope_key,
)

Handler = Callable[[TelegramState, JSON], Awaitable[Any]]
HANDLERS: dict[str, Handler] = {}

# Calls that post or change a message: what Telegram's flood limits count.
SENDS = frozenset(
    {
        "sendMessage", "sendPhoto", "sendDocument", "sendAudio", "sendVideo", "sendAnimation",
        "sendVoice", "sendVideoNote", "sendMediaGroup", "sendLocation", "sendVenue",
        "sendContact", "sendPoll", "sendDice", "sendSticker", "sendInvoice", "copyMessage",
        "copyMessages", "forwardMessage", "forwardMessages",
    }
)  # fmt: skip
EDITS = frozenset(
    {"editMessageText", "editMessageCaption", "editMessageReplyMarkup", "editMessageMedia"}
)
CHAT_ACTIONS = frozenset(
    {
        "typing", "upload_photo", "record_video", "upload_video", "record_voice",
        "upload_voice", "upload_document", "choose_sticker", "find_location",
        "record_video_note", "upload_video_note",
    }
)  # fmt: skip
TEXT_LIMIT = 4096
CAPTION_LIMIT = 1024
MAX_BUTTONS = 100
MAX_PHOTO_BYTES = 10 * 1024 * 1024
MAX_DOWNLOAD_BYTES = 20 * 1024 * 1024
NOT_MODIFIED = (
    "message is not modified: specified new message content and reply markup are exactly the "
    "same as a current content and reply markup of the message"
)
QUERY_TOO_OLD = "query is too old and response timeout expired or query ID is invalid"
_WEBHOOK_PORTS = frozenset({80, 88, 443, 8443})


@dataclass(frozen=True)
class Described:
    """A result that Telegram answers with a `description` too ("Webhook was set")."""

    result: Any
    description: str


def api_method(name: str) -> Callable[[Handler], Handler]:
    def register(handler: Handler) -> Handler:
        HANDLERS[name] = handler
        return handler

    return register


# -- chats ------------------------------------------------------------------------------------


def chat_id_of(state: TelegramState, chat_id: Any) -> int | None:
    """The numeric id a chat_id parameter names, or None if no such chat."""
    if isinstance(chat_id, int):
        return chat_id
    if isinstance(chat_id, str):
        if re.fullmatch(r"-?[0-9]+", chat_id):
            return int(chat_id)
        if chat_id.startswith("@"):
            name = chat_id[1:].lower()
            for chat in state.chats.values():
                if not chat.is_private and str(chat.chat.get("username", "")).lower() == name:
                    return chat.id
    return None


def chat_for(state: TelegramState, chat_id: Any) -> ChatState:
    """The chat, if the bot can see it."""
    number = chat_id_of(state, chat_id)
    user = state.users.get(number) if number is not None else None
    if user is not None and user.started:
        return state.private_chat(user)  # fake.user(..., started=True) had no chat yet
    chat = state.chats.get(number) if number is not None else None
    if chat is None or (chat.is_private and not _started(state, chat.id)):
        raise bad_request("chat not found")
    return chat


def _started(state: TelegramState, user_id: int) -> bool:
    user = state.users.get(user_id)
    return user is None or user.started


def chat_for_send(state: TelegramState, chat_id: Any) -> ChatState:
    """The chat, if the bot may post there (not blocked, still a member)."""
    number = chat_id_of(state, chat_id)
    if number is not None and number in state.users and not _started(state, number):
        raise ApiError(403, "Forbidden: bot can't initiate conversation with a user")
    chat = chat_for(state, chat_id)
    if chat.is_private:
        user = state.users.get(chat.id)
        if user is not None and user.deactivated:
            raise ApiError(403, "Forbidden: user is deactivated")
        if user is not None and user.blocked:
            raise ApiError(403, "Forbidden: bot was blocked by the user")
        return chat
    kind = {"supergroup": "supergroup chat", "channel": "channel chat"}.get(
        chat.chat["type"], "group chat"
    )
    status = chat.members.get(state.me.id, "left")
    if status == "kicked":
        raise ApiError(403, f"Forbidden: bot was kicked from the {kind}")
    if status == "left":
        raise ApiError(403, f"Forbidden: bot is not a member of the {kind}")
    return chat


def _bot_is_admin(state: TelegramState, chat: ChatState) -> bool:
    return chat.members.get(state.me.id) in ("creator", "administrator")


# -- content ----------------------------------------------------------------------------------


def text_content(
    state: TelegramState,
    text: str,
    parse_mode: str | None,
    entities: list[JSON] | None,
    *,
    caption: bool = False,
) -> tuple[str, list[JSON], str]:
    """(plain text, entities, html) as Telegram would store them; checks the length limits."""
    if entities:
        # Explicit entities win over parse_mode, as in Telegram.
        plain, parsed = normalize(text, entities)
    elif parse_mode:
        mode = parse_mode.lower()
        if mode == "html":
            try:
                plain, parsed = parse_html(
                    text, strict_ampersand=state.strict_ampersand, resolve_user=state.resolve_user
                )
            except EntityParseError as err:
                raise bad_request(f"can't parse entities: {err}") from None
        elif mode in ("markdown", "markdownv2"):
            state.unimplemented[f"parse_mode {parse_mode}"] += 1
            plain, parsed = normalize(text, [])
        else:
            raise bad_request("unsupported parse_mode")
    else:
        plain, parsed = normalize(text, [])
    if caption:
        if utf16_len(plain) > CAPTION_LIMIT:
            raise bad_request("message caption is too long")
    else:
        if not plain:
            raise bad_request("message text is empty")
        if utf16_len(plain) > TEXT_LIMIT:
            raise bad_request("message is too long")
    html = text if parse_mode and parse_mode.lower() == "html" and not entities else None
    return plain, parsed, html if html is not None else entities_to_html(plain, parsed)


def caption_content(state: TelegramState, p: JSON) -> JSON:
    if "caption" not in p:
        return {}
    plain, entities, html = text_content(
        state, p["caption"], p.get("parse_mode"), p.get("caption_entities"), caption=True
    )
    if not plain:
        return {}
    return {"caption": plain, "caption_entities": entities, "entities": entities, "html": html}


def check_reply_markup(markup: Any) -> JSON | None:
    """Telegram's limits on keyboards beyond the spec's shapes."""
    if markup is None:
        return None
    if not isinstance(markup, dict):
        raise bad_request("can't parse reply keyboard markup JSON object")
    if "inline_keyboard" in markup:
        rows = markup["inline_keyboard"]
        if not isinstance(rows, list) or not all(isinstance(r, list) for r in rows):
            raise bad_request(
                'field "inline_keyboard" of the InlineKeyboardMarkup should be an Array of Arrays'
            )
        if sum(len(row) for row in rows) > MAX_BUTTONS:
            raise bad_request("reply markup is too long")
        for row in rows:
            for button in row:
                _check_inline_button(button)
    elif "keyboard" in markup:
        rows = markup["keyboard"]
        if not isinstance(rows, list) or not all(isinstance(r, list) for r in rows):
            raise bad_request(
                'field "keyboard" of the ReplyKeyboardMarkup should be an Array of Arrays'
            )
        for row in rows:
            for button in row:
                text = button if isinstance(button, str) else (button or {}).get("text")
                if not isinstance(text, str) or not text.strip():
                    raise bad_request("keyboard button text must be non-empty")
    return markup


def _check_inline_button(button: Any) -> None:
    if not isinstance(button, dict):
        raise bad_request("can't parse inline keyboard button: Object expected")
    text = button.get("text")
    if not isinstance(text, str):
        raise bad_request("can't parse inline keyboard button: Can't find field \"text\"")
    if not text.strip():
        raise bad_request("BUTTON_TEXT_INVALID")
    kinds = [k for k in button if k not in ("text", "icon_custom_emoji_id", "style")]
    if not kinds:
        raise bad_request("text buttons are unallowed in the inline keyboard")
    if len(kinds) > 1:
        raise bad_request(
            "can't parse inline keyboard button: exactly one of the fields "
            f"{', '.join(sorted(kinds))} must be used"
        )
    if "callback_data" in button:
        data = button["callback_data"]
        if not isinstance(data, str) or not 1 <= len(data.encode("utf-8")) <= 64:
            raise bad_request("BUTTON_DATA_INVALID")
    if "url" in button and check_link(str(button["url"])) is None:
        raise bad_request("BUTTON_URL_INVALID")


def _inline(markup: JSON | None) -> JSON | None:
    return markup if isinstance(markup, dict) and "inline_keyboard" in markup else None


def _same_entities(a: list[JSON] | None, b: list[JSON] | None) -> bool:
    def canonical(entities: list[JSON] | None) -> list[tuple[tuple[str, str], ...]]:
        return sorted(tuple(sorted((k, repr(v)) for k, v in e.items())) for e in entities or [])

    return canonical(a) == canonical(b)


def reply_target(state: TelegramState, chat: ChatState, params: JSON | None) -> JSON | None:
    if not params:
        return None
    source = chat if "chat_id" not in params else chat_for(state, params["chat_id"])
    target = source.live(int(params["message_id"]))
    if target is None and not params.get("allow_sending_without_reply"):
        raise bad_request("message to be replied not found")
    return target


def _file_from_id(state: TelegramState, value: str, kind: str) -> StoredFile:
    stored = state.files.get(value)
    if stored is None:
        raise bad_request("wrong file identifier/HTTP URL specified")
    if stored.kind != kind:
        raise bad_request(f"can't use file of type {stored.kind.title()} as {kind.title()}")
    return stored


def _is_url(value: str) -> bool:
    return value.startswith(("http://", "https://"))


def _thread(chat: ChatState, p: JSON, reply: JSON | None) -> int | None:
    """The forum topic a message goes to: the one named, else the replied-to message's."""
    thread_id = p.get("message_thread_id")
    if thread_id is None:
        return reply.get("message_thread_id") if reply and chat.is_forum else None
    topic = chat.topics.get(int(thread_id)) if chat.is_forum else None
    if topic is None or topic["deleted"]:
        # Also what a chat without topics answers: a thread id belongs to forums only.
        raise bad_request("message thread not found")
    if topic["closed"]:
        raise bad_request("TOPIC_CLOSED")
    return int(thread_id)


def _post(
    state: TelegramState, chat: ChatState, p: JSON, content: JSON, markup: JSON | None
) -> JSON:
    reply = reply_target(state, chat, p.get("reply_parameters"))
    thread_id = _thread(chat, p, reply)
    if thread_id is not None:
        content = {**content, "message_thread_id": thread_id, "is_topic_message": True}
    message = state.add_message(
        chat, state.me.to_dict(), content, reply_markup=markup, reply_to=reply
    )
    state.touch("bot_message", message)
    return state.api_message(message)


# -- bot and updates ---------------------------------------------------------------------------


@api_method("getMe")
async def get_me(state: TelegramState, p: JSON) -> JSON:
    return state.bot_user()


@api_method("getUpdates")
async def get_updates(state: TelegramState, p: JSON) -> list[JSON]:
    if state.webhook is not None:
        raise _webhook_conflict()
    offset = p.get("offset")
    if offset:
        if offset > 0:
            state.updates = [u for u in state.updates if u["update_id"] >= offset]
        else:
            # A negative offset keeps only the last -offset updates and forgets the rest.
            state.updates = state.updates[offset:]
    limit = min(max(int(p.get("limit", 100)), 1), 100)
    if "allowed_updates" in p:
        state.allowed_updates = _allowed(p["allowed_updates"])
    state.poll_generation += 1
    generation = state.poll_generation
    deadline = time.monotonic() + max(int(p.get("timeout", 0)), 0)
    while not state.updates and not state.closing:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            break
        await state.wait_changed(remaining)
        if state.poll_generation != generation:
            raise ApiError(
                409,
                "Conflict: terminated by other getUpdates request; make sure that only one bot "
                "instance is running",
            )
        if state.webhook is not None:
            raise _webhook_conflict()
    return list(state.updates[:limit])


def _webhook_conflict() -> ApiError:
    return ApiError(
        409,
        "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to "
        "delete the webhook first",
    )


def _allowed(values: list[str]) -> frozenset[str] | None:
    # An empty list means "the default set"; names Telegram doesn't know are ignored.
    chosen = frozenset(v for v in values if v in UPDATE_TYPES)
    return chosen or None


@api_method("setWebhook")
async def set_webhook(state: TelegramState, p: JSON) -> Described:
    url = p["url"].strip()
    if not url:
        return await delete_webhook(state, p)
    _check_webhook_url(state, url)
    secret = p.get("secret_token")
    if secret is not None and not re.fullmatch(r"[A-Za-z0-9_-]{1,256}", secret):
        raise bad_request("secret token contains unallowed characters")
    max_connections = p.get("max_connections", 40)
    if not 1 <= max_connections <= 100:
        raise bad_request("bad webhook: max_connections must be between 1 and 100")
    if p.get("drop_pending_updates"):
        state.updates.clear()
    if "allowed_updates" in p:
        state.allowed_updates = _allowed(p["allowed_updates"])
    state.webhook = Webhook(
        url,
        secret_token=secret,
        max_connections=max_connections,
        ip_address=p.get("ip_address"),
        has_custom_certificate="certificate" in p,
    )
    state.webhook_changed()
    state.touch("webhook", {"url": url})
    return Described(True, "Webhook was set")


def _check_webhook_url(state: TelegramState, url: str) -> None:
    parts = urlsplit(url)
    host = parts.hostname or ""
    try:
        loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    # Emulator leniency: plain HTTP on any port is fine for a webhook on this machine.
    if loopback and state.allow_local_webhooks and parts.scheme in ("http", "https"):
        return
    if parts.scheme != "https" or not host:
        raise bad_request("bad webhook: An HTTPS URL must be provided for webhook")
    if (parts.port or 443) not in _WEBHOOK_PORTS:
        raise bad_request("bad webhook: Webhook can be set up only on ports 80, 88, 443 or 8443")


@api_method("deleteWebhook")
async def delete_webhook(state: TelegramState, p: JSON) -> Described:
    had = state.webhook is not None
    state.webhook = None
    if p.get("drop_pending_updates"):
        state.updates.clear()
    state.webhook_changed()
    state.touch("webhook", {"url": ""})
    return Described(True, "Webhook was deleted" if had else "Webhook is already deleted")


@api_method("getWebhookInfo")
async def get_webhook_info(state: TelegramState, p: JSON) -> JSON:
    hook = state.webhook
    info: JSON = {
        "url": hook.url if hook else "",
        "has_custom_certificate": bool(hook and hook.has_custom_certificate),
        "pending_update_count": len(state.updates),
    }
    if hook:
        info["max_connections"] = hook.max_connections
        if hook.ip_address:
            info["ip_address"] = hook.ip_address
        if hook.last_error_date:
            info["last_error_date"] = hook.last_error_date
            info["last_error_message"] = hook.last_error_message
        if state.allowed_updates is not None:
            info["allowed_updates"] = sorted(state.allowed_updates)
    return info


@api_method("close")
async def close(state: TelegramState, p: JSON) -> bool:
    return True


@api_method("logOut")
async def log_out(state: TelegramState, p: JSON) -> bool:
    return True


# -- messages ----------------------------------------------------------------------------------


@api_method("sendMessage")
async def send_message(state: TelegramState, p: JSON) -> JSON:
    chat = chat_for_send(state, p["chat_id"])
    text, entities, html = text_content(state, p["text"], p.get("parse_mode"), p.get("entities"))
    markup = check_reply_markup(p.get("reply_markup"))
    content = {"text": text, "entities": entities, "html": html}
    if p.get("link_preview_options"):
        content["link_preview_options"] = p["link_preview_options"]
    return _post(state, chat, p, content, markup)


@api_method("sendPhoto")
async def send_photo(state: TelegramState, p: JSON) -> JSON:
    chat = chat_for_send(state, p["chat_id"])
    content = caption_content(state, p)
    markup = check_reply_markup(p.get("reply_markup"))
    photo = p["photo"]
    if isinstance(photo, UploadedFile):
        if len(photo.data) > MAX_PHOTO_BYTES:
            raise bad_request("file is too big")
        if image_size(photo.data) is None:
            raise bad_request("IMAGE_PROCESS_FAILED")
        sizes = state.photo_sizes(photo.data)
    elif _is_url(photo):
        state.unimplemented["sendPhoto by URL"] += 1
        sizes = state.photo_sizes(b"")
    else:
        stored = _file_from_id(state, photo, "photo")
        sizes = state.photo_sizes(stored.data, stored)
    if p.get("has_spoiler"):
        content["has_media_spoiler"] = True
    return _post(state, chat, p, {"photo": sizes, **content}, markup)


@api_method("sendDocument")
async def send_document(state: TelegramState, p: JSON) -> JSON:
    chat = chat_for_send(state, p["chat_id"])
    content = caption_content(state, p)
    markup = check_reply_markup(p.get("reply_markup"))
    document = p["document"]
    if isinstance(document, UploadedFile):
        if not document.data:
            raise bad_request("file must be non-empty")
        name = document.filename or "document"
        mime = document.content_type or "application/octet-stream"
        stored = state.store_file("document", document.data, file_name=name, mime_type=mime)
    elif _is_url(document):
        state.unimplemented["sendDocument by URL"] += 1
        stored = state.store_file("document", b"", file_name=document.rsplit("/", 1)[-1])
    else:
        stored = _file_from_id(state, document, "document")
    info: JSON = {"file_id": stored.file_id, "file_unique_id": stored.file_unique_id}
    if stored.file_name:
        info["file_name"] = stored.file_name
    if stored.mime_type:
        info["mime_type"] = stored.mime_type
    info["file_size"] = len(stored.data)
    return _post(state, chat, p, {"document": info, **content}, markup)


def editable(state: TelegramState, p: JSON) -> tuple[ChatState, JSON]:
    if "inline_message_id" in p:
        where = state.inline_messages.get(str(p["inline_message_id"]))
        message = state.chats[where[0]].live(where[1]) if where else None
        if where is None or message is None:
            raise bad_request("MESSAGE_ID_INVALID")
        return state.chats[where[0]], message
    if "chat_id" not in p:
        raise bad_request("chat_id is empty")
    if "message_id" not in p:
        raise bad_request("message identifier is not specified")
    chat = chat_for(state, p["chat_id"])
    message = chat.live(int(p["message_id"]))
    if message is None:
        raise bad_request("message to edit not found")
    if message.get("from", {}).get("id") != state.me.id:
        raise bad_request("message can't be edited")
    return chat, message


def apply_edit(
    state: TelegramState, message: JSON, content: JSON, markup: JSON | None
) -> JSON | bool:
    """Edit in place, keeping the previous version in edit_history. An inline message's edit
    returns True: the bot never sees such a message."""
    keys = ("text", "caption", "entities", "caption_entities", "html", "reply_markup", "edit_date")
    message["edit_history"].append({k: message[k] for k in keys if k in message})
    message.update(content)
    message["reply_markup"] = markup
    message["edit_date"] = int(time.time())
    message["edit_count"] += 1
    state.touch("edit", message)
    if message.get("inline_message_id"):
        return True
    return state.api_message(message)


@api_method("editMessageText")
async def edit_message_text(state: TelegramState, p: JSON) -> JSON | bool:
    _, message = editable(state, p)
    if "text" not in message:
        raise bad_request("there is no text in the message to edit")
    if "text" not in p:
        raise bad_request("message text is empty")
    text, entities, html = text_content(state, p["text"], p.get("parse_mode"), p.get("entities"))
    markup = check_reply_markup(p.get("reply_markup"))
    if (
        text == message["text"]
        and _same_entities(entities, message.get("entities"))
        and markup == _inline(message.get("reply_markup"))
    ):
        raise bad_request(NOT_MODIFIED)
    return apply_edit(state, message, {"text": text, "entities": entities, "html": html}, markup)


@api_method("editMessageCaption")
async def edit_message_caption(state: TelegramState, p: JSON) -> JSON | bool:
    _, message = editable(state, p)
    if "text" in message:
        raise bad_request("there is no caption in the message to edit")
    content = caption_content(state, p)
    markup = check_reply_markup(p.get("reply_markup"))
    new_caption = content.get("caption")
    if (
        new_caption == message.get("caption")
        and _same_entities(content.get("caption_entities"), message.get("caption_entities"))
        and markup == _inline(message.get("reply_markup"))
    ):
        raise bad_request(NOT_MODIFIED)
    content = content or {"caption": None, "caption_entities": None, "entities": [], "html": ""}
    return apply_edit(state, message, content, markup)


@api_method("editMessageReplyMarkup")
async def edit_message_reply_markup(state: TelegramState, p: JSON) -> JSON | bool:
    _, message = editable(state, p)
    markup = check_reply_markup(p.get("reply_markup"))
    if markup == _inline(message.get("reply_markup")):
        raise bad_request(NOT_MODIFIED)
    return apply_edit(state, message, {}, markup)


@api_method("deleteMessage")
async def delete_message(state: TelegramState, p: JSON) -> bool:
    chat = chat_for(state, p["chat_id"])
    message = chat.live(int(p["message_id"]))
    if message is None:
        raise bad_request("message to delete not found")
    _delete(state, chat, message)
    return True


@api_method("deleteMessages")
async def delete_messages(state: TelegramState, p: JSON) -> bool:
    chat = chat_for(state, p["chat_id"])
    ids = p["message_ids"]
    if not 1 <= len(ids) <= 100:
        raise bad_request(
            "too many messages to delete" if ids else "message identifiers are empty"
        )
    for message_id in ids:
        message = chat.live(int(message_id))
        if message is not None:  # Telegram skips the ones it can't find
            _delete(state, chat, message)
    return True


def _delete(state: TelegramState, chat: ChatState, message: JSON) -> None:
    own = message.get("from", {}).get("id") == state.me.id
    if not own and not chat.is_private and not _bot_is_admin(state, chat):
        raise bad_request("message can't be deleted")
    message["deleted"] = True
    state.touch("delete", message)


@api_method("sendChatAction")
async def send_chat_action(state: TelegramState, p: JSON) -> bool:
    chat = chat_for_send(state, p["chat_id"])
    if p["action"] not in CHAT_ACTIONS:
        raise bad_request("wrong parameter action in request")
    chat.actions.append((time.monotonic(), p["action"]))
    state.touch("action", {"chat_id": chat.id, "action": p["action"]})
    return True


@api_method("answerCallbackQuery")
async def answer_callback_query(state: TelegramState, p: JSON) -> bool:
    query = state.callback_queries.get(p["callback_query_id"])
    now = time.monotonic()
    if (
        query is None
        or query.answer is not None
        or now - query.tapped_at > state.callback_query_ttl
    ):
        raise bad_request(QUERY_TOO_OLD)
    if utf16_len(p.get("text", "")) > 200:
        raise bad_request("MESSAGE_TOO_LONG")
    query.answer = dict(p)
    query.latency = now - query.tapped_at
    state.stats.callback_latency[query.id] = query.latency
    state.touch("answer", {"query_id": query.id, **p})
    return True


@api_method("answerInlineQuery")
async def answer_inline_query(state: TelegramState, p: JSON) -> bool:
    query = state.inline_queries.get(p["inline_query_id"])
    now = time.monotonic()
    if query is None or query.answer is not None or now - query.asked_at > state.inline_query_ttl:
        raise bad_request(QUERY_TOO_OLD)
    results = p["results"]
    if len(results) > 50:
        raise bad_request("RESULTS_TOO_MUCH")
    seen: set[str] = set()
    stored = []
    for result in results:
        if result.get("type") != "article":
            state.unimplemented[f"inline result {result.get('type')}"] += 1
            raise bad_request("RESULT_TYPE_INVALID")
        result_id = str(result.get("id", ""))
        if not 1 <= len(result_id.encode()) <= 64:
            raise bad_request("RESULT_ID_INVALID")
        if result_id in seen:
            raise bad_request("RESULT_ID_DUPLICATE")
        seen.add(result_id)
        if not str(result.get("title", "")).strip():
            raise bad_request("RESULT_TITLE_EMPTY")
        content = result.get("input_message_content") or {}
        if "message_text" not in content:
            state.unimplemented["inline result without message_text"] += 1
            raise bad_request("MESSAGE_EMPTY")
        text, entities, html = text_content(
            state, content["message_text"], content.get("parse_mode"), content.get("entities"))
        stored.append({**result, "input_message_content": {
            "text": text, "entities": entities, "html": html},
            "reply_markup": check_reply_markup(result.get("reply_markup"))})
    query.answer = {**p, "results": stored}
    query.latency = now - query.asked_at
    state.touch("inline_answer", {"query_id": query.id})
    return True


# -- chats and members -------------------------------------------------------------------------


@api_method("getChat")
async def get_chat(state: TelegramState, p: JSON) -> JSON:
    chat = chat_for(state, p["chat_id"])
    info: JSON = {
        **chat.chat,
        "accent_color_id": 0,
        "max_reaction_count": 11,
        "accepted_gift_types": {
            "unlimited_gifts": True,
            "limited_gifts": True,
            "unique_gifts": True,
            "premium_subscription": True,
            "gifts_from_channels": True,
        },
    }
    if not chat.is_private:
        info["permissions"] = {"can_send_messages": True}
    return info


@api_method("getChatMember")
async def get_chat_member(state: TelegramState, p: JSON) -> JSON:
    chat = chat_for(state, p["chat_id"])
    user_id = p["user_id"]
    known = user_id == state.me.id or user_id in state.users
    if chat.is_private:
        if user_id not in (chat.id, state.me.id):
            raise bad_request("user not found")
        return state.member_object(chat, user_id, "member")
    status = chat.members.get(user_id)
    if status is None:
        if not known:
            raise bad_request("user not found")
        status = "left"
    return state.member_object(chat, user_id, status)


@api_method("getChatAdministrators")
async def get_chat_administrators(state: TelegramState, p: JSON) -> list[JSON]:
    chat = chat_for(state, p["chat_id"])
    if chat.is_private:
        raise bad_request("there are no administrators in the private chat")
    return [
        state.member_object(chat, user_id, status)
        for user_id, status in chat.members.items()
        if status in ("creator", "administrator")
    ]


@api_method("getChatMemberCount")
async def get_chat_member_count(state: TelegramState, p: JSON) -> int:
    chat = chat_for(state, p["chat_id"])
    present = ("creator", "administrator", "member", "restricted")
    return sum(1 for status in chat.members.values() if status in present)


# -- files -------------------------------------------------------------------------------------


@api_method("getFile")
async def get_file(state: TelegramState, p: JSON) -> JSON:
    stored = state.files.get(p["file_id"])
    if stored is None:
        raise bad_request("wrong file_id or the file is temporarily unavailable")
    if len(stored.data) > MAX_DOWNLOAD_BYTES:
        raise bad_request("file is too big")
    return {**stored.as_file(), "file_id": p["file_id"]}


# -- commands and profile ----------------------------------------------------------------------


def _command_key(state: TelegramState, p: JSON) -> tuple[str, str]:
    scope = p.get("scope") or {"type": "default"}
    if "chat_id" in scope:
        chat_for(state, scope["chat_id"])
        scope = {**scope, "chat_id": chat_id_of(state, scope["chat_id"])}
    language = p.get("language_code", "")
    if language and not re.fullmatch(r"[a-z]{2}", language):
        raise bad_request("invalid language code specified")
    return scope_key(scope), language


@api_method("setMyCommands")
async def set_my_commands(state: TelegramState, p: JSON) -> bool:
    commands = p["commands"]
    if len(commands) > 100:
        raise bad_request("BOT_COMMANDS_TOO_MUCH")
    for command in commands:
        if not re.fullmatch(r"[a-z0-9_]{1,32}", command["command"]):
            raise bad_request("BOT_COMMAND_INVALID")
        if not 1 <= len(command["description"].strip()) <= 256:
            raise bad_request("BOT_COMMAND_DESCRIPTION_INVALID")
    key = _command_key(state, p)
    if commands:
        state.bot_commands[key] = [
            {"command": c["command"], "description": c["description"]} for c in commands
        ]
    else:
        state.bot_commands.pop(key, None)
    state.touch("commands", {"scope": key[0], "language_code": key[1]})
    return True


@api_method("getMyCommands")
async def get_my_commands(state: TelegramState, p: JSON) -> list[JSON]:
    return list(state.bot_commands.get(_command_key(state, p), []))


@api_method("deleteMyCommands")
async def delete_my_commands(state: TelegramState, p: JSON) -> bool:
    state.bot_commands.pop(_command_key(state, p), None)
    state.touch("commands", {})
    return True


def _profile_text(
    kind: str, limit: int
) -> tuple[Callable[[TelegramState, JSON], Awaitable[bool]], Handler]:
    async def setter(state: TelegramState, p: JSON) -> bool:
        language = p.get("language_code", "")
        if language and not re.fullmatch(r"[a-z]{2}", language):
            raise bad_request("invalid language code specified")
        value = p.get(kind, "")
        if len(value) > limit:
            raise bad_request(f"{kind.replace('_', ' ')} is too long")
        state.bot_texts[(kind, language)] = value
        return True

    async def getter(state: TelegramState, p: JSON) -> JSON:
        language = p.get("language_code", "")
        value = state.bot_texts.get((kind, language), state.bot_texts.get((kind, ""), ""))
        if kind == "name" and not value:
            value = state.me.first_name
        return {kind: value}

    return setter, getter


for _kind, _limit, _set, _get in (
    ("description", 512, "setMyDescription", "getMyDescription"),
    ("short_description", 120, "setMyShortDescription", "getMyShortDescription"),
    ("name", 64, "setMyName", "getMyName"),
):
    HANDLERS[_set], HANDLERS[_get] = _profile_text(_kind, _limit)
