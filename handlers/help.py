"""/help, the command menu, the bot's description, and the fallbacks for unknown buttons,
unknown commands and free text."""

from __future__ import annotations

import logging

from telegram import (
    Bot,
    BotCommand,
    BotCommandScopeAllChatAdministrators,
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
    BotCommandScopeChat,
    BotCommandScopeChatAdministrators,
    Update,
)
from telegram.error import TelegramError
from telegram.ext import Application, CallbackQueryHandler, CommandHandler, MessageHandler, filters

from bot.context import CoachContext, services_of
from bot.texts import LANGUAGES, Texts
from handlers.common import NEW_MESSAGES, reply

log = logging.getLogger(__name__)

COMMANDS = ("help",)


# What a group's members see in its menu, and what its admins see (the same commands, said as
# what they may do). Private chats get every other command: the practice ones.
GROUP_COMMANDS = ("round", "stop", "leaderboard", "field", "level", "language", "help")
GROUP_TEXTS = {"stop": "cmd-group-stop", "field": "cmd-group-field", "level": "cmd-group-level",
               "language": "cmd-group-language"}
ADMIN_TEXTS = {"stop": "cmd-group-admin-stop", "field": "cmd-group-admin-field",
               "level": "cmd-group-admin-level", "language": "cmd-group-admin-language"}
GROUP_ONLY = frozenset({"round", "stop", "leaderboard"})


def menu(app: Application, lang: str) -> list[BotCommand]:
    """The private chats' menu: the practice commands."""
    texts = services_of(app).texts
    return [BotCommand(name, texts.t(lang, f"cmd-{name}")) for name in app.bot_data["commands"]
            if name not in GROUP_ONLY]


def group_menu(app: Application, lang: str, *, admins: bool = False) -> list[BotCommand]:
    texts = services_of(app).texts
    wording = ADMIN_TEXTS if admins else GROUP_TEXTS
    return [BotCommand(name, texts.t(lang, wording.get(name, f"cmd-{name}")))
            for name in GROUP_COMMANDS]


async def set_command_menu(app: Application) -> None:
    """The command menus per scope, in both languages (English for every other language):
    private chats, group members, group admins."""
    bot = app.bot
    for lang in LANGUAGES:
        code = None if lang == "en" else lang
        await bot.set_my_commands(menu(app, lang), language_code=code)
        await bot.set_my_commands(menu(app, lang), scope=BotCommandScopeAllPrivateChats(),
                                  language_code=code)
        await bot.set_my_commands(group_menu(app, lang), scope=BotCommandScopeAllGroupChats(),
                                  language_code=code)
        await bot.set_my_commands(group_menu(app, lang, admins=True),
                                  scope=BotCommandScopeAllChatAdministrators(),
                                  language_code=code)


async def set_group_menu(app: Application, bot: Bot, chat_id: int, lang: str) -> None:
    """A group's menus in the language its admins chose (members' and admins' both, since the
    narrower scope of one chat would otherwise hide the admins' menu)."""
    try:
        await bot.set_my_commands(group_menu(app, lang), scope=BotCommandScopeChat(chat_id))
        await bot.set_my_commands(group_menu(app, lang, admins=True),
                                  scope=BotCommandScopeChatAdministrators(chat_id))
    except TelegramError as exc:
        log.warning("command menu for group %s not set: %s", chat_id, exc.message)


async def set_chat_menu(app: Application, bot: Bot, chat_id: int, lang: str) -> None:
    """The menu of one private chat in the language its user chose with /language, which may
    not be the language of their Telegram app. A failure only leaves the default menu."""
    try:
        await bot.set_my_commands(menu(app, lang), scope=BotCommandScopeChat(chat_id))
    except TelegramError as exc:
        log.warning("command menu for chat %s not set: %s", chat_id, exc.message)


async def clear_chat_menu(bot: Bot, chat_id: int) -> None:
    """Back to the default menu (after /deleteme, the chosen language is forgotten too)."""
    try:
        await bot.delete_my_commands(scope=BotCommandScopeChat(chat_id))
    except TelegramError as exc:
        log.warning("command menu for chat %s not cleared: %s", chat_id, exc.message)


async def on_startup(app: Application) -> None:
    """What an empty chat with the bot shows before /start, in both languages (English is
    the default for everyone else)."""
    texts = services_of(app).texts
    for lang in LANGUAGES:
        code = None if lang == "en" else lang
        await app.bot.set_my_description(texts.t(lang, "bot-description"), language_code=code)
        await app.bot.set_my_short_description(texts.t(lang, "bot-short-description"),
                                               language_code=code)


def command_lines(texts: Texts, lang: str, names: list[str]) -> str:
    """`/name — description` lines (plain text: the catalog escapes it as an argument)."""
    return "\n".join(f"/{name} — {texts.t(lang, f'cmd-{name}')}" for name in names)


async def help_command(update: Update, context: CoachContext) -> None:
    """/help (admins also see the admin commands, which stay out of everyone's menu)"""
    user, lang = context.user, context.lang
    services = context.services
    texts = services.texts
    text = context.t("help", commands=command_lines(texts, lang, context.bot_data["commands"]))
    admin_commands = context.bot_data.get("admin_commands") or []
    if admin_commands and services.is_admin(user.user_id):
        text += "\n\n" + context.t("help-admin",
                                 commands=command_lines(texts, lang, admin_commands))
    await reply(update, text)


async def expired_button(update: Update, context: CoachContext) -> None:
    """Any button no handler claimed: from an older version, or forged. Answer it anyway."""
    await update.callback_query.answer(context.toast("toast-expired"))


async def unknown_command(update: Update, context: CoachContext) -> None:
    """A command the bot does not have, in a private chat."""
    await reply(update, context.t("unknown-command"))


async def free_text(update: Update, context: CoachContext) -> None:
    """Text in a private chat that nothing was waiting for (/jd claims its ad earlier)."""
    await reply(update, context.t("free-text"))


def register(app: Application) -> None:
    app.add_handler(CommandHandler("help", help_command, filters=NEW_MESSAGES))


def register_fallbacks(app: Application) -> None:
    """Must be added after every feature, so they only see what nothing else handled."""
    app.add_handler(CallbackQueryHandler(expired_button))
    app.add_handler(MessageHandler(
        NEW_MESSAGES & filters.COMMAND & filters.ChatType.PRIVATE, unknown_command))
    app.add_handler(MessageHandler(
        NEW_MESSAGES & filters.TEXT & ~filters.COMMAND & filters.ChatType.PRIVATE, free_text))
