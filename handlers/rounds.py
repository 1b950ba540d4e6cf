"""Group quiz rounds: /round, answer taps, the timed reveal, /stop, /leaderboard, and picking
interrupted rounds back up at start-up. The rules are in domain/rounds.py; the state in SQLite.
"""

from __future__ import annotations

import logging

from telegram import Update
from telegram.constants import ChatMemberStatus, ChatType
from telegram.error import TelegramError
from telegram.ext import (
    Application,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    MessageHandler,
    filters,
)

from bot import callbacks
from bot.context import CoachContext, services_of
from bot.forum import topic_of
from domain import rounds as domain
from domain import streaks
from domain.grading import grade
from handlers.common import NEW_MESSAGES, actor_id, actor_name, listing, reply
from handlers.group_settings import DEFAULT_LEVEL, group_language, is_group_admin
from handlers.round_messages import RoundMessages, shown_order
from questions import render
from questions.loader import Bank
from questions.model import Question
from services import answers
from services import rounds as round_flow
from services.rounds import RoundEngine, step_name
from storage import coordination
from storage import rounds as store

log = logging.getLogger(__name__)
COMMANDS = ("round", "leaderboard", "stop")
LEADERBOARD_SIZE = 10
# Several instances: how often each looks for round timers whose instance died.
TAKE_OVER_EVERY_SECONDS = 1.0


def engine(context: CoachContext) -> RoundEngine:
    return context.bot_data["round_engine"]


def messages(context: CoachContext, lang: str) -> RoundMessages:
    return RoundMessages(context.services.texts, context.services.bank, lang)


# -- commands ----------------------------------------------------------------------------------

def question_pools(bank: Bank, field: str | None, level: str,
                   topic: str | None) -> list[list[Question]]:
    """The group's level first; other levels of the same field (and topic) if it runs short."""
    return [bank.pool(field, level, topic), bank.pool(field, None, topic)]


def topics_of(bank: Bank, field: str | None) -> list[str]:
    fields = [field] if field else list(bank.fields)
    return sorted({key for f in fields for key in bank.fields[f].topics})


async def round_command(update: Update, context: CoachContext) -> None:
    """/round [N] [seconds] [topic] in a group."""
    services = context.services
    texts, bank, db = services.texts, services.bank, services.db
    chat, tg_user = update.effective_chat, update.effective_user
    group, lang = await group_language(context, chat.id, tg_user, adopt=True)
    try:
        request = domain.parse_round_args(context.args or [],
                                          min_seconds=services.settings.round_min_seconds)
    except domain.BadRoundArgs:
        low, high = domain.seconds_range(services.settings.round_min_seconds)
        await reply(update, texts.t(
            lang, "round-bad-args", min_count=domain.MIN_QUESTIONS,
            max_count=domain.MAX_QUESTIONS, default_count=domain.DEFAULT_QUESTIONS,
            min_seconds=low, max_seconds=high,
            default_seconds=min(max(domain.DEFAULT_SECONDS, low), high)))
        return
    if await store.running_round(db, chat_id=chat.id) is not None:
        await reply(update, texts.t(lang, "round-already-running"))
        return
    field = group.field if group.field in bank.fields else None
    level = group.level or DEFAULT_LEVEL
    view = messages(context, lang)
    if request.topic and request.topic not in topics_of(bank, field):
        await reply(update, texts.t(lang, "round-bad-topic", value=request.topic[:48],
                                    scope=view.scope(field, level, None),
                                    values=listing(topics_of(bank, field))))
        return
    recent = await store.recent_question_ids(db, chat_id=chat.id)
    picked = domain.pick_questions(question_pools(bank, field, level, request.topic),
                                   request.count, context.rng, key=lambda q: q.id, recent=recent)
    if not picked:
        await reply(update, texts.t(lang, "round-no-questions",
                                    scope=view.scope(field, level, request.topic)))
        return
    rnd = await store.create_round(db, chat_id=chat.id, started_by=actor_id(update) or tg_user.id,
                                   language=lang,
                                   seconds=request.seconds, question_ids=[q.id for q in picked],
                                   now=int(services.now().timestamp()),
                                   thread_id=topic_of(update.effective_message))
    if rnd is None:
        await reply(update, texts.t(lang, "round-already-running"))
        return
    try:
        await reply(update, view.announcement(rnd, actor_name(update),
                                              view.scope(field, level, request.topic),
                                              request.count))
        engine(context).budget(chat.id).spend()
    except TelegramError as exc:
        log.info("round announcement not sent: %s", exc)
    await engine(context).advance(chat.id)


async def stop_command(update: Update, context: CoachContext) -> None:
    """/stop in a group: end the round; for whoever started it and the group's admins."""
    services = context.services
    chat, tg_user = update.effective_chat, update.effective_user
    _, lang = await group_language(context, chat.id, tg_user)
    rnd = await store.running_round(services.db, chat_id=chat.id)
    if rnd is None:
        await reply(update, services.texts.t(lang, "round-none-running"))
        return
    if actor_id(update) != rnd.started_by and not await is_group_admin(update, context):
        await reply(update, services.texts.t(lang, "round-stop-refused"))
        return
    rounds = engine(context)
    async with rounds.lock(chat.id):
        if not await store.end_round(services.db, round_id=rnd.id, status=store.STOPPED,
                                     now=int(services.now().timestamp())):
            return  # it ended while we asked Telegram about the member
        await rounds.cancel_timers(chat.id)
        questions = await store.round_questions(services.db, round_id=rnd.id)
        current = next((q for q in questions if q.is_live and q.reported_at_ms is None), None)
        if current is not None:
            await rounds.reveal_closed(rnd, current)
        asked = sum(1 for q in questions if q.is_live)
        view = messages(context, rnd.language)
        standings = await store.round_standings(services.db, round_id=rnd.id)
        heading = view.t("round-stopped", name=actor_name(update), asked=asked,
                         count=rnd.question_count)
        await reply(update, view.scoreboard(heading, standings))
        rounds.budget(chat.id).spend()


async def leaderboard_command(update: Update, context: CoachContext) -> None:
    """/leaderboard in a group: this week's and all-time top players."""
    services = context.services
    chat = update.effective_chat
    _, lang = await group_language(context, chat.id, update.effective_user)
    since = domain.week_start(services.now(), streaks.zone(None, lang))
    week = await store.leaderboard(services.db, chat_id=chat.id, since=int(since.timestamp()))
    all_time = await store.leaderboard(services.db, chat_id=chat.id)
    await reply(update, messages(context, lang).leaderboard(chat.title or "", week, all_time,
                                                            LEADERBOARD_SIZE))


async def group_only(update: Update, context: CoachContext) -> None:
    """/round, /leaderboard or /stop in a private chat: say they are for groups, and how."""
    lang = context.lang
    username = context.bot.username
    await reply(update, context.services.texts.t(
        lang, "round-group-only", bot=username,
        link=f"https://t.me/{username}?startgroup=round"))


# -- taps ----------------------------------------------------------------------------------------

async def receive_round_answer(update: Update, context: CoachContext) -> None:
    """A tap on a round question's letter: the member's first tap counts, told only to them."""
    query = update.callback_query
    services = context.services
    user = context.user
    data = callbacks.RoundAnswer.parse(query.data)
    chat_id = query.message.chat.id if query.message else None
    if data is None:
        await query.answer(context.toast("round-toast-expired"))
        return
    position, key = data.position, data.option
    target = await store.tap_target(services.db, round_id=data.round_id, position=position)
    rnd, state = target if target else (None, None)
    question = services.bank.questions.get(state.question_id) if state else None
    choice = grade(question, key) if question else None
    if rnd is None or state is None or rnd.chat_id != chat_id or question is None \
            or choice is None or query.message is None:
        await query.answer(context.toast("round-toast-expired"))
        return
    now = services.now()
    moment = int(now.timestamp() * 1000)
    if not rnd.is_running or not state.accepts_taps(moment):
        await query.answer(context.toast("round-toast-closed"))
        return
    elapsed = max(0, moment - (state.opened_at_ms or moment))
    tap = await round_flow.record_tap(
        services.db, round_id=rnd.id, position=position,
        answer=answers.new_answer(user, question, choice, now=now, chat_id=chat_id,
                                  message_id=query.message.message_id, source="group",
                                  elapsed=elapsed),
        points=domain.points(choice.is_correct, elapsed, rnd.seconds))
    # The letter the member saw: the stored key's place in the round's shown order.
    order = shown_order(rnd, position, question)
    chosen = tap.chosen or ""
    letter = render.option_label(chosen, order) if chosen and chosen in order else ""
    if tap.outcome == "recorded":
        await query.answer(context.toast("round-toast-locked", choice=letter))
        await engine(context).reveal_if_all_answered(rnd, position)
    elif tap.outcome == "already":
        await query.answer(context.toast("round-toast-already", choice=letter))
    else:
        await query.answer(context.toast("round-toast-closed"))


async def follow_migration(update: Update, context: CoachContext) -> None:
    """A group upgraded to a supergroup mid-round: handlers/group_migration.py has moved the round to the
    new id (it runs first); the round's timers follow it there, and the question in progress is
    asked again in the new chat (answers already given still count)."""
    message = update.effective_message
    if message is None or not message.migrate_to_chat_id:
        return
    rounds = engine(context)
    await rounds.cancel_timers(message.chat_id)
    new_id = message.migrate_to_chat_id
    rnd = await store.running_round(context.services.db, chat_id=new_id)
    if rnd is not None:
        async with rounds.lock(new_id):
            await store.forget_messages(context.services.db, round_id=rnd.id)
        await rounds.schedule_step(new_id, 0.0)


async def bot_removed(update: Update, context: CoachContext) -> None:
    """The bot was removed from a group (or lost the right to write): its round ends now,
    rather than failing on each timer."""
    member = update.my_chat_member
    if member is None or member.chat.type == ChatType.PRIVATE:
        return
    status = member.new_chat_member.status
    can_write = getattr(member.new_chat_member, "can_send_messages", True)
    if status in (ChatMemberStatus.LEFT, ChatMemberStatus.BANNED) or can_write is False:
        rounds = engine(context)
        async with rounds.lock(member.chat.id):
            await rounds.end_running(member.chat.id)


# -- wiring --------------------------------------------------------------------------------------

# After handlers/group_migration.py's migration handler, which is in the default handler group.
AFTER_GROUPS = 1
MEMBERSHIP = 2

def register(app: Application) -> None:
    groups = NEW_MESSAGES & filters.ChatType.GROUPS
    private = NEW_MESSAGES & filters.ChatType.PRIVATE
    app.add_handler(CommandHandler("round", round_command, filters=groups))
    app.add_handler(CommandHandler("stop", stop_command, filters=groups))
    app.add_handler(CommandHandler("leaderboard", leaderboard_command, filters=groups))
    app.add_handler(CommandHandler(list(COMMANDS), group_only, filters=private))
    app.add_handler(CallbackQueryHandler(receive_round_answer,
                                         pattern=callbacks.RoundAnswer.pattern()))
    app.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, follow_migration),
                    group=AFTER_GROUPS)
    # Its own group: the reminders' my_chat_member handler (group 1) sees the same updates.
    app.add_handler(ChatMemberHandler(bot_removed, ChatMemberHandler.MY_CHAT_MEMBER),
                    group=MEMBERSHIP)


async def on_startup(app: Application) -> None:
    """Pick up rounds a restart interrupted: resume a question with time left, else reveal it
    and carry on (the first step decides which, from the state in SQLite)."""
    services = services_of(app)
    assert app.job_queue is not None
    rounds = RoundEngine(services, app.bot, app.job_queue,
                         lambda lang: RoundMessages(services.texts, services.bank, lang))
    app.bot_data["round_engine"] = rounds
    for rnd in await store.running_rounds(services.db):
        log.info("resuming round %s in chat %s", rnd.id, rnd.chat_id)
        timer = await coordination.get_timer(services.db, name=step_name(rnd.chat_id)) \
            if rounds.shared else None
        if timer is not None:
            rounds.adopt(rnd.chat_id, timer)
        else:
            await rounds.schedule_step(rnd.chat_id, 0.0)
    if rounds.shared:
        app.job_queue.run_repeating(rounds.take_over, interval=TAKE_OVER_EVERY_SECONDS,
                                    first=TAKE_OVER_EVERY_SECONDS, name="round-take-over",
                                    job_kwargs={"max_instances": 1, "coalesce": True})
