"""The bot in a group: /start says what it does there; /language, /field and /level set the
group's own choices for rounds, by its admins. Registered before onboarding, whose per-user
versions of these commands stay for private chats.
"""

from __future__ import annotations

from telegram import Update, User
from telegram.constants import ChatMemberStatus
from telegram.error import TelegramError
from telegram.ext import Application, CommandHandler, filters

from bot.context import CoachContext
from handlers.common import NEW_MESSAGES, listing, reply
from handlers.help import set_group_menu
from questions.model import LEVELS
from storage.groups import GroupSettings, adopt_language, get_group, update_group

COMMANDS: tuple[str, ...] = ()  # the same commands as onboarding, so nothing new for the menu
LANGUAGE_NAMES = {"en": "English", "tr": "Türkçe"}
DEFAULT_LEVEL = "mid"
ALL_FIELDS = ("all", "any")


async def group_language(context: CoachContext, chat_id: int, tg_user: User | None, *,
                         adopt: bool = False) -> tuple[GroupSettings, str]:
    """The group's choices and the language to talk to it in: its own, else the sender's.
    adopt=True (setting the group up, starting a round) makes the sender's language the
    group's until an admin chooses one."""
    services = context.services
    group = await get_group(services.db, chat_id=chat_id)
    lang = group.language or (context.member_lang if context.has_user else
                              services.language_for(None, tg_user.language_code if tg_user else None))
    if adopt and group.language is None:
        await adopt_language(services.db, chat_id=chat_id, language=lang,
                             now=int(services.now().timestamp()))
        group = await get_group(services.db, chat_id=chat_id)
        lang = group.language or lang
    return group, lang


async def is_group_admin(update: Update, context: CoachContext) -> bool:
    """Asked of Telegram each time, so a demoted admin loses the right at once."""
    chat, message = update.effective_chat, update.effective_message
    if chat is None or update.effective_user is None:
        return False
    if message is not None and message.sender_chat is not None:
        # An anonymous admin speaks as the group itself; a member posting as a channel is not
        # an admin (and the shared channel account is no member to ask Telegram about).
        return message.sender_chat.id == chat.id
    try:
        member = await context.bot.get_chat_member(chat.id, update.effective_user.id)
    except TelegramError:
        return False
    return member.status in (ChatMemberStatus.OWNER, ChatMemberStatus.ADMINISTRATOR)


def describe(context: CoachContext, group: GroupSettings, lang: str) -> str:
    texts, bank = context.services.texts, context.services.bank
    field = (bank.field_name(group.field, lang) if group.field in bank.fields
             else texts.t(lang, "group-all-fields"))
    level = texts.t(lang, f"level-{group.level or DEFAULT_LEVEL}")
    return texts.t(lang, "group-settings", field=field, level=level,
                   language=LANGUAGE_NAMES[lang])


async def allowed_to_change(update: Update, context: CoachContext, lang: str) -> bool:
    if await is_group_admin(update, context):
        return True
    await reply(update, context.services.texts.t(lang, "group-admins-only"))
    return False


async def group_start(update: Update, context: CoachContext) -> None:
    """/start in a group (also what Telegram sends when the bot is added by its link)."""
    group, lang = await group_language(context, update.effective_chat.id, update.effective_user,
                                       adopt=True)
    await reply(update, context.services.texts.t(lang, "group-welcome")
                + "\n\n" + describe(context, group, lang))


async def group_language_command(update: Update, context: CoachContext) -> None:
    """/language [en|tr] in a group."""
    group, lang = await group_language(context, update.effective_chat.id, update.effective_user)
    texts = context.services.texts
    if not context.args:
        await reply(update, describe(context, group, lang) + "\n"
                    + texts.t(lang, "group-language-usage", values="en, tr"))
        return
    choice = context.args[0].lower()
    if choice not in LANGUAGE_NAMES:
        await reply(update, texts.t(lang, "bad-language", values="en, tr"))
        return
    if not await allowed_to_change(update, context, lang):
        return
    await update_group(context.services.db, chat_id=group.chat_id, language=choice,
                       now=int(context.services.now().timestamp()))
    await set_group_menu(context.application, context.bot, group.chat_id, choice)
    await reply(update, texts.t(choice, "group-language-set", language=LANGUAGE_NAMES[choice]))


async def group_field_command(update: Update, context: CoachContext) -> None:
    """/field [key|all] in a group."""
    group, lang = await group_language(context, update.effective_chat.id, update.effective_user)
    texts, bank = context.services.texts, context.services.bank
    values = listing([*sorted(bank.fields), ALL_FIELDS[0]])
    if not context.args:
        await reply(update, describe(context, group, lang) + "\n"
                    + texts.t(lang, "group-field-usage", values=values))
        return
    choice = context.args[0].lower()
    if choice not in bank.fields and choice not in ALL_FIELDS:
        await reply(update, texts.t(lang, "bad-field", value=choice[:40], values=values))
        return
    if not await allowed_to_change(update, context, lang):
        return
    field = choice if choice in bank.fields else None
    await group_language(context, group.chat_id, update.effective_user, adopt=True)
    await update_group(context.services.db, chat_id=group.chat_id, field=field,
                       now=int(context.services.now().timestamp()))
    name = bank.field_name(field, lang) if field else texts.t(lang, "group-all-fields")
    await reply(update, texts.t(lang, "group-field-set", field=name))


async def group_level_command(update: Update, context: CoachContext) -> None:
    """/level [junior|mid|senior] in a group."""
    group, lang = await group_language(context, update.effective_chat.id, update.effective_user)
    texts = context.services.texts
    if not context.args:
        await reply(update, describe(context, group, lang) + "\n"
                    + texts.t(lang, "group-level-usage", values=", ".join(LEVELS)))
        return
    choice = context.args[0].lower()
    if choice not in LEVELS:
        await reply(update, texts.t(lang, "bad-level", value=choice[:40], values=", ".join(LEVELS)))
        return
    if not await allowed_to_change(update, context, lang):
        return
    await group_language(context, group.chat_id, update.effective_user, adopt=True)
    await update_group(context.services.db, chat_id=group.chat_id, level=choice,
                       now=int(context.services.now().timestamp()))
    await reply(update, texts.t(lang, "group-level-set", level=texts.t(lang, f"level-{choice}")))


def register(app: Application) -> None:
    groups = NEW_MESSAGES & filters.ChatType.GROUPS
    app.add_handler(CommandHandler("start", group_start, filters=groups))
    app.add_handler(CommandHandler("language", group_language_command, filters=groups))
    app.add_handler(CommandHandler("field", group_field_command, filters=groups))
    app.add_handler(CommandHandler("level", group_level_command, filters=groups))
