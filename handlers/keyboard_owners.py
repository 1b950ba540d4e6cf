"""A keyboard shown in a group belongs to the member it was shown to: anyone else's tap is
answered with a short note and goes no further. Callback data is written by the client, so the
owner is looked up in storage (handlers.common.own_keyboard), never taken from the button."""

from __future__ import annotations

from telegram import Update
from telegram.constants import ChatType
from telegram.ext import Application, ApplicationHandlerStop, TypeHandler

from bot import callbacks
from bot.context import CoachContext
from storage.keyboards import owner_of

COMMANDS: tuple[str, ...] = ()
GROUP = -80  # after the user loader (-90), before every feature handler

# The note a member gets on someone else's keyboard says what kind of keyboard it is.
_NOT_YOURS = {
    callbacks.DeleteMe.KIND: "toast-erase-not-yours",
    callbacks.Flag.KIND: "toast-report-not-yours",
    callbacks.FlagResolve.KIND: "toast-report-not-yours",
    callbacks.InterviewAnswer.KIND: "toast-interview-not-yours",
    callbacks.InterviewAction.KIND: "toast-interview-not-yours",
    **dict.fromkeys((callbacks.LanguageChoice.KIND, callbacks.FieldChoice.KIND,
                     callbacks.LevelChoice.KIND, callbacks.ReminderChoice.KIND,
                     callbacks.TimezoneChoice.KIND, callbacks.JobMatchAction.KIND,
                     callbacks.JobMatchField.KIND, callbacks.LevelNotYet.KIND),
                    "toast-settings-not-yours"),
}


def not_yours_toast(data: str | None) -> str:
    """The text id of the note for a tap on another member's keyboard."""
    raw = callbacks.decode(data)
    return _NOT_YOURS.get(raw.kind if raw else "", "toast-keyboard-not-yours")


async def check_owner(update: Update, context: CoachContext) -> None:
    query = update.callback_query
    if query is None or query.message is None or query.message.chat.type == ChatType.PRIVATE:
        return
    owner = await owner_of(context.services.db, chat_id=query.message.chat.id,
                           message_id=query.message.message_id)
    if owner is not None and owner != query.from_user.id:
        await query.answer(context.toast(not_yours_toast(query.data)))
        raise ApplicationHandlerStop


def register(app: Application) -> None:
    app.add_handler(TypeHandler(Update, check_owner), group=GROUP)
