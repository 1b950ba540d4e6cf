"""/start, /language, /field and /level: what the user practises, in which language."""

from __future__ import annotations

from telegram import Update
from telegram.constants import ChatType
from telegram.ext import Application, CallbackQueryHandler, CommandHandler

from bot import callbacks
from bot.context import CoachContext
from handlers.common import NEW_MESSAGES, button_rows, edit_or_ignore, keyboard, listing, reply
from handlers.help import set_chat_menu
from handlers.question_messages import send_question
from questions.model import LEVELS
from storage.users import User, take_pending_question, update_user

COMMANDS = ("start", "language", "field", "level")
LANGUAGE_CHOICES = {"en": "English", "tr": "Türkçe"}


def language_keyboard(current: str):
    return keyboard([[(("✓ " if code == current else "") + name, callbacks.LanguageChoice(code).encode())
                      for code, name in LANGUAGE_CHOICES.items()]])


def field_keyboard(context: CoachContext, lang: str, current: str | None = None):
    bank = context.services.bank
    buttons = [(("✓ " if key == current else "") + bank.field_name(key, lang),
                callbacks.FieldChoice(key).encode()) for key in sorted(bank.fields)]
    return keyboard(button_rows(buttons))


def level_keyboard(context: CoachContext, lang: str, current: str | None = None):
    texts = context.services.texts
    return keyboard([[(("✓ " if level == current else "") + texts.t(lang, f"level-{level}"),
                       callbacks.LevelChoice(level).encode()) for level in LEVELS]])


def start_keyboard(context: CoachContext, lang: str):
    return keyboard([[(context.services.texts.t(lang, "button-start-practice"),
                       callbacks.Next().encode())]])


def names(context: CoachContext, user: User, lang: str) -> dict[str, str]:
    texts = context.services.texts
    return {
        "field": context.services.bank.field_name(user.field, lang) if user.field else "—",
        "level": texts.t(lang, f"level-{user.level}") if user.level else "—",
        "language": LANGUAGE_CHOICES[lang],
    }


async def ask_next_choice(update: Update, context: CoachContext, user: User, lang: str) -> None:
    """Show the keyboard for the first thing not chosen yet, or offer to start."""
    texts = context.services.texts
    if not user.field or user.field not in context.services.bank.fields:
        await reply(update, texts.t(lang, "choose-field"), field_keyboard(context, lang))
    elif not user.level:
        await reply(update, texts.t(lang, "choose-level"), level_keyboard(context, lang))
    else:
        pending = await take_pending_question(context.services.db, user_id=user.user_id)
        question = context.services.bank.questions.get(pending) if pending else None
        if question is not None:  # opened on a shared question: it comes first
            await reply(update, texts.t(lang, "all-set", **names(context, user, lang)))
            await send_question(update, context, question, lang)
            return
        await reply(update, texts.t(lang, "all-set", **names(context, user, lang)),
                    start_keyboard(context, lang))


async def start(update: Update, context: CoachContext) -> None:
    """Welcome, then whatever is not chosen yet."""
    user, lang = context.user, context.lang
    name = update.effective_user.first_name if update.effective_user else ""
    if user.field and user.level:
        await reply(update, context.t("welcome-back", name=name, **names(context, user, lang)),
                    start_keyboard(context, lang))
        return
    await greet(update, context, user, lang)


async def greet(update: Update, context: CoachContext, user: User, lang: str) -> None:
    """A new user's welcome: hello, the language (changeable), then the next choice."""
    name = update.effective_user.first_name if update.effective_user else ""
    await reply(update, context.t("welcome", name=name))
    await reply(update, context.t("choose-language", language=LANGUAGE_CHOICES[lang]),
                language_keyboard(lang))
    await ask_next_choice(update, context, user, lang)


async def language(update: Update, context: CoachContext) -> None:
    """/language [en|tr]"""
    user, lang = context.user, context.lang
    texts = context.services.texts
    if not context.args:
        await reply(update, context.t("choose-language", language=LANGUAGE_CHOICES[lang]),
                    language_keyboard(lang))
        return
    choice = context.args[0].lower()
    if choice not in LANGUAGE_CHOICES:
        await reply(update, context.t("bad-language", values="en, tr"))
        return
    await update_user(context.services.db, user_id=user.user_id, language=choice)
    await follow_language(update, context, choice)  # before the reply: it confirms both
    await reply(update, texts.t(choice, "language-set"))


async def follow_language(update: Update, context: CoachContext, choice: str) -> None:
    """The chat's command menu in the language just chosen (private chats: a group's menu is
    the group's)."""
    chat = update.effective_chat
    if chat is not None and chat.type == ChatType.PRIVATE:
        await set_chat_menu(context.application, context.bot, chat.id, choice)


async def field(update: Update, context: CoachContext) -> None:
    """/field [key]"""
    user, lang = context.user, context.lang
    bank = context.services.bank
    if not context.args:
        await reply(update, context.t("choose-field"), field_keyboard(context, lang, user.field))
        return
    choice = context.args[0].lower()
    if choice not in bank.fields:
        await reply(update, context.t("bad-field", value=choice[:40],
                                    values=listing(sorted(bank.fields))))
        return
    await update_user(context.services.db, user_id=user.user_id, field=choice)
    await reply(update, context.t("field-set", field=bank.field_name(choice, lang)))
    if not user.level:
        await reply(update, context.t("choose-level"), level_keyboard(context, lang))


async def level(update: Update, context: CoachContext) -> None:
    """/level [junior|mid|senior]"""
    user, lang = context.user, context.lang
    if not context.args:
        await reply(update, context.t("choose-level"), level_keyboard(context, lang, user.level))
        return
    choice = context.args[0].lower()
    if choice not in LEVELS:
        await reply(update, context.t("bad-level", value=choice[:40], values=", ".join(LEVELS)))
        return
    await update_user(context.services.db, user_id=user.user_id, level=choice)
    await reply(update, context.t("level-set", level=context.t(f"level-{choice}")))


async def choose_language(update: Update, context: CoachContext) -> None:
    """A tap on English / Türkçe."""
    query = update.callback_query
    data = callbacks.LanguageChoice.parse(query.data)
    user = context.user
    choice = data.language if data else ""
    if choice not in LANGUAGE_CHOICES:
        await query.answer(context.toast("toast-expired"))
        return
    await query.answer(context.services.texts.t(choice, "language-set"))
    if choice == user.language:
        return
    await update_user(context.services.db, user_id=user.user_id, language=choice)
    await follow_language(update, context, choice)
    texts = context.services.texts
    await edit_or_ignore(context, query.message,
                         texts.t(choice, "choose-language", language=LANGUAGE_CHOICES[choice]),
                         language_keyboard(choice))


async def choose_field(update: Update, context: CoachContext) -> None:
    """A tap on a field button."""
    query = update.callback_query
    data = callbacks.FieldChoice.parse(query.data)
    user, lang = context.user, context.lang
    bank = context.services.bank
    choice = data.field_key if data else ""
    if choice not in bank.fields:
        await query.answer(context.toast("toast-expired"))
        return
    await query.answer()
    await update_user(context.services.db, user_id=user.user_id, field=choice)
    user.field = choice
    await edit_or_ignore(context, query.message, context.t("field-set", field=bank.field_name(choice, lang)))
    await ask_next_choice(update, context, user, lang)


async def choose_level(update: Update, context: CoachContext) -> None:
    """A tap on Junior / Mid / Senior."""
    query = update.callback_query
    data = callbacks.LevelChoice.parse(query.data)
    user, lang = context.user, context.lang
    choice = data.level if data else ""
    if choice not in LEVELS:
        await query.answer(context.toast("toast-expired"))
        return
    await query.answer()
    await update_user(context.services.db, user_id=user.user_id, level=choice)
    user.level = choice
    await edit_or_ignore(context, query.message, context.t("level-set", level=context.t(f"level-{choice}")))
    await ask_next_choice(update, context, user, lang)


def register(app: Application) -> None:
    app.add_handler(CommandHandler("start", start, filters=NEW_MESSAGES))
    app.add_handler(CommandHandler("language", language, filters=NEW_MESSAGES))
    app.add_handler(CommandHandler("field", field, filters=NEW_MESSAGES))
    app.add_handler(CommandHandler("level", level, filters=NEW_MESSAGES))
    app.add_handler(CallbackQueryHandler(choose_language, pattern=callbacks.LanguageChoice.pattern()))
    app.add_handler(CallbackQueryHandler(choose_field, pattern=callbacks.FieldChoice.pattern()))
    app.add_handler(CallbackQueryHandler(choose_level, pattern=callbacks.LevelChoice.pattern()))
