"""Challenge a friend: questions shared in inline mode (`@bot` in any chat), deep links that
open the bot on a question or with a field and level chosen, and /share.

A shared question is a message the sender posts *via* the bot: Telegram names it only by an
inline_message_id. Anyone in that chat may answer, also people who never started the bot;
each gets a private toast, their first tap counts, and the message shows how many answered and
how many got it right (never who, never the answer), edited at most once every few seconds.
Inline mode is switched on with @BotFather (/setinline); without it the rest works.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from datetime import timedelta
from typing import cast
from urllib.parse import quote

from telegram import (
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InlineQueryResultArticle,
    InputTextMessageContent,
    Update,
)
from telegram.error import BadRequest, TelegramError
from telegram.ext import (
    Application,
    ApplicationHandlerStop,
    CallbackContext,
    CallbackQueryHandler,
    CommandHandler,
    InlineQueryHandler,
    filters,
)

from bot import callbacks
from bot.context import CoachContext, services_of
from bot.services import Services
from domain.grading import checked_order, grade, shown_order
from handlers import group_manners, onboarding
from handlers.common import NEW_MESSAGES, reply
from handlers.question_messages import send_question
from questions import render
from questions.model import LEVELS, Question
from services import answers, sharing
from storage import sharing as store
from storage.users import update_user

log = logging.getLogger(__name__)
COMMANDS = ("share",)

MAX_RESULTS = 50  # Telegram's limit per answer
BROWSE_RESULTS = 10  # an empty query: "random" and a few more from the sender's field and level
EDIT_EVERY = 3  # seconds between edits of one shared message: a popular one stays under limits
# Inline results depend on who asks (field, level, language) and "random" should vary.
CACHE_SECONDS_BROWSE = 5
CACHE_SECONDS_SEARCH = 30
TOAST_LIMIT = 200  # characters Telegram shows in a callback toast
CATCH_UP = timedelta(days=2)  # at start-up, shared messages this recent get their last tally
QUESTION_PAYLOAD = re.compile(r"q_([0-9a-f]{10})")
SETUP_PAYLOAD = re.compile(r"s_([a-z0-9][a-z0-9-]{0,47})_(junior|mid|senior)")


# -- links -------------------------------------------------------------------------------------

def bot_link(username: str, payload: str = "", *, group: bool = False) -> str:
    """https://t.me/<bot>?start=<payload> (or ?startgroup=); a payload is at most 64 characters
    of A-Za-z0-9_- (Telegram's rule for deep links)."""
    if not payload:
        return f"https://t.me/{username}"
    assert re.fullmatch(r"[A-Za-z0-9_-]{1,64}", payload), payload
    return f"https://t.me/{username}?{'startgroup' if group else 'start'}={payload}"


def question_payload(question: Question) -> str:
    return f"q_{question.key}"


def setup_payload(field: str | None, level: str | None) -> str:
    if field and level and len(field) <= 48:
        return f"s_{field}_{level}"
    return "share"


# -- the shared message ------------------------------------------------------------------------

def shared_text(services: Services, question: Question, lang: str, order: str,
                tally: store.Tally | None) -> str:
    texts, bank = services.texts, services.bank
    header = render.header_html(bank.field_name(question.field, lang),
                                bank.topic_name(question.field, question.topic, lang),
                                texts.t(lang, f"level-{question.seniority}"))
    body = render.question_html(question, lang, header=header, order=order)
    status = (texts.t(lang, "shared-status-open") if tally is None or tally.answered == 0
              else texts.t(lang, "shared-status", count=tally.answered, right=tally.right))
    return f"{body}\n\n{status}"


def shared_keyboard(services: Services, username: str, question: Question, lang: str,
                    order: str) -> InlineKeyboardMarkup:
    letters = [InlineKeyboardButton(
        render.option_label(key, order),
        callback_data=callbacks.SharedAnswer(question.key, key, lang, order).encode())
        for key in order]
    open_bot = InlineKeyboardButton(services.texts.t(lang, "button-practise-in-bot"),
                                    url=bot_link(username, question_payload(question)))
    return InlineKeyboardMarkup([letters, [open_bot]])


# -- inline queries ----------------------------------------------------------------------------

def haystacks(services: Services, lang: str) -> list[tuple[Question, str]]:
    """Every question with its searchable text in `lang` (body, options, topic), case-folded;
    built once per bank and language, so a query scans strings instead of building them."""
    cache = services.search_cache
    key = (services.bank_version, lang)
    if key not in cache:
        bank = services.bank
        cache.clear()  # a reloaded bank replaces the old one's entries
        cache[key] = [(question, " ".join([
            question.text(lang).body, *question.text(lang).options.values(), question.topic,
            bank.topic_name(question.field, question.topic, lang)]).casefold())
            for question in bank.questions.values()]
    return cache[key]


def matching(services: Services, words: Sequence[str], lang: str,
             field: str | None) -> list[Question]:
    """Questions whose text or topic holds every word (the sender's field first)."""
    found = [question for question, text in haystacks(services, lang)
             if all(word in text for word in words)]
    found.sort(key=lambda q: (q.field != field, q.field, q.topic, q.id))
    return found[:MAX_RESULTS]


def result(services: Services, username: str, question: Question, lang: str, *,
           result_id: str, title: str) -> InlineQueryResultArticle:
    order = shown_order(question, services.rng)
    body = " ".join(question.text(lang).body.split())
    return InlineQueryResultArticle(
        id=result_id, title=title[:120],
        description=body[:150] + ("…" if len(body) > 150 else ""),
        input_message_content=InputTextMessageContent(
            shared_text(services, question, lang, order, None)),
        reply_markup=shared_keyboard(services, username, question, lang, order))


async def inline_query(update: Update, context: CoachContext) -> None:
    """`@bot` or `@bot words` in any chat: questions to share."""
    query = update.inline_query
    assert query is not None
    services, lang = context.services, context.member_lang
    bank = services.bank
    user = context.user if context.has_user else None
    field = user.field if user and user.field in bank.fields else None
    level = user.level if user else None
    username = context.bot.username
    words = [w.casefold() for w in query.query.split()][:8]
    results: list[InlineQueryResultArticle] = []
    if words:
        for question in matching(services, words, lang, field):
            results.append(result(services, username, question, lang, result_id=question.key,
                                  title=bank.topic_name(question.field, question.topic, lang)
                                  + " · " + services.texts.t(lang, f"level-{question.seniority}")))
    else:
        pool = list(bank.pool(field, level)) or list(bank.pool(field)) or list(bank.questions.values())
        picked = services.rng.sample(pool, min(BROWSE_RESULTS, len(pool)))
        for index, question in enumerate(picked):
            title = (services.texts.t(lang, "inline-random") if index == 0 else
                     bank.topic_name(question.field, question.topic, lang) + " · "
                     + services.texts.t(lang, f"level-{question.seniority}"))
            results.append(result(services, username, question, lang,
                                  result_id=("r" if index == 0 else "") + question.key,
                                  title=title))
    await query.answer(results, cache_time=CACHE_SECONDS_SEARCH if words else CACHE_SECONDS_BROWSE,
                       is_personal=True)


# -- taps on a shared question -----------------------------------------------------------------

def toast_for(services: Services, question: Question, lang: str, order: str,
              is_right: bool) -> str:
    right = render.option_label(question.correct, order)
    option = " ".join(question.text(lang).options[question.correct].split())
    head = services.texts.t(lang, "shared-toast-right" if is_right else "shared-toast-wrong",
                            right=right)
    room = TOAST_LIMIT - len(head) - 1
    if len(option) > room:
        option = option[: max(room - 1, 0)] + "…"
    return f"{head} {option}" if room > 0 else head[:TOAST_LIMIT]


async def shared_answer(update: Update, context: CoachContext) -> None:
    """A tap on a letter of a shared question: the first one counts, told only to the tapper."""
    query = update.callback_query
    services = context.services
    data = callbacks.SharedAnswer.parse(query.data)
    question = services.bank.by_key.get(data.question_key) if data else None
    choice = grade(question, data.option) if question and data else None
    order = checked_order(question, data.order) if question and data else None
    inline_id = query.inline_message_id
    if data is None or question is None or choice is None or order is None or not inline_id:
        await query.answer(context.toast("toast-expired"))
        return
    now = services.now()
    personal = None
    if context.has_user:  # someone who uses the bot: the answer counts in their /stats too
        personal = answers.new_answer(
            context.user, question, choice, now=now, chat_id=0,
            message_id=sharing.answer_message_id(inline_id), source="shared", elapsed=None)
    recorded = await sharing.record_tap(
        services.db, inline_message_id=inline_id, question_id=question.id,
        language=data.language, options_order=order, user_id=query.from_user.id,
        chosen=choice.chosen, is_correct=choice.is_correct, now=int(now.timestamp()),
        personal=personal)
    if not recorded:
        earlier = await store.earlier_choice(services.db, inline_message_id=inline_id,
                                             user_id=query.from_user.id)
        letter = render.option_label(earlier, order) if earlier and earlier in order else "?"
        await query.answer(context.toast("shared-toast-already", choice=letter))
        return
    await query.answer(toast_for(services, question, context.member_lang, order, choice.is_correct),
                       show_alert=False)
    await refresh_shared(context.application, inline_id)


async def refresh_shared(app: Application, inline_id: str) -> None:
    """Show the latest tally now if the message's edit slot is free, else once it is."""
    services = services_of(app)
    now = int(services.now().timestamp())
    if await store.claim_edit(services.db, inline_message_id=inline_id, now=now,
                              every=EDIT_EVERY):
        await edit_shared(app, inline_id)
        return
    assert app.job_queue is not None
    name = f"shared-{inline_id}"
    if not app.job_queue.get_jobs_by_name(name):
        shared = await store.get_shared(services.db, inline_message_id=inline_id)
        wait = max((shared.edited_at + EDIT_EVERY - now) if shared else EDIT_EVERY, 0) + 0.1
        app.job_queue.run_once(_deferred_edit, wait, data=inline_id, name=name)


async def _deferred_edit(context: CallbackContext) -> None:
    """The edit a busy message waited for: it holds the slot, whatever the clock says."""
    assert context.job is not None
    inline_id = cast(str, context.job.data)
    services = services_of(context.application)
    await store.set_edited(services.db, inline_message_id=inline_id,
                           now=int(services.now().timestamp()))
    await edit_shared(context.application, inline_id)


async def edit_shared(app: Application, inline_id: str) -> None:
    """Edit the tally into the shared message (unless it shows it already)."""
    services = services_of(app)
    shared = await store.get_shared(services.db, inline_message_id=inline_id)
    question = services.bank.questions.get(shared.question_id) if shared else None
    if shared is None or question is None:
        return
    tally = await store.tally(services.db, inline_message_id=inline_id)
    # Only the caller that changes what the message shows edits it: Telegram refuses an edit
    # to identical content.
    if not await store.mark_shown(services.db, inline_message_id=inline_id, shown=tally):
        return
    try:
        await app.bot.edit_message_text(
            shared_text(services, question, shared.language, shared.options_order, tally),
            inline_message_id=inline_id,
            reply_markup=shared_keyboard(services, app.bot.username, question, shared.language,
                                         shared.options_order))
    except BadRequest as exc:  # deleted, or too old to edit: the tally lives on in storage
        log.info("shared question edit skipped: %s", exc.message)
    except TelegramError as exc:
        log.warning("shared question edit failed: %s", exc)


# -- deep links and /share -------------------------------------------------------------------

async def start_with_payload(update: Update, context: CoachContext) -> None:
    """/start <payload> in a private chat: a shared question (q_<key>), a friend's field and
    level (s_<field>_<level>), a personal command asked for in a group; anything else is a
    plain /start. Onboarding's own /start does not run after it."""
    await open_deep_link(update, context)
    raise ApplicationHandlerStop


async def open_deep_link(update: Update, context: CoachContext) -> None:
    payload = (context.args or [""])[0]
    services, user = context.services, context.user
    bank = services.bank
    if match := QUESTION_PAYLOAD.fullmatch(payload):
        question = bank.by_key.get(match.group(1))
        if question is None:
            await reply(update, context.t("deep-link-question-gone"))
        elif user.field and user.level:
            await send_question(update, context, question, context.lang)
            return
        else:
            await update_user(services.db, user_id=user.user_id, pending_question=question.id)
    elif payload in group_manners.PERSONAL:  # "Open the bot" under a personal command in a group
        await group_manners.run_command(update, context, payload)
        return
    elif match := SETUP_PAYLOAD.fullmatch(payload):
        field, level = match.groups()
        if field in bank.fields and not user.field:  # a friend's choices, for a newcomer
            await update_user(services.db, user_id=user.user_id, field=field, level=level)
            user.field, user.level = field, level
            await onboarding.greet(update, context, user, context.lang)
            return
    await onboarding.start(update, context)


async def share_command(update: Update, context: CoachContext) -> None:
    """/share: a link to the bot with the user's field and level chosen, to send a friend; a
    link that adds the bot to a group; and, with inline mode on, "challenge a friend"."""
    user, lang = context.user, context.lang
    username = context.bot.username
    link = bot_link(username, setup_payload(user.field, user.level))
    field = (context.services.bank.field_name(user.field, lang)
             if user.field in context.services.bank.fields else None)
    text = context.t("share-text", link=link) if field is None else \
        context.t("share-text-field", link=link, field=field,
                  level=context.t(f"level-{user.level}") if user.level in LEVELS else "—")
    invite = context.t("share-invite", link=link)
    rows = [[InlineKeyboardButton(context.t("button-share-link"),
                                  url=f"https://t.me/share/url?url={quote(link, safe='')}"
                                      f"&text={quote(invite, safe='')}")],
            [InlineKeyboardButton(context.t("button-add-to-group"),
                                  url=bot_link(username, "round", group=True))]]
    if context.bot.supports_inline_queries:
        rows.insert(0, [InlineKeyboardButton(context.t("button-challenge"),
                                             switch_inline_query="")])
    await reply(update, text, InlineKeyboardMarkup(rows))


# -- wiring ------------------------------------------------------------------------------------

DEEP_LINKS = -1


def register(app: Application) -> None:
    private = NEW_MESSAGES & filters.ChatType.PRIVATE
    # Before onboarding's plain /start (handler group 0), which it stands in for.
    app.add_handler(CommandHandler("start", start_with_payload,
                                   filters=private & filters.Regex(r"^/start(@\w+)?\s+\S")),
                    group=DEEP_LINKS)
    app.add_handler(CommandHandler("share", share_command, filters=private))
    app.add_handler(InlineQueryHandler(inline_query))
    app.add_handler(CallbackQueryHandler(shared_answer, pattern=callbacks.SharedAnswer.pattern()))


async def on_startup(app: Application) -> None:
    """Shared messages whose last taps a restart left unshown get their tally."""
    services = services_of(app)
    since = int((services.now() - CATCH_UP).timestamp())
    for inline_id in await store.behind(services.db, since=since):
        await refresh_shared(app, inline_id)
