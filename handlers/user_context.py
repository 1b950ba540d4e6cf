"""Loads the sender of each update once, before any feature handler, into the context."""

from __future__ import annotations

from dataclasses import replace

from telegram import CallbackQuery, Update
from telegram.constants import ChatType
from telegram.ext import Application, ApplicationHandlerStop, TypeHandler

from bot import callbacks
from bot.context import CoachContext
from storage.groups import get_group
from storage.users import ensure_user, get_user, mark_private

COMMANDS: tuple[str, ...] = ()
GROUP = -90  # after the flood guard (-100), before every feature handler (0 and up)


async def load_user(update: Update, context: CoachContext) -> None:
    """Put the stored user (created on first contact, first name kept current) and their
    language on the context."""
    tg_user = update.effective_user
    # Membership changes name whoever changed them, not someone talking to the bot.
    if tg_user is None or update.my_chat_member or update.chat_member:
        return
    services = context.services
    guess = services.language_for(None, tg_user.language_code)
    query = update.callback_query
    if update.inline_query is not None or (query is not None and query.inline_message_id):
        await load_inline_user(update, context, guess)
        return
    # Every keyboard in a private chat came after the user's first contact: a tap there from
    # someone with no stored user is from before their /deleteme, and must re-create nothing.
    private_tap = (query is not None and query.message is not None
                   and query.message.chat.type == ChatType.PRIVATE)
    try:
        user = (await get_user(services.db, user_id=tg_user.id) if private_tap else
                await ensure_user(services.db, user_id=tg_user.id,
                                  first_name=tg_user.first_name or "", language=guess,
                                  now=int(services.now().timestamp())))
    except Exception as exc:  # noqa: BLE001 - the error handler logs it and apologises once
        # Without a user no feature handler can run: report it and stop this update here.
        await context.application.process_error(update, exc)
        raise ApplicationHandlerStop from None
    if user is None:
        assert query is not None
        await query.answer(services.texts.t(guess, "toast-question-gone"))
        raise ApplicationHandlerStop
    lang = services.language_for(user.language, tg_user.language_code)
    chat = update.effective_chat
    if chat is not None and chat.type == ChatType.PRIVATE and user.private_since is None \
            and update.message is not None:
        now = int(services.now().timestamp())
        await mark_private(services.db, user_id=user.user_id, now=now)
        user = replace(user, private_since=now)
    chat_lang = None
    if chat is not None and chat.type in (ChatType.GROUP, ChatType.SUPERGROUP) \
            and not is_round_tap(query):
        # What the bot posts in a group is in the group's language, whoever asked. (A round
        # tap posts nothing, only a toast: in a burst of taps the lookup would cost each one.)
        chat_lang = (await get_group(services.db, chat_id=chat.id)).language
    context.set_user(user, lang, chat_lang)


def is_round_tap(query: CallbackQuery | None) -> bool:
    raw = callbacks.decode(query.data) if query is not None else None
    return raw is not None and raw.kind == callbacks.RoundAnswer.KIND


async def load_inline_user(update: Update, context: CoachContext, guess: str) -> None:
    """Inline mode reaches people who never started the bot (anyone in a chat may answer a
    shared question): they are not stored, and only a shared question's letters serve them."""
    services = context.services
    tg_user = update.effective_user
    assert tg_user is not None
    user = await get_user(services.db, user_id=tg_user.id)
    if user is not None:
        context.set_user(user, services.language_for(user.language, tg_user.language_code))
    else:
        context.member_lang = context.lang = guess
    query = update.callback_query
    if query is not None and callbacks.SharedAnswer.parse(query.data) is None:
        await query.answer(services.texts.t(context.member_lang, "toast-expired"))
        raise ApplicationHandlerStop


def register(app: Application) -> None:
    app.add_handler(TypeHandler(Update, load_user), group=GROUP)
