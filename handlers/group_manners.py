"""Personal things stay private: /stats, /review, /jd and the other personal commands sent in a
group are answered in the member's private chat, never in the group. When the bot may not write
to the member first (they never started it), the group gets one short line with a button that
opens the private chat on that command (a deep link)."""

from __future__ import annotations

import logging
import re

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.error import BadRequest, Forbidden
from telegram.ext import Application, CommandHandler, filters

from bot.context import CoachContext
from handlers.common import NEW_MESSAGES, reply

log = logging.getLogger(__name__)
COMMANDS: tuple[str, ...] = ()

# Commands whose answer is about one member: never posted in a group.
PERSONAL = ("stats", "topics", "review", "mistakes", "interview", "deleteme", "remind",
            "timezone", "jd", "plan", "share")
_COMMAND = re.compile(r"^/([A-Za-z0-9_]+)")


def command_of(text: str | None) -> str:
    match = _COMMAND.match(text or "")
    return match.group(1).lower() if match else ""


def private_copy(update: Update, text: str | None = None) -> Update:
    """The same command as if the member had sent it in their private chat with the bot."""
    data = update.to_dict()
    message = data["message"]
    sender = message["from"]
    message["chat"] = {"id": sender["id"], "type": "private",
                       "first_name": sender.get("first_name", "")}
    for key in ("message_thread_id", "is_topic_message", "reply_to_message", "sender_chat",
                "is_automatic_forward", "quote"):
        message.pop(key, None)
    if text is not None:
        message["text"] = text
        message["entities"] = [{"type": "bot_command", "offset": 0,
                                "length": len(text.split()[0])}]
    return Update.de_json(data, update.get_bot())


async def run_command(update: Update, context: CoachContext, command: str) -> None:
    """Handle `/command` in this private chat as if the user had typed it."""
    await context.application.process_update(private_copy(update, f"/{command}"))


async def personal_in_group(update: Update, context: CoachContext) -> None:
    message = update.effective_message
    tg_user = update.effective_user
    command = command_of(message.text if message else None)
    chat = update.effective_chat
    if message is None or chat is None or command not in PERSONAL:
        return
    # Only someone who has written to the bot in private can be answered there (someone posting
    # as a channel or as the anonymous admin has no private chat of their own).
    if message.sender_chat is None and tg_user is not None and context.has_user \
            and context.user.private_since is not None:
        try:
            await context.bot.send_message(tg_user.id, context.toast(
                "personal-moved-here", command=f"/{command}", name=chat.title or ""))
        except (Forbidden, BadRequest):
            pass  # never started the bot (or blocked it): the group gets the button below
        else:
            await context.application.process_update(private_copy(update))
            return
    username = context.bot.username
    button = InlineKeyboardButton(context.t("button-open-private"),
                                  url=f"https://t.me/{username}?start={command}")
    await reply(update, context.t("personal-open-private", command=f"/{command}"),
                InlineKeyboardMarkup([[button]]))


def register(app: Application) -> None:
    groups = NEW_MESSAGES & filters.ChatType.GROUPS
    app.add_handler(CommandHandler(list(PERSONAL), personal_in_group, filters=groups))
