"""Group quiz rounds: /round, answer taps, the timed reveal, /stop, /leaderboard, and picking
interrupted rounds back up at start-up. The rules are in domain/rounds.py; the state in SQLite.
"""

from __future__ import annotations

import asyncio
import logging
import time

from telegram import Update
from telegram.error import BadRequest, ChatMigrated, Forbidden, TelegramError
from telegram.ext import (
    Application,
    CallbackQueryHandler,
    CommandHandler,
    JobQueue,
    MessageHandler,
    filters,
)

from bot import callbacks
from bot.context import CoachContext, services_of
from domain import rounds as domain
from domain import streaks
from domain.grading import grade
from handlers.common import NEW_MESSAGES, listing, reply
from handlers.group_settings import DEFAULT_LEVEL, group_language, is_group_admin
from handlers.round_messages import RoundMessages
from questions.loader import Bank
from questions.model import Question
from storage import rounds as store
from storage.answers import NewAnswer

log = logging.getLogger(__name__)
COMMANDS = ("round", "leaderboard", "stop")
LEADERBOARD_SIZE = 10
# After a send fails for a passing reason (network, a long 429), the round tries again.
RETRY_SECONDS = 5.0
# A step that comes due while the bot is busy or starting still runs, however late.
LATE_OK = {"misfire_grace_time": None}


class RoundRuntime:
    """Per process: one lock per group, so a step, a countdown edit and /stop never interleave,
    and each group's send budget. Everything else about a round is in the database."""

    def __init__(self, per_minute: int) -> None:
        self.per_minute = per_minute
        self._locks: dict[int, asyncio.Lock] = {}
        self._budgets: dict[int, domain.SendBudget] = {}

    def lock(self, chat_id: int) -> asyncio.Lock:
        return self._locks.setdefault(chat_id, asyncio.Lock())

    def budget(self, chat_id: int) -> domain.SendBudget:
        if chat_id not in self._budgets:
            self._budgets[chat_id] = domain.SendBudget(self.per_minute, time.monotonic)
        return self._budgets[chat_id]


def runtime(context: CoachContext) -> RoundRuntime:
    return context.bot_data["rounds"]


def now_ms(context: CoachContext) -> int:
    return int(context.services.now().timestamp() * 1000)


def messages(context: CoachContext, lang: str) -> RoundMessages:
    return RoundMessages(context.services.texts, context.services.bank, lang)


# -- timers ------------------------------------------------------------------------------------

def step_name(chat_id: int) -> str:
    return f"round-{chat_id}"


def tick_name(chat_id: int) -> str:
    return f"round-tick-{chat_id}"


def remove_jobs(job_queue: JobQueue, name: str) -> None:
    for job in job_queue.get_jobs_by_name(name):
        job.schedule_removal()


def schedule_step(job_queue: JobQueue, chat_id: int, delay: float,
                  fired: tuple[str, int] | None = None) -> None:
    """Run the round's next step after `delay` seconds; `fired` names the timer, whose firing
    means its time has come even if the bot's clock disagrees (tests freeze it)."""
    remove_jobs(job_queue, step_name(chat_id))
    job_queue.run_once(step_job, max(delay, 0.0), data=(chat_id, fired), name=step_name(chat_id),
                       job_kwargs=LATE_OK)


def schedule_ticks(context: CoachContext, rnd: store.Round, state: domain.QuestionState) -> None:
    remove_jobs(context.job_queue, tick_name(rnd.chat_id))
    every = context.services.settings.round_tick_seconds
    now = now_ms(context)
    assert state.opened_at_ms is not None and state.deadline_ms is not None
    for at in domain.tick_times(state.opened_at_ms, state.deadline_ms, every):
        if at > now:
            context.job_queue.run_once(
                tick_job, (at - now) / 1000, name=tick_name(rnd.chat_id),
                data=(rnd.chat_id, rnd.id, state.position, (state.deadline_ms - at) // 1000))


def cancel_timers(job_queue: JobQueue, chat_id: int) -> None:
    remove_jobs(job_queue, step_name(chat_id))
    remove_jobs(job_queue, tick_name(chat_id))


async def step_job(context: CoachContext) -> None:
    chat_id, fired = context.job.data
    await advance(context, chat_id, fired)


async def tick_job(context: CoachContext) -> None:
    chat_id, round_id, position, seconds_left = context.job.data
    async with runtime(context).lock(chat_id):
        await refresh_countdown(context, round_id, position, seconds_left)


# -- the round, step by step -------------------------------------------------------------------

async def advance(context: CoachContext, chat_id: int,
                  fired: tuple[str, int] | None = None) -> None:
    """Take the group's running round as far as it can go now, then set its next timer."""
    async with runtime(context).lock(chat_id):
        try:
            await run_steps(context, chat_id, fired)
        except (Forbidden, BadRequest, ChatMigrated) as exc:
            # Removed from the group, no right to write, or the group became a supergroup
            # with a new id: the round cannot go on here.
            log.warning("round in chat %s abandoned: %s", chat_id, exc.message)
            rnd = await store.running_round(context.services.db, chat_id=chat_id)
            if rnd is not None:
                await store.end_round(context.services.db, round_id=rnd.id, status=store.STOPPED,
                                      now=int(context.services.now().timestamp()))
            cancel_timers(context.job_queue, chat_id)
        except TelegramError as exc:
            log.warning("round in chat %s will retry: %s", chat_id, exc)
            schedule_step(context.job_queue, chat_id, RETRY_SECONDS)


async def run_steps(context: CoachContext, chat_id: int, fired: tuple[str, int] | None) -> None:
    services = context.services
    budget = runtime(context).budget(chat_id)
    pause_ms = int(services.settings.round_pause_seconds * 1000)
    while True:
        rnd = await store.running_round(services.db, chat_id=chat_id)
        if rnd is None:
            cancel_timers(context.job_queue, chat_id)
            return
        questions = await store.round_questions(services.db, round_id=rnd.id)
        now = now_ms(context)
        step = domain.next_step(questions, now_ms=now, pause_ms=pause_ms)
        if isinstance(step, domain.AwaitDeadline):
            if fired == ("deadline", step.position):
                await store.close_question(services.db, round_id=rnd.id,
                                           position=step.position, now_ms=now)
                continue
            schedule_step(context.job_queue, chat_id, (step.deadline_ms - now) / 1000,
                          ("deadline", step.position))
            schedule_ticks(context, rnd, questions[step.position - 1])
            return
        if isinstance(step, domain.Open):
            due_in = 0.0 if fired == ("open", step.position) else (step.due_ms - now) / 1000
            wait = max(due_in, budget.wait_for(domain.QUESTION_COST))
            if wait > 0:
                schedule_step(context.job_queue, chat_id, wait, ("open", step.position))
                return
            await open_question(context, rnd, questions[step.position - 1])
        elif isinstance(step, domain.Reveal):
            await reveal(context, rnd, step.position)
        else:
            wait = budget.wait_for(1)
            if wait > 0:
                schedule_step(context.job_queue, chat_id, wait)
                return
            await finish(context, rnd)
            return
        fired = None


async def open_question(context: CoachContext, rnd: store.Round,
                        state: domain.QuestionState) -> None:
    """Start the question's clock, then send it with one button per option."""
    services = context.services
    db, now = services.db, now_ms(context)
    question = services.bank.questions.get(state.question_id)
    await store.open_question(db, round_id=rnd.id, position=state.position, opened_at_ms=now,
                              deadline_ms=now + rnd.seconds * 1000)
    if question is None:
        # Gone from the bank since the round began: skip it rather than stall the round.
        await store.close_question(db, round_id=rnd.id, position=state.position, now_ms=now)
        await store.mark_reported(db, round_id=rnd.id, position=state.position, now_ms=now)
        return
    view = messages(context, rnd.language)
    sent = await context.bot.send_message(
        rnd.chat_id, view.question(rnd, state.position, question),
        reply_markup=view.answer_keyboard(rnd, state.position, question))
    runtime(context).budget(rnd.chat_id).spend()
    await store.set_message(db, round_id=rnd.id, position=state.position,
                            message_id=sent.message_id)


async def refresh_countdown(context: CoachContext, round_id: int, position: int,
                            seconds_left: int) -> None:
    """Edit the time left and how many have answered into the question, budget permitting."""
    services = context.services
    rnd = await store.get_round(services.db, round_id=round_id)
    state = await store.get_question(services.db, round_id=round_id, position=position)
    if rnd is None or not rnd.is_running or state is None or state.message_id is None \
            or state.closed_at_ms is not None:
        return
    budget = runtime(context).budget(rnd.chat_id)
    if budget.room() < 1 + 2:  # this edit, and still room for the reveal edit and results
        return
    question = services.bank.questions.get(state.question_id)
    if question is None:
        return
    answered = await store.answer_count(services.db, round_id=round_id, position=position)
    view = messages(context, rnd.language)
    text = view.question(rnd, position, question, seconds_left=seconds_left, answered=answered)
    if await edit_text(context, rnd.chat_id, state.message_id, text,
                       view.answer_keyboard(rnd, position, question)):
        budget.spend()


async def reveal(context: CoachContext, rnd: store.Round, position: int) -> None:
    """Close the question, edit the right answer into it, post the explanation and who got it
    right, fastest first."""
    services = context.services
    db = services.db
    remove_jobs(context.job_queue, tick_name(rnd.chat_id))
    await store.close_question(db, round_id=rnd.id, position=position, now_ms=now_ms(context))
    state = await store.get_question(db, round_id=rnd.id, position=position)
    question = services.bank.questions.get(state.question_id) if state else None
    if state is not None and question is not None:
        results = await store.question_results(db, round_id=rnd.id, position=position)
        view = messages(context, rnd.language)
        budget = runtime(context).budget(rnd.chat_id)
        if state.message_id is not None and await edit_text(
                context, rnd.chat_id, state.message_id,
                view.revealed(rnd, position, question, results)):
            budget.spend()
        await context.bot.send_message(rnd.chat_id, view.results(question, results))
        budget.spend()
    await store.mark_reported(db, round_id=rnd.id, position=position, now_ms=now_ms(context))


async def finish(context: CoachContext, rnd: store.Round) -> None:
    services = context.services
    view = messages(context, rnd.language)
    standings = await store.round_standings(services.db, round_id=rnd.id)
    await context.bot.send_message(rnd.chat_id,
                                   view.scoreboard(view.t("round-over"), standings))
    runtime(context).budget(rnd.chat_id).spend()
    await store.end_round(services.db, round_id=rnd.id, status=store.FINISHED,
                          now=int(services.now().timestamp()))
    cancel_timers(context.job_queue, rnd.chat_id)


async def edit_text(context: CoachContext, chat_id: int, message_id: int, text: str,
                    markup=None) -> bool:
    """Edit a round message; a deleted or unchanged message is not worth stopping for."""
    try:
        await context.bot.edit_message_text(text, chat_id=chat_id, message_id=message_id,
                                            reply_markup=markup)
        return True
    except BadRequest as exc:
        log.info("round edit skipped: %s", exc.message)
        return False


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
    group, lang = await group_language(context, chat.id, tg_user)
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
    rnd = await store.create_round(db, chat_id=chat.id, started_by=tg_user.id, language=lang,
                                   seconds=request.seconds, question_ids=[q.id for q in picked],
                                   now=int(services.now().timestamp()))
    if rnd is None:
        await reply(update, texts.t(lang, "round-already-running"))
        return
    try:
        await reply(update, view.announcement(rnd, tg_user.first_name,
                                              view.scope(field, level, request.topic),
                                              request.count))
        runtime(context).budget(chat.id).spend()
    except TelegramError as exc:
        log.info("round announcement not sent: %s", exc)
    await advance(context, chat.id)


async def stop_command(update: Update, context: CoachContext) -> None:
    """/stop in a group: end the round; for whoever started it and the group's admins."""
    services = context.services
    chat, tg_user = update.effective_chat, update.effective_user
    _, lang = await group_language(context, chat.id, tg_user)
    rnd = await store.running_round(services.db, chat_id=chat.id)
    if rnd is None:
        await reply(update, services.texts.t(lang, "round-none-running"))
        return
    if tg_user.id != rnd.started_by and not await is_group_admin(update, context):
        await reply(update, services.texts.t(lang, "round-stop-refused"))
        return
    async with runtime(context).lock(chat.id):
        if not await store.end_round(services.db, round_id=rnd.id, status=store.STOPPED,
                                     now=int(services.now().timestamp())):
            return  # it ended while we asked Telegram about the member
        cancel_timers(context.job_queue, chat.id)
        questions = await store.round_questions(services.db, round_id=rnd.id)
        current = next((q for q in questions if q.is_live and q.reported_at_ms is None), None)
        if current is not None:
            await reveal_closed(context, rnd, current)
        asked = sum(1 for q in questions if q.is_live)
        view = messages(context, rnd.language)
        standings = await store.round_standings(services.db, round_id=rnd.id)
        heading = view.t("round-stopped", name=tg_user.first_name, asked=asked,
                         total=rnd.question_count)
        await reply(update, view.scoreboard(heading, standings))
        runtime(context).budget(chat.id).spend()


async def reveal_closed(context: CoachContext, rnd: store.Round,
                        state: domain.QuestionState) -> None:
    """On /stop: the live question shows its answer and loses its buttons; no results post."""
    db = context.services.db
    await store.close_question(db, round_id=rnd.id, position=state.position,
                               now_ms=now_ms(context))
    question = context.services.bank.questions.get(state.question_id)
    if question is not None and state.message_id is not None:
        results = await store.question_results(db, round_id=rnd.id, position=state.position)
        view = messages(context, rnd.language)
        if await edit_text(context, rnd.chat_id, state.message_id,
                           view.revealed(rnd, state.position, question, results)):
            runtime(context).budget(rnd.chat_id).spend()
    await store.mark_reported(db, round_id=rnd.id, position=state.position,
                              now_ms=now_ms(context))


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
        await query.answer(context.t("round-toast-expired"))
        return
    position, key = data.position, data.option
    target = await store.tap_target(services.db, round_id=data.round_id, position=position)
    rnd, state = target if target else (None, None)
    question = services.bank.questions.get(state.question_id) if state else None
    choice = grade(question, key) if question else None
    if rnd is None or rnd.chat_id != chat_id or choice is None or query.message is None:
        await query.answer(context.t("round-toast-expired"))
        return
    now = services.now()
    moment = int(now.timestamp() * 1000)
    if not rnd.is_running or not state.accepts_taps(moment):
        await query.answer(context.t("round-toast-closed"))
        return
    elapsed = max(0, moment - (state.opened_at_ms or moment))
    tap = await store.record_round_answer(
        services.db, round_id=rnd.id, position=position,
        answer=NewAnswer(
            user_id=user.user_id, question_id=question.id, field=question.field,
            topic=question.topic, level=question.seniority, chosen=choice.chosen,
            is_correct=choice.is_correct, answered_at=int(now.timestamp()), chat_id=chat_id,
            message_id=query.message.message_id, source="group", elapsed_ms=elapsed),
        points=domain.points(choice.is_correct, elapsed, rnd.seconds),
        today=streaks.local_day(now, streaks.zone(user.timezone, user.language)))
    letter = (tap.chosen or "").upper()
    if tap.outcome == "recorded":
        await query.answer(context.t("round-toast-locked", choice=letter))
    elif tap.outcome == "already":
        await query.answer(context.t("round-toast-already", choice=letter))
    else:
        await query.answer(context.t("round-toast-closed"))


async def follow_migration(update: Update, context: CoachContext) -> None:
    """A group upgraded to a supergroup mid-round: handlers/groups.py has moved the round to the
    new id (it runs first); the round's timers follow it there, and the question in progress is
    asked again in the new chat (answers already given still count)."""
    message = update.effective_message
    if message is None or not message.migrate_to_chat_id:
        return
    cancel_timers(context.job_queue, message.chat_id)
    new_id = message.migrate_to_chat_id
    rnd = await store.running_round(context.services.db, chat_id=new_id)
    if rnd is not None:
        async with runtime(context).lock(new_id):
            await store.forget_messages(context.services.db, round_id=rnd.id)
        schedule_step(context.job_queue, new_id, 0.0)


# -- wiring --------------------------------------------------------------------------------------

# After handlers/groups.py's migration handler, which is in the default handler group.
AFTER_GROUPS = 1

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


async def on_startup(app: Application) -> None:
    """Pick up rounds a restart interrupted: resume a question with time left, else reveal it
    and carry on (the first step decides which, from the state in SQLite)."""
    services = services_of(app)
    app.bot_data["rounds"] = RoundRuntime(services.settings.round_sends_per_minute)
    for rnd in await store.running_rounds(services.db):
        log.info("resuming round %s in chat %s", rnd.id, rnd.chat_id)
        schedule_step(app.job_queue, rnd.chat_id, 0.0)
