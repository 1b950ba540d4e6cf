"""A keyboard shown in a group belongs to the member it was shown to: anyone else's tap is
answered with a short note and goes no further. Callback data is written by the client, so the
owner is looked up in storage (handlers.common.own_keyboard), never taken from the button."""

from __future__ import annotations

from telegram import Update
from telegram.constants import ChatType
from telegram.ext import Application, ApplicationHandlerStop, TypeHandler

from bot.context import CoachContext
from storage.keyboards import owner_of

COMMANDS: tuple[str, ...] = ()
GROUP = -80  # after the user loader (-90), before every feature handler


async def check_owner(update: Update, context: CoachContext) -> None:
    query = update.callback_query
    if query is None or query.message is None or query.message.chat.type == ChatType.PRIVATE:
        return
    owner = await owner_of(context.services.db, chat_id=query.message.chat.id,
                           message_id=query.message.message_id)
    if owner is not None and owner != query.from_user.id:
        await query.answer(context.toast("toast-keyboard-not-yours"))
        raise ApplicationHandlerStop


def register(app: Application) -> None:
    app.add_handler(TypeHandler(Update, check_owner), group=GROUP)
