"""/stats: answered, correct, accuracy, streaks and the weakest topics."""

from __future__ import annotations

from telegram import Update
from telegram.ext import Application, CommandHandler

from bot.context import CoachContext
from domain import progress, streaks
from handlers.common import current_user, reply
from storage.answers import topic_totals
from storage.users import get_user

COMMANDS = ("stats",)


async def stats_text(context: CoachContext, user_id: int, lang: str) -> str | None:
    """The text summary, or None when the user has answered nothing yet."""
    services = context.services
    user = await get_user(services.db, user_id=user_id)
    if user is None or user.answered == 0:
        return None
    texts, bank = services.texts, services.bank
    today = streaks.local_day(services.now(), streaks.zone(user.timezone, user.language))
    lines = [texts.t(lang, "stats", answered=user.answered, correct=user.correct,
                     accuracy=progress.percent(user.correct, user.answered),
                     streak=streaks.current(user.last_active_day, user.streak_current, today),
                     best=user.streak_best)]
    if user.group_answered:
        lines.append(texts.t(lang, "stats-group-answers", count=user.group_answered))
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


async def stats(update: Update, context: CoachContext) -> None:
    """/stats"""
    user, lang = await current_user(update, context)
    text = await stats_text(context, user.user_id, lang)
    await reply(update, text or context.services.texts.t(lang, "stats-empty"))


def register(app: Application) -> None:
    app.add_handler(CommandHandler("stats", stats))
