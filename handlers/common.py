"""Small pieces every handler uses: the current user and language, safe replies and edits."""

from __future__ import annotations

import json
import logging

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

from bot.context import CoachContext
from storage.keyboards import remember_owner

log = logging.getLogger(__name__)


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


def chunk(items: list, size: int) -> list[list]:
    return [items[i : i + size] for i in range(0, len(items), size)]


async def reply(update: Update, text: str, markup: InlineKeyboardMarkup | None = None) -> Message | None:
    """Reply in the chat the update came from (for commands and callback queries alike)."""
    chat = update.effective_chat
    if chat is None:
        return None
    return await chat.send_message(text, reply_markup=markup)


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
    current = message.text_html if message.text else None
    if current == text and message.reply_markup == markup:
        return False
    content = json.dumps([text, markup.to_dict() if markup else None], sort_keys=True)
    if not context.recent_edits.remember((message.chat_id, message.message_id), content):
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


def first_tap(context: CoachContext, query: CallbackQuery | None) -> bool:
    """False for a repeat tap on the same button of the same message (a double tap acts once).

    Remembered in memory only: after a restart a repeat acts again, which buttons built on
    this tolerate (they send one more message, never store anything twice).
    """
    if query is None or query.message is None:
        return True
    key = (query.message.chat.id, query.message.message_id, query.data)
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
