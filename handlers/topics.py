"""/topics: every topic of the user's field with its progress, weakest first, one tap to practise."""

from __future__ import annotations

from telegram import Update
from telegram.ext import Application, CommandHandler

from bot import callbacks
from bot.context import CoachContext
from domain import progress
from handlers.common import NEW_MESSAGES, button_rows, fit, keyboard, reply
from questions.markup import plain_length
from questions.render import MESSAGE_LIMIT
from storage.answers import TopicTotal, topic_totals

COMMANDS = ("topics",)
MAX_TOPICS = 40  # keeps the message and its keyboard well inside Telegram's limits


async def topics(update: Update, context: CoachContext) -> None:
    """/topics"""
    user, lang = context.user, context.lang
    services = context.services
    bank = services.bank
    if not user.field or user.field not in bank.fields:
        await reply(update, context.t("need-setup"))
        return
    stored = {t.topic: t for t in await topic_totals(services.db, user_id=user.user_id,
                                                        field=user.field)}
    rows = progress.weakest_first(stored.get(key) or TopicTotal(user.field, key, 0, 0)
                                  for key in bank.fields[user.field].topics)[:MAX_TOPICS]
    lines: list[str] = []
    buttons = []
    for total in rows:
        name = bank.topic_name(user.field, total.topic, lang)
        if total.answered:
            lines.append(context.t("topics-line", topic=name, answered=total.answered,
                                 bar=progress.bar(total.correct, total.answered),
                                 accuracy=progress.percent(total.correct, total.answered)))
        else:
            lines.append(context.t("topics-line-new", topic=name))
        buttons.append((name, callbacks.TopicPick(total.topic).encode()))
    # However many topics and however long their names, the list fits one message.
    hint = context.t("topics-hint")
    text = fit(context.t("topics-title", field=bank.field_name(user.field, lang)), lines,
               lambda left_out: context.t("and-more", count=left_out),
               limit=MESSAGE_LIMIT - plain_length(hint) - 2)
    await reply(update, text + "\n\n" + hint, keyboard(button_rows(buttons)))


def register(app: Application) -> None:
    app.add_handler(CommandHandler("topics", topics, filters=NEW_MESSAGES))
