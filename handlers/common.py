"""Small pieces every handler uses: the current user and language, safe replies and edits."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from telegram import (
    CallbackQuery,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    MaybeInaccessibleMessage,
    Message,
    Update,
)
from telegram.constants import ChatType
from telegram.error import BadRequest, Forbidden, TelegramError
from telegram.ext import filters

from bot.context import CoachContext
from bot.forum import topic_of
from questions.markup import plain_length
from questions.render import MESSAGE_LIMIT
from storage import coordination
from storage.keyboards import remember_owner

log = logging.getLogger(__name__)

# Every command and message handler is limited to new messages: PTB's default also matches
# edited ones, and editing an old message into `/round 1 30` must not start a round.
NEW_MESSAGES = filters.UpdateType.MESSAGE


def actor_id(update: Update) -> int | None:
    """Who acts in an update: the chat a message was posted as (a channel, or an anonymous
    admin's group) when there is one, else the user. Telegram sends every channel's posts from
    one shared account, so its user id would lump all of them together."""
    message = update.message
    if message is not None and message.sender_chat is not None:
        return message.sender_chat.id
    return update.effective_user.id if update.effective_user else None


def actor_name(update: Update) -> str:
    message = update.message
    if message is not None and message.sender_chat is not None:
        return message.sender_chat.title or message.sender_chat.username or ""
    return update.effective_user.first_name if update.effective_user else ""


def keyboard(rows: list[list[tuple[str, str]]]) -> InlineKeyboardMarkup:
    """An inline keyboard from rows of (label, callback data)."""
    return InlineKeyboardMarkup(
        [[InlineKeyboardButton(text, callback_data=data) for text, data in row] for row in rows])


# Room for a list of keys inside a usage line (the rest of the line is a sentence and one name).
LIST_CHARS = 1500


def fit(head: str, lines: Sequence[str], more: Callable[[int], str], *,
        limit: int = MESSAGE_LIMIT) -> str:
    """`head` and as many `lines` as fit in `limit` characters (one message), then
    `more(number left out)`."""
    def build(shown: int) -> str:
        parts = [head, *lines[:shown]]
        if shown < len(lines):
            parts.append(more(len(lines) - shown))
        return "\n".join(parts)

    if plain_length(build(len(lines))) <= limit:
        return build(len(lines))
    fits, too_many = 0, len(lines)  # binary search for the most lines that fit
    while too_many - fits > 1:
        middle = (fits + too_many) // 2
        if plain_length(build(middle)) <= limit:
            fits = middle
        else:
            too_many = middle
    return build(fits)


def listing(items: Sequence[str], *, limit: int = LIST_CHARS) -> str:
    """`a, b, c` cut to about `limit` characters with `… +N`: a list of keys (fields, topics)
    inside one message, however large the bank."""
    shown: list[str] = []
    size = 0
    for item in items:
        size += len(item) + 2
        if size > limit:
            break
        shown.append(item)
    left_out = len(items) - len(shown)
    return ", ".join(shown) + (f", … +{left_out}" if left_out else "")


def chunk(items: list, size: int) -> list[list]:
    return [items[i : i + size] for i in range(0, len(items), size)]


# Telegram cuts a label that does not fit its half of a phone-wide row ("QA / Test Autom…").
LONG_LABEL_CHARS = 16


def button_rows(buttons: list[tuple[str, str]], size: int = 2) -> list[list[tuple[str, str]]]:
    """Buttons `size` to a row, except that a long label gets a row of its own."""
    rows: list[list[tuple[str, str]]] = []
    row: list[tuple[str, str]] = []
    for button in buttons:
        if len(button[0]) > LONG_LABEL_CHARS:
            if row:
                rows.append(row)
                row = []
            rows.append([button])
            continue
        row.append(button)
        if len(row) == size:
            rows.append(row)
            row = []
    if row:
        rows.append(row)
    return rows


async def reply(update: Update, text: str, markup: InlineKeyboardMarkup | None = None) -> Message | None:
    """Reply in the chat the update came from (for commands and callback queries alike), in
    the forum topic it came from."""
    chat = update.effective_chat
    if chat is None:
        return None
    return await chat.send_message(text, reply_markup=markup,
                                   message_thread_id=topic_of(update.effective_message))


async def own_keyboard(context: CoachContext, message: Message | None) -> Message | None:
    """Mark a keyboard the bot just showed in a group as the current member's: only they may
    press it (handlers/keyboard_owners.py turns everyone else away). Private chats need nothing."""
    if message is not None and message.chat.type != ChatType.PRIVATE and context.has_user:
        await remember_owner(context.services.db, chat_id=message.chat_id,
                             message_id=message.message_id, user_id=context.user.user_id,
                             now=int(context.services.now().timestamp()))
    return message


async def edit_or_ignore(context: CoachContext, message: MaybeInaccessibleMessage | None, text: str,
                         markup: InlineKeyboardMarkup | None = None) -> bool:
    """Edit a message unless it already shows exactly this (Telegram refuses identical edits).

    A tap carries a snapshot of the message from when it was tapped, so two quick taps would
    both edit to the same content; what the bot last wrote into each message is remembered per
    Application (`context.recent_edits`), since the bot is the only editor of its messages.
    """
    if not isinstance(message, Message):  # gone, or too old for the bot to see (date 0)
        return False
    buttons = keyboard_content(markup)
    # The buttons first: comparing them is cheap, re-rendering the shown text as HTML is not,
    # and most edits change the keyboard.
    if buttons == keyboard_content(message.reply_markup) and message.text \
            and message.text_html == text:
        return False
    if not context.recent_edits.remember((message.chat_id, message.message_id), (text, buttons)):
        return False
    try:
        await message.edit_text(text, reply_markup=markup)
        return True
    except BadRequest as exc:
        # Deleted, too old to edit, or raced with another edit: the flow goes on without it.
        log.info("edit skipped: %s", exc.message)
        return False
    except Forbidden:
        return False


def keyboard_content(markup: InlineKeyboardMarkup | None) -> tuple:
    """What a keyboard shows and does, comparable and hashable (for `edit_or_ignore`)."""
    if markup is None:
        return ()
    return tuple(tuple((b.text, b.callback_data, b.url, b.switch_inline_query,
                        b.switch_inline_query_current_chat,
                        b.copy_text.text if b.copy_text else None) for b in row)
                 for row in markup.inline_keyboard)


async def first_tap(context: CoachContext, query: CallbackQuery | None) -> bool:
    """False for a repeat tap on the same button of the same message (a double tap acts once).

    One process (SQLite) remembers it in memory: after a restart a repeat acts again, which
    buttons built on this tolerate (they send one more message, never store anything twice).
    Several instances on one database remember it there, since the two taps of a double tap
    may reach different instances.
    """
    if query is None or query.message is None:
        return True
    key = (query.message.chat.id, query.message.message_id, query.data)
    services = context.services
    if services.db.shared:
        return await coordination.first_handling(
            services.db, chat_id=key[0], message_id=key[1], data=key[2] or "",
            now=int(services.now().timestamp()))
    handled = context.handled_buttons
    if key in handled:
        return False
    if len(handled) >= 10_000:
        handled.clear()
    handled.add(key)
    return True


async def remove_buttons(message: MaybeInaccessibleMessage | None) -> None:
    """Take the keyboard off a message the user moved on from (quietly, if it is gone)."""
    if not isinstance(message, Message) or message.reply_markup is None:
        return
    try:
        await message.edit_reply_markup(None)
    except TelegramError as exc:  # a stale message must not stop what comes next
        log.info("could not remove buttons: %s", exc)
