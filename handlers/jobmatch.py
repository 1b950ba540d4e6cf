"""/jd and /plan: match a pasted job ad to a field, level and topics, then practise toward it.

After /jd the user's next private message is the ad (text, or a .txt file); the wait lives in
SQLite for ten minutes. The ad is ranked, answered and dropped: never stored, never logged.
"""

from __future__ import annotations

import asyncio
import math
from datetime import UTC, datetime
from pathlib import Path

from telegram import InlineKeyboardMarkup, Message, Update
from telegram.constants import ChatType
from telegram.ext import (
    Application,
    ApplicationHandlerStop,
    CallbackQueryHandler,
    CommandHandler,
    MessageHandler,
    filters,
)

from bot import callbacks
from bot.context import CoachContext, services_of
from bot.texts import Html
from domain import streaks
from domain.jobmatch import JobMatch, Matcher, matcher_for, read_text_file
from domain.progress import percent
from handlers.common import NEW_MESSAGES, button_rows, edit_or_ignore, keyboard, reply
from questions.loader import Bank
from services.jobmatch_index import matcher_from_cache
from storage import jobmatch as store
from storage.jobmatch import RankedField, StoredMatch
from storage.users import User

COMMANDS = ("jd", "plan")
WAIT_MINUTES = 10
MAX_FILE_KB = 100
MIN_WORDS = 8  # fewer words than this is not an ad (a title alone ranks poorly)
UNSURE = 0.5  # below this confidence the answer says it is unsure
ALSO_CLOSE = 0.15  # runner-up fields at or above this confidence are named
# The ad handler runs in a group before everyone else's: for users who are not waiting it
# returns at once and the update goes on to the other handlers.
AD_GROUP = -1


async def ready_matcher(bank: Bank, folder: Path | None = None,
                        root: Path | None = None) -> Matcher:
    """The bank's matcher; reading or building one (at start-up, or after a reload) runs off
    the event loop (services/jobmatch_index.py)."""
    return await asyncio.to_thread(matcher_for, bank, matcher_from_cache(folder, root))


def now_ts(context: CoachContext) -> int:
    return int(context.services.now().timestamp())


def level_name(context: CoachContext, lang: str, level: str) -> str:
    return context.services.texts.t(lang, f"level-{level}")


def topic_lines(context: CoachContext, lang: str, field: str, topics: list[tuple[str, tuple]]):
    """Numbered topic names, each with the ad's words that matched it (when known)."""
    texts, bank = context.services.texts, context.services.bank
    lines = []
    for number, (topic, words) in enumerate(topics, start=1):
        name = bank.topic_name(field, topic, lang)
        if words:
            lines.append(texts.t(lang, "jd-topic-words", number=number, topic=name,
                                 words=", ".join(words)))
        else:
            lines.append(texts.t(lang, "jd-topic", number=number, topic=name))
    return lines


def result_html(context: CoachContext, lang: str, result: JobMatch) -> str:
    """The answer to a matched ad: field and confidence, level and why, topics and their words."""
    texts, bank = context.services.texts, context.services.bank
    best = result.fields[0]
    guess = result.level
    note = (texts.t(lang, "jd-level-from", words=" · ".join(guess.evidence)) if guess.stated
            else texts.t(lang, "jd-level-default"))
    lines = [texts.t(lang, "jd-result", field=bank.field_name(best.field, lang),
                     confidence=round(100 * best.confidence),
                     level=level_name(context, lang, guess.level), level_note=Html(note))]
    if best.confidence < UNSURE:
        lines.append(texts.t(lang, "jd-unsure"))
    close = [f"{bank.field_name(f.field, lang)} ({round(100 * f.confidence)}%)"
             for f in result.fields[1:3] if f.confidence >= ALSO_CLOSE]
    if close:
        lines.append(texts.t(lang, "jd-also-close", fields=", ".join(close)))
    lines += topics_section(context, lang, best.field, "jd-topics",
                            [(t.topic, t.words) for t in best.topics])
    return "\n".join(lines)


def chosen_field_html(context: CoachContext, lang: str, match: StoredMatch,
                      ranked: RankedField) -> str:
    """A field the user picked for the ad, with its topics closest to the ad."""
    texts, bank = context.services.texts, context.services.bank
    lines = [texts.t(lang, "jd-field-chosen", field=bank.field_name(ranked.field, lang),
                     level=level_name(context, lang, match.level))]
    topics = [t for t in ranked.topics if bank.topic(ranked.field, t)]
    lines += topics_section(context, lang, ranked.field, "jd-field-topics",
                            [(t, ()) for t in topics])
    return "\n".join(lines)


def topics_section(context: CoachContext, lang: str, field: str, heading: str,
                   topics: list[tuple[str, tuple[str, ...]]]) -> list[str]:
    """The ad's closest topics under `heading` (with their evidence words), or a note that the
    field has none to offer."""
    texts = context.services.texts
    if not topics:
        return ["", texts.t(lang, "jd-field-no-topics")]
    return ["", texts.t(lang, heading), *topic_lines(context, lang, field, topics),
            "", texts.t(lang, "jd-use-explained")]


def result_keyboard(context: CoachContext, lang: str, match_id: int,
                    rank: int) -> InlineKeyboardMarkup:
    texts = context.services.texts
    return keyboard([
        [(texts.t(lang, "jd-button-use"), callbacks.JobMatchAction("u", match_id, rank).encode())],
        [(texts.t(lang, "jd-button-change"), callbacks.JobMatchAction("c", match_id).encode()),
         (texts.t(lang, "jd-button-cancel"), callbacks.JobMatchAction("x", match_id).encode())],
    ])


def field_keyboard(context: CoachContext, lang: str, match: StoredMatch) -> InlineKeyboardMarkup:
    """Every field of the bank, alphabetically, each pointing at its place in the ranking."""
    bank, texts = context.services.bank, context.services.texts
    ranks = {ranked.field: rank for rank, ranked in enumerate(match.ranking)
             if ranked.field in bank.fields}
    buttons = [(bank.field_name(field, lang), callbacks.JobMatchField(match.id, ranks[field]).encode())
               for field in sorted(ranks)]
    cancel = (texts.t(lang, "jd-button-cancel"), callbacks.JobMatchAction("x", match.id).encode())
    return keyboard([*button_rows(buttons), [cancel]])


async def rank_and_answer(update: Update, context: CoachContext, user: User, lang: str,
                          text: str) -> None:
    """Rank the ad, keep only the result (fields, topics, level), and show it."""
    services = context.services
    if len(text.split()) < MIN_WORDS:
        await store.start_waiting(services.db, user_id=user.user_id,
                                  until=now_ts(context) + WAIT_MINUTES * 60)
        await reply(update, services.texts.t(lang, "jd-too-short"))
        return
    matcher = await ready_matcher(services.bank, services.settings.cache_folder,
                                     services.settings.questions_dir)
    result = await asyncio.to_thread(matcher.match, text)
    # Without a confident match, chance words are all that tie the ad to a field's topics:
    # a field picked from the list then gets no plan.
    ranking = [RankedField(f.field, f.confidence,
                           tuple(t.topic for t in f.topics) if result.best else ())
               for f in result.fields]
    match_id = await store.save_match(services.db, user_id=user.user_id,
                                      level=result.level.level, ranking=ranking,
                                      now=now_ts(context))
    if result.best is None:
        stored = StoredMatch(match_id, user.user_id, result.level.level, tuple(ranking))
        await reply(update, services.texts.t(lang, "jd-no-match"),
                    field_keyboard(context, lang, stored))
        return
    await reply(update, result_html(context, lang, result),
                result_keyboard(context, lang, match_id, 0))


async def jd(update: Update, context: CoachContext) -> None:
    """/jd [ad]: wait for the ad in the next message, or rank the one pasted after the command."""
    user, lang = context.user, context.lang
    if update.effective_chat is None or update.effective_chat.type != ChatType.PRIVATE:
        await reply(update, context.t("jd-private-only"))
        return
    # The ad may follow the command in the same message ("/jd Senior Go Engineer ...").
    command_and_ad = (update.effective_message.text or "").split(maxsplit=1)
    if len(command_and_ad) == 2:
        await rank_and_answer(update, context, user, lang, command_and_ad[1])
        return
    await store.start_waiting(context.services.db, user_id=user.user_id,
                              until=now_ts(context) + WAIT_MINUTES * 60)
    await reply(update, context.t("jd-prompt", limit=MAX_FILE_KB, minutes=WAIT_MINUTES))


async def read_document(message: Message, context: CoachContext, lang: str) -> str | None:
    """A .txt document's text, or None after telling the user why it can't be read."""
    texts = context.services.texts
    document = message.document
    name = (document.file_name or "").lower()
    mime = (document.mime_type or "").lower()
    if name.endswith(".pdf") or mime == "application/pdf":
        await message.reply_text(texts.t(lang, "jd-pdf"))
        return None
    if not (name.endswith(".txt") or mime == "text/plain"):
        await message.reply_text(texts.t(lang, "jd-not-text"))
        return None
    limit = MAX_FILE_KB * 1024
    if document.file_size is not None and document.file_size > limit:
        await message.reply_text(texts.t(lang, "jd-too-big", limit=MAX_FILE_KB,
                                         size=math.ceil(document.file_size / 1024)))
        return None
    data = bytes(await (await document.get_file()).download_as_bytearray())
    if len(data) > limit:
        await message.reply_text(texts.t(lang, "jd-too-big", limit=MAX_FILE_KB,
                                         size=math.ceil(len(data) / 1024)))
        return None
    text = read_text_file(data)
    if text is None:
        await message.reply_text(texts.t(lang, "jd-not-text"))
    return text


async def receive_ad(update: Update, context: CoachContext) -> None:
    """The message after /jd: the ad, or a clear word on why it can't be read."""
    message = update.message
    services = context.services
    if message is None or update.effective_user is None or not await store.is_waiting(
            services.db, user_id=update.effective_user.id, now=now_ts(context)):
        return  # not waiting for an ad: the other handlers see this message
    user, lang = context.user, context.lang
    text: str | None = None
    if message.text is not None:
        text = message.text
    elif message.document is not None:
        text = await read_document(message, context, lang)
    elif message.photo and len((message.caption or "").split()) >= MIN_WORDS:
        text = message.caption  # a post forwarded from a jobs channel: the ad is the caption
    elif message.photo:
        await message.reply_text(context.t("jd-photo"))
    else:
        await message.reply_text(context.t("jd-not-text"))
    if text is not None:
        await rank_and_answer(update, context, user, lang, text)
    raise ApplicationHandlerStop  # this message was the ad (or a try at one): nobody else's


async def pressed_match(context: CoachContext, user: User, match_id: int) -> StoredMatch | None:
    """The user's ranked ad a button points at, or None (used, replaced, someone else's)."""
    return await store.get_match(context.services.db, match_id=match_id, user_id=user.user_id)


async def jobmatch_button(update: Update, context: CoachContext) -> None:
    """`Use this`, `Change field` and `Cancel` under a ranked ad."""
    query = update.callback_query
    data = callbacks.JobMatchAction.parse(query.data)
    user, lang = context.user, context.lang
    action = data.action if data else ""
    match = await pressed_match(context, user, data.match_id) if data else None
    if data is None or match is None:
        await query.answer(context.toast("jd-toast-expired"))
    elif action == "u":
        await use_match(update, context, user, lang, match, data.rank)
    elif action == "c":
        await query.answer()
        await edit_or_ignore(context, query.message, context.t("jd-choose-field"),
                             field_keyboard(context, lang, match))
    else:
        await query.answer()
        await store.discard_match(context.services.db, match_id=match.id, user_id=user.user_id)
        await edit_or_ignore(context, query.message, context.t("jd-cancelled"))


async def use_match(update: Update, context: CoachContext, user: User, lang: str,
                    match: StoredMatch, rank: int | None) -> None:
    """`Use this`: set field and level, start the plan, and offer the first question."""
    query = update.callback_query
    services = context.services
    texts, bank = services.texts, services.bank
    ranked = match.at(rank) if rank is not None else None
    topics = [t for t in ranked.topics if bank.topic(ranked.field, t)] if ranked else []
    if ranked is None or ranked.field not in bank.fields or not await store.adopt_match(
            services.db, match_id=match.id, user_id=user.user_id, field=ranked.field,
            level=match.level, topics=topics, now=now_ts(context)):
        await query.answer(texts.t(lang, "jd-toast-expired"))
        return
    await query.answer()
    names = {"field": bank.field_name(ranked.field, lang),
             "level": level_name(context, lang, match.level)}
    done = (texts.t(lang, "jd-plan-started", count=len(topics), **names) if topics
            else texts.t(lang, "jd-set-no-plan", **names))
    shown = query.message.text_html if query.message and query.message.text else ""
    start = keyboard([[(texts.t(lang, "button-start-practice"), callbacks.Next().encode())]])
    await edit_or_ignore(context, query.message, f"{shown}\n\n{done}".strip(), start)


async def choose_jobmatch_field(update: Update, context: CoachContext) -> None:
    """A field picked for a ranked ad (after `Change field`, or when nothing matched)."""
    query = update.callback_query
    services = context.services
    data = callbacks.JobMatchField.parse(query.data)
    user, lang = context.user, context.lang
    match = await pressed_match(context, user, data.match_id) if data else None
    rank = data.rank if data else None
    ranked = match.at(rank) if match and rank is not None else None
    if match is None or rank is None or ranked is None \
            or ranked.field not in services.bank.fields:
        await query.answer(context.toast("jd-toast-expired"))
        return
    await query.answer()
    await edit_or_ignore(context, query.message, chosen_field_html(context, lang, match, ranked),
                         result_keyboard(context, lang, match.id, rank))


async def plan(update: Update, context: CoachContext) -> None:
    """/plan [off]: the plan's topics and progress on each, or end it."""
    user, lang = context.user, context.lang
    services = context.services
    bank = services.bank
    argument = context.args[0].lower() if context.args else ""
    if argument == "off":
        ended = await store.end_plan(services.db, user_id=user.user_id)
        await reply(update, context.t("plan-ended" if ended else "plan-off-none"))
        return
    if argument:
        await reply(update, context.t("plan-bad-argument"))
        return
    stored = await store.get_plan(services.db, user_id=user.user_id)
    if stored is None:
        await reply(update, context.t("plan-none"))
        return
    level = user.level or stored.level
    started = datetime.fromtimestamp(stored.started_at, UTC).astimezone(
        streaks.zone(user.timezone, user.language))
    lines = [context.t("plan-header", field=bank.field_name(stored.field, lang),
                     level=level_name(context, lang, level),
                     date=context.services.texts.date(lang, started.date()))]
    progress = await store.plan_progress(services.db, plan=stored)
    topics = [t for t in stored.topics if bank.topic(stored.field, t)]
    for number, topic in enumerate(topics, start=1):
        pool = bank.pool(stored.field, level, topic) or bank.pool(stored.field, None, topic)
        done = progress.get(topic)
        # Both sides count the same questions: the level's pool plus any other question of the
        # topic already answered (a review, another level), so "1 answered" never sits next to
        # "0 seen".
        topic_ids = {q.id for q in bank.pool(stored.field, None, topic)}
        ids = {q.id for q in pool} | (done.question_ids & topic_ids if done else set())
        name = bank.topic_name(stored.field, topic, lang)
        if done is None:
            lines.append(context.t("plan-topic-new", number=number, topic=name,
                                 count=len(ids)))
        else:
            lines.append(context.t("plan-topic", number=number, topic=name,
                                 answered=done.answered,
                                 accuracy=percent(done.correct, done.answered),
                                 seen=len(done.question_ids & ids), total=len(ids)))
    if user.field != stored.field:
        lines += ["", context.t("plan-other-field", field=bank.field_name(stored.field, lang),
                              current=bank.field_name(user.field, lang) if user.field else "—",
                              key=stored.field)]
    lines += ["", context.t("plan-footer")]
    await reply(update, "\n".join(lines))


async def on_startup(app: Application) -> None:
    """Build (or read back) the matcher in the background, so the first ad is ranked at full
    speed without holding up the start. It begins once the bot polls (the job queue starts
    after the updater): reading or building it holds the GIL for a while, which would slow
    the rest of the start-up."""
    services = services_of(app)
    ready = asyncio.get_running_loop().create_future()
    app.bot_data["matcher_warm_up"] = ready

    async def warm_up(_: object) -> None:
        try:
            ready.set_result(await ready_matcher(services.bank, services.settings.cache_folder,
                                     services.settings.questions_dir))
        except Exception as exc:  # noqa: BLE001 - a /jd builds it again and reports what fails
            ready.set_exception(exc)

    assert app.job_queue is not None
    app.job_queue.run_once(warm_up, 0, name="matcher-warm-up")


def register(app: Application) -> None:
    app.add_handler(CommandHandler("jd", jd, filters=NEW_MESSAGES))
    app.add_handler(CommandHandler("plan", plan, filters=NEW_MESSAGES))
    app.add_handler(CallbackQueryHandler(jobmatch_button,
                                         pattern=callbacks.JobMatchAction.pattern()))
    app.add_handler(CallbackQueryHandler(choose_jobmatch_field,
                                         pattern=callbacks.JobMatchField.pattern()))
    app.add_handler(MessageHandler(
        NEW_MESSAGES & filters.ChatType.PRIVATE & ~filters.COMMAND, receive_ad),
        group=AD_GROUP)
