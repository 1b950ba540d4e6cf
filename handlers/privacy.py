"""/deleteme: erase everything the bot holds about the user, after a confirm button."""

from __future__ import annotations

import logging

from telegram import Update
from telegram.ext import Application, CallbackQueryHandler, CommandHandler

from bot import callbacks
from bot.context import CoachContext
from handlers.common import NEW_MESSAGES, edit_or_ignore, keyboard, reply
from handlers.help import clear_chat_menu
from storage.privacy import erase_user

log = logging.getLogger(__name__)
COMMANDS = ("deleteme",)


async def deleteme(update: Update, context: CoachContext) -> None:
    """/deleteme: ask first; nothing is erased without the tap."""
    owner = update.effective_user.id
    await reply(update, context.t("deleteme-confirm"), keyboard([[
        (context.t("deleteme-yes"), callbacks.DeleteMe("yes", owner).encode()),
        (context.t("deleteme-no"), callbacks.DeleteMe("no", owner).encode()),
    ]]))


async def confirm(update: Update, context: CoachContext) -> None:
    """Yes: erase and say so. No: leave everything as it is."""
    query = update.callback_query
    data = callbacks.DeleteMe.parse(query.data)
    services = context.services
    user = update.effective_user
    lang = services.language_for(None, user.language_code)
    if data is None or data.owner != user.id:
        await query.answer(services.texts.t(lang, "toast-erase-not-yours" if data else "toast-expired"))
        return
    if data.choice == "no":
        await query.answer()
        await edit_or_ignore(context, query.message, services.texts.t(lang, "deleteme-cancelled"))
        return
    touched = await erase_user(services.db, user_id=user.id)
    context.application.drop_user_data(user.id)
    log.info("erased user_id=%s (%d rows)", user.id, touched)
    await query.answer()
    if update.effective_chat is not None and update.effective_chat.id == user.id:
        await clear_chat_menu(context.bot, user.id)  # its language was the user's choice
    await edit_or_ignore(context, query.message, services.texts.t(lang, "deleteme-done"))


def register(app: Application) -> None:
    app.add_handler(CommandHandler("deleteme", deleteme, filters=NEW_MESSAGES))
    app.add_handler(CallbackQueryHandler(confirm, pattern=callbacks.DeleteMe.pattern()))
