"""/remind and /timezone, and the job that sends due reminders through the rate-limited bot.

Reminders live in SQLite (storage/reminders.py). One repeating job claims the due ones a batch
at a time, earliest first, and sends them; the app's AIORateLimiter paces the sends.
"""

from __future__ import annotations

import asyncio
import logging
import time
from datetime import datetime, timedelta, tzinfo
from typing import cast

from telegram import InlineKeyboardMarkup, Update
from telegram.constants import ChatType
from telegram.error import BadRequest, Forbidden, TelegramError
from telegram.ext import Application, CallbackQueryHandler, ChatMemberHandler, CommandHandler

from bot import callbacks, telegram_limits
from bot.context import CoachContext, services_of
from bot.texts import Html, Texts
from domain import reminders, streaks, timezones
from domain.reminders import Schedule
from handlers.common import (
    NEW_MESSAGES,
    chunk,
    edit_or_ignore,
    keyboard,
    own_keyboard,
    reply,
)
from storage import reminders as store
from storage.users import User

log = logging.getLogger(__name__)
COMMANDS = ("remind", "timezone")
JOB_NAME = "reminders"
BATCH = 30  # one second of sending at Telegram's 30 messages/s: a tap waits at most that long
PRESET_TIMES = ("07:00", "08:00", "09:00", "12:30", "18:00", "20:00", "21:00", "22:00")


# --- texts and keyboards -------------------------------------------------------------------

DAY_SET_TEXTS = {0b0011111: "days-weekdays", 0b1100000: "days-weekend"}


def hhmm(moment: datetime) -> str:
    return moment.strftime("%H:%M")


def days_text(texts: Texts, lang: str, mask: int) -> str:
    if mask == reminders.EVERY_DAY:
        return texts.t(lang, "days-every")
    if mask in DAY_SET_TEXTS:  # printed as /remind reads them back: "hafta içi", "weekdays"
        return texts.t(lang, DAY_SET_TEXTS[mask])
    names = [texts.t(lang, f"weekday-{first}") if first == last else
             f"{texts.t(lang, f'weekday-{first}')}–{texts.t(lang, f'weekday-{last}')}"
             for first, last in reminders.weekday_runs(mask)]
    return ", ".join(names)


def when_text(texts: Texts, lang: str, due: datetime, tz: tzinfo, now: datetime) -> str:
    """`today at 09:30`, `tomorrow at 09:30` or `Mon at 09:30`, in the user's zone."""
    local, today = due.astimezone(tz), now.astimezone(tz).date()
    if local.date() == today:
        return texts.t(lang, "next-today", time=hhmm(local))
    if local.date() == today + timedelta(days=1):
        return texts.t(lang, "next-tomorrow", time=hhmm(local))
    return texts.t(lang, "next-weekday", time=hhmm(local),
                   weekday=texts.t(lang, f"weekday-{local.weekday()}"))


def next_sent(user: User, schedule: Schedule, due: datetime, tz: tzinfo,
              now: datetime) -> datetime:
    """The next reminder that will really go out: today's is skipped once the user practised."""
    today = streaks.local_day(now, tz)
    if (not schedule.always and user.last_active_day is not None
            and user.last_active_day >= today and streaks.local_day(due, tz) <= today):
        return reminders.next_occurrence(due, schedule, tz, sent_day=today)[1]
    return due


def status_text(context: CoachContext, user: User, lang: str,
                reminder: store.Reminder | None) -> str:
    """What /remind shows: the setting, the zone it uses and the next reminder, or `off`."""
    texts = context.services.texts
    if reminder is None or reminder.due_at is None:
        return texts.t(lang, "remind-off")
    schedule = reminder.schedule
    zone = timezones.effective_name(user.timezone, user.language)
    tz = timezones.zone(user.timezone, user.language)
    now = context.services.now()
    next_due = next_sent(user, reminder.schedule, reminder.due_at, tz, now)
    return "\n".join([
        texts.t(lang, "remind-on", time=schedule.hhmm,
                days=days_text(texts, lang, schedule.weekdays)),
        texts.t(lang, "remind-zone" if user.timezone else "remind-zone-default", zone=zone),
        texts.t(lang, "remind-next", when=when_text(texts, lang, next_due, tz, now)),
        texts.t(lang, "remind-rule-always") if schedule.always
        else texts.t(lang, "remind-rule-skip", time=schedule.hhmm),
    ])


def remind_keyboard(texts: Texts, lang: str, reminder: store.Reminder | None):
    current = reminder.schedule.hhmm if reminder and reminder.on else None
    times = [(("✓ " if t == current else "") + t, callbacks.ReminderChoice(t.replace(":", "")).encode())
             for t in PRESET_TIMES]
    off = (("✓ " if current is None else "") + texts.t(lang, "button-remind-off"),
           callbacks.ReminderChoice("off").encode())
    return keyboard([*chunk(times, 4), [off]])


def timezone_keyboard(names: list[str] | tuple[str, ...], current: str | None, per_row: int = 2):
    # Zone names hold "/", which callback data does not allow; no IANA name holds ".".
    buttons = [(("✓ " if name == current else "") + name,
                callbacks.TimezoneChoice.of(name).encode()) for name in names]
    return keyboard(chunk(buttons, per_row))


def reminder_message(texts: Texts, lang: str, streak: int, reviews: int,
                     practised_today: bool = False) -> tuple[str, InlineKeyboardMarkup]:
    if practised_today:  # an `always` reminder: the streak is already safe today
        nudge = texts.t(lang, "reminder-nudge-done")
    elif streak:
        nudge = texts.t(lang, "reminder-nudge-keep", days=streak)
    else:
        nudge = texts.t(lang, "reminder-nudge-start")
    text = texts.t(lang, "reminder", streak=Html(texts.t(lang, "count-days", count=streak)),
                   reviews=reviews, nudge=Html(nudge))
    # The same flow as /quiz: handlers/practice.next_question asks at once.
    markup = keyboard([[(texts.t(lang, "button-start-practice"), callbacks.Next().encode())]])
    return text, markup


# --- /remind -------------------------------------------------------------------------------

async def show_reminder(update: Update, context: CoachContext, user: User, lang: str) -> None:
    texts = context.services.texts
    reminder = await store.get_reminder(context.services.db, user_id=user.user_id)
    text = status_text(context, user, lang, reminder) + "\n\n" + texts.t(lang, "remind-how")
    await reply(update, text, remind_keyboard(texts, lang, reminder))


async def remind(update: Update, context: CoachContext) -> None:
    """/remind [HH:MM [days] [always] | off]"""
    user, lang = context.user, context.lang
    services = context.services
    if update.effective_chat is None or update.effective_chat.type != ChatType.PRIVATE:
        await reply(update, context.t("remind-private-only"))
        return
    if not context.args:
        await show_reminder(update, context, user, lang)
        return
    request = reminders.parse_request(context.args)
    if request is None:
        await reply(update, context.t("remind-bad", value=" ".join(context.args)[:40]))
        return
    if request == reminders.OFF:
        await store.turn_off(services.db, user_id=user.user_id, now=services.now())
        await reply(update, context.t("remind-stopped"))
        return
    assert isinstance(request, Schedule)
    saved = await store.save_reminder(services.db, user_id=user.user_id, schedule=request,
                                      now=services.now())
    await reply(update, context.t("remind-saved") + " "
                + status_text(context, user, lang, saved))


def preset_minute(arg: str) -> int | None:
    """`0930` from a time button -> minutes after midnight."""
    return reminders.parse_time(f"{arg[:2]}:{arg[2:]}") if len(arg) == 4 else None


async def choose_reminder(update: Update, context: CoachContext) -> None:
    """A tap on a time, or on Off, under /remind."""
    query = update.callback_query
    data = callbacks.ReminderChoice.parse(query.data)
    user, lang = context.user, context.lang
    services, texts = context.services, context.services.texts
    arg = data.value if data else ""
    minute = preset_minute(arg)
    if arg == "off":
        await store.turn_off(services.db, user_id=user.user_id, now=services.now())
        await query.answer(context.toast("toast-remind-off"))
        reminder = await store.get_reminder(services.db, user_id=user.user_id)
    elif minute is not None:
        # A preset changes the time only: days and `always` stay as the user set them.
        old = await store.get_reminder(services.db, user_id=user.user_id)
        schedule = (Schedule(minute, old.schedule.weekdays, old.schedule.always) if old
                    else Schedule(minute))
        reminder = await store.save_reminder(services.db, user_id=user.user_id,
                                             schedule=schedule, now=services.now())
        await query.answer(context.toast("toast-remind-set", time=schedule.hhmm))
    else:
        await query.answer(context.toast("toast-expired"))
        return
    text = status_text(context, user, lang, reminder) + "\n\n" + context.t("remind-how")
    await edit_or_ignore(context, query.message, text, remind_keyboard(texts, lang, reminder))


# --- /timezone -----------------------------------------------------------------------------

def local_now(context: CoachContext, name: str) -> str:
    return hhmm(context.services.now().astimezone(timezones.zone(name)))


async def timezone_changed(context: CoachContext, user: User, lang: str, name: str) -> str:
    """Store the zone, move the reminder with it, and say so."""
    services, texts = context.services, context.services.texts
    await store.set_timezone(services.db, user_id=user.user_id, timezone=name, now=services.now())
    user.timezone = name
    text = texts.t(lang, "timezone-set", zone=name, time=local_now(context, name))
    reminder = await store.get_reminder(services.db, user_id=user.user_id)
    if reminder and reminder.due_at:
        text += "\n" + texts.t(lang, "timezone-reminder", time=reminder.schedule.hhmm,
                               when=when_text(texts, lang, next_sent(
                                   user, reminder.schedule, reminder.due_at,
                                   timezones.zone(name), services.now()),
                                   timezones.zone(name), services.now()))
    return text


async def timezone_command(update: Update, context: CoachContext) -> None:
    """/timezone [IANA name | UTC offset]"""
    user, lang = context.user, context.lang
    current = timezones.effective_name(user.timezone, user.language)
    if not context.args:
        key = "timezone-current" if user.timezone else "timezone-current-default"
        text = (context.t(key, zone=current, time=local_now(context, current)) + "\n"
                + context.t("timezone-how"))
        await own_keyboard(context, await reply(update, text,
                                                timezone_keyboard(timezones.COMMON, current)))
        return
    typed = " ".join(context.args)
    name = timezones.parse(typed)
    if name is None:
        close = timezones.suggestions(typed)
        text = context.t("timezone-bad", value=typed[:40])
        if close:
            text += "\n" + context.t("timezone-suggest")
        await own_keyboard(context, await reply(
            update, text, timezone_keyboard(close, None, per_row=1) if close else None))
        return
    await reply(update, await timezone_changed(context, user, lang, name))


async def choose_timezone(update: Update, context: CoachContext) -> None:
    """A tap on a zone under /timezone (or under a suggestion)."""
    query = update.callback_query
    data = callbacks.TimezoneChoice.parse(query.data)
    user, lang = context.user, context.lang
    wanted = data.name if data else ""
    name = timezones.parse(wanted) if wanted else None
    if name is None or name != wanted:
        await query.answer(context.toast("toast-expired"))
        return
    await query.answer(context.toast("toast-timezone-set", zone=name))
    if name == user.timezone:
        return
    await edit_or_ignore(context, query.message, await timezone_changed(context, user, lang, name))


# --- sending -------------------------------------------------------------------------------

async def switch_off(context: CoachContext, user_id: int, why: str) -> None:
    services = context.services
    if await store.turn_off(services.db, user_id=user_id, now=services.now()):
        log.info("reminders for user %d switched off: %s", user_id, why)


async def review_count(context: CoachContext, due: store.DueReminder) -> int:
    services = context.services
    try:
        return await services.due_reviews(due.user_id, services.now())
    except Exception:  # noqa: BLE001 - a broken count must not cost the reminder
        log.exception("due-review count failed for user %d", due.user_id)
        return 0


async def send_reminder(context: CoachContext, due: store.DueReminder, reviews: int) -> bool:
    """Send one claimed reminder; True when Telegram accepted it."""
    services = context.services
    lang = services.language_for(due.language, None)
    text, markup = reminder_message(services.texts, lang, due.streak, reviews,
                                    due.practised_today)
    try:
        # The limiter waits out 429s and retries what surely did not arrive (bot/telegram_limits.py).
        await context.bot.send_message(due.user_id, text, reply_markup=markup,
                                       rate_limit_args=telegram_limits.AT_MOST_ONCE)
        return True
    except Forbidden as exc:
        await switch_off(context, due.user_id, f"the user blocked the bot ({exc.message})")
    except BadRequest as exc:
        if "chat not found" in exc.message.lower():
            await switch_off(context, due.user_id, exc.message)
        else:
            log.warning("reminder for user %d refused: %s", due.user_id, exc.message)
    except TelegramError as exc:
        log.warning("reminder for user %d not sent, or not known to be (%s: %s); it is not "
                    "sent again today", due.user_id, type(exc).__name__, exc.message)
    return False


async def bot_blocked(update: Update, context: CoachContext) -> None:
    """Telegram tells us when a user blocks the bot: stop reminding before a send fails."""
    member = update.my_chat_member
    if member is None or member.chat.type != ChatType.PRIVATE:
        return
    if member.new_chat_member.status == "kicked":
        await switch_off(context, member.chat.id, "the user blocked the bot")


async def deliver_due(context: CoachContext) -> None:
    """The repeating job: claim due reminders a batch at a time, earliest first, and send them.

    A burst (100,000 users at 09:00) keeps this run going at the rate limit; later ticks see
    the lock taken and return, so there is only ever one drain and one batch in memory.
    """
    assert context.job is not None
    lock = cast(asyncio.Lock, context.job.data)
    if lock.locked():
        return
    async with lock:
        services = context.services
        started, sent, failed = time.monotonic(), 0, 0
        while context.application.running:
            claim = await store.claim_due(services.db, now=services.now(), limit=BATCH)
            if not claim.settled:
                break
            # Counts first, so the sends reach the limiter's queue in due order.
            counts = [await review_count(context, due) for due in claim.due]
            results = await asyncio.gather(
                *(send_reminder(context, due, n) for due, n in zip(claim.due, counts, strict=True)),
                return_exceptions=True)
            for due, result in zip(claim.due, results, strict=True):
                if isinstance(result, BaseException):
                    log.error("reminder for user %d failed: %r", due.user_id, result)
            sent += sum(result is True for result in results)
            failed += sum(result is not True for result in results)
        if sent or failed:
            log.info("reminders: %d sent, %d not sent, in %.1f s", sent, failed,
                     time.monotonic() - started)


async def on_startup(app: Application) -> None:
    """Start the reminder job; reminders missed while the bot was down go out on its first run."""
    tick = services_of(app).settings.reminder_tick_seconds
    for job in app.job_queue.get_jobs_by_name(JOB_NAME):
        job.schedule_removal()
    # max_instances=2 lets a tick start during a long drain and return at once (see the lock)
    # instead of APScheduler logging a skipped run every tick.
    app.job_queue.run_repeating(
        deliver_due, interval=tick, first=min(tick, 1.0), name=JOB_NAME, data=asyncio.Lock(),
        job_kwargs={"max_instances": 2, "coalesce": True, "misfire_grace_time": None})


def register(app: Application) -> None:
    app.add_handler(CommandHandler("remind", remind, filters=NEW_MESSAGES))
    app.add_handler(CommandHandler("timezone", timezone_command, filters=NEW_MESSAGES))
    app.add_handler(CallbackQueryHandler(choose_reminder,
                                         pattern=callbacks.ReminderChoice.pattern()))
    app.add_handler(CallbackQueryHandler(choose_timezone,
                                         pattern=callbacks.TimezoneChoice.pattern()))
    # Its own handler group, so a feature watching my_chat_member in groups cannot shadow it.
    app.add_handler(ChatMemberHandler(bot_blocked, ChatMemberHandler.MY_CHAT_MEMBER), group=1)
