"""Group housekeeping: follow a group to its new id when Telegram upgrades it to a supergroup."""

from __future__ import annotations

import logging

from telegram import Update
from telegram.ext import Application, MessageHandler, filters

from bot.context import CoachContext
from storage.chats import migrate_chat

log = logging.getLogger(__name__)
COMMANDS: tuple[str, ...] = ()


async def group_migrated(update: Update, context: CoachContext) -> None:
    """`migrate_to_chat_id` arrives in the old group: its settings and scores follow."""
    message = update.effective_message
    if message is None or not message.migrate_to_chat_id:
        return
    moved = await migrate_chat(context.services.db, old_chat_id=message.chat_id,
                               new_chat_id=message.migrate_to_chat_id)
    context.application.migrate_chat_data(message=message)
    log.info("chat %s migrated to %s (%d rows)", message.chat_id, message.migrate_to_chat_id,
             moved)


def register(app: Application) -> None:
    app.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, group_migrated))
