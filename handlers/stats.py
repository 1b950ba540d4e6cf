"""/stats: answered, correct, accuracy, streaks, the weakest topics, reviews due, and a chart."""

from __future__ import annotations

import logging
from datetime import timedelta

from telegram import Update
from telegram.error import TelegramError
from telegram.ext import Application, CommandHandler

from bot import charts
from bot.context import CoachContext
from bot.services import Services
from bot.texts import Html
from domain import activity, progress, streaks
from handlers.common import NEW_MESSAGES, reply
from storage import review
from storage.answers import topic_totals
from storage.history import daily_tallies
from storage.mistakes import mistake_ids
from storage.users import User, get_user

log = logging.getLogger(__name__)
COMMANDS = ("stats",)


async def stats_text(services: Services, user_id: int, lang: str) -> str | None:
    """The text summary, or None when the user has answered nothing yet."""
    user = await get_user(services.db, user_id=user_id)
    if user is None or user.answered == 0:
        return None
    texts, bank = services.texts, services.bank
    now = services.now()
    today = streaks.local_day(now, streaks.zone(user.timezone, user.language))
    streak = streaks.current(user.last_active_day, user.streak_current, today)
    lines = [texts.t(lang, "stats", answered=user.answered, correct=user.correct,
                     accuracy=progress.percent(user.correct, user.answered),
                     streak=Html(texts.t(lang, "count-days", count=streak)),
                     best=Html(texts.t(lang, "count-days", count=user.streak_best)))]
    if user.group_answered:
        lines.append(texts.t(lang, "stats-group-answers", count=user.group_answered))
    due = await review.due_count(services.db, user_id=user_id, now=now)
    if due:
        lines.append(texts.t(lang, "stats-reviews-due", count=due))
    missed = [qid for qid in await mistake_ids(services.db, user_id=user_id)
              if qid in bank.questions]
    if missed:
        lines.append(texts.t(lang, "stats-mistakes", count=len(missed)))
    weakest = progress.weakest(await topic_totals(services.db, user_id=user_id),
                               known=lambda t: bank.topic(t.field, t.topic) is not None)
    if weakest:
        lines.append("")
        lines.append(texts.t(lang, "stats-weakest"))
        lines.extend(texts.t(lang, "stats-topic-line", topic=bank.topic_name(t.field, t.topic, lang),
                             field=bank.field_name(t.field, lang),
                             accuracy=progress.percent(t.correct, t.answered), answered=t.answered)
                     for t in weakest)
    return "\n".join(lines)


def chart_labels(services: Services, lang: str) -> charts.ChartLabels:
    texts = services.texts
    return charts.ChartLabels(
        accuracy_title=texts.t(lang, "chart-accuracy-title", weeks=activity.WEEKS),
        answers_title=texts.t(lang, "chart-answers-title", days=activity.DAYS),
        right=texts.t(lang, "chart-right"), wrong=texts.t(lang, "chart-wrong"),
        months=texts.t(lang, "month-names").split())


async def progress_chart(services: Services, user: User, lang: str) -> bytes:
    """The PNG: accuracy per week (12 weeks) and answers per day (30 days), in local days."""
    now = services.now()
    tz = streaks.zone(user.timezone, user.language)
    today = streaks.local_day(now, tz)
    offset = int((now.astimezone(tz).utcoffset() or timedelta()).total_seconds())
    first = activity.first_day(today)
    tallies = await daily_tallies(services.db, user_id=user.user_id,
                                  since=activity.day_number(first) * 86400 - offset,
                                  utc_offset=offset)
    return await charts.render_in_process(activity.weekly(tallies, today),
                                         activity.daily(tallies, today),
                                         chart_labels(services, lang))


async def stats(update: Update, context: CoachContext) -> None:
    """/stats: the text at once, then the chart (rendered off the event loop)."""
    user, lang = context.user, context.lang
    services = context.services
    text = await stats_text(services, user.user_id, lang)
    await reply(update, text or context.t("stats-empty"))
    if text is None or update.effective_chat is None:
        return
    png = await progress_chart(services, user, lang)
    try:
        await update.effective_chat.send_photo(png, caption=context.t("chart-caption"))
    except TelegramError as exc:  # the text already arrived; a lost chart is not worth an apology
        log.warning("progress chart not sent: %s", exc)


def register(app: Application) -> None:
    app.add_handler(CommandHandler("stats", stats, filters=NEW_MESSAGES))


async def on_shutdown(app: Application) -> None:
    charts.stop_chart_process()
