"""/quiz and the answer buttons: ask a question, grade the tap, explain, offer the next one."""

from __future__ import annotations

import logging
from datetime import datetime

from telegram import Message, Update
from telegram.constants import ChatType
from telegram.ext import Application, CallbackQueryHandler, CommandHandler

from bot import callbacks
from bot.context import CoachContext
from domain import streaks
from domain.grading import grade
from handlers.common import current_user, edit_or_ignore, keyboard, reply
from questions import render
from questions.model import Question
from questions.selection import choose_next, plan_pool
from storage.answers import NewAnswer, record_answer, seen_questions
from storage.jobmatch import plan_topics
from storage.users import User

log = logging.getLogger(__name__)
COMMANDS = ("quiz",)


def question_header(context: CoachContext, question: Question, lang: str) -> str:
    bank, texts = context.services.bank, context.services.texts
    return render.header_html(bank.field_name(question.field, lang),
                              bank.topic_name(question.field, question.topic, lang),
                              texts.t(lang, f"level-{question.seniority}"))


def answer_keyboard(question: Question, owner: int | None, on_topic: bool = False):
    # Self-contained: the question, the option, the asker in a group, whether to stay on the topic.
    extra: tuple = (owner if owner is not None else "", "t") if on_topic else (
        (owner,) if owner is not None else ())
    return keyboard([[(render.option_label(key),
                       callbacks.encode(callbacks.ANSWER, question.key, key, *extra))
                      for key in question.option_keys]])


async def pick_question(context: CoachContext, user: User, topic: str | None = None) -> Question | None:
    """The next question for this user from their field and level (and topic, if given)."""
    bank = context.services.bank
    pool = bank.pool(user.field, user.level, topic)
    if not pool and topic:
        pool = bank.pool(user.field, None, topic)  # a topic may not cover every level
    if topic is None:  # a job-ad plan (/jd) weights its topics
        pool = plan_pool(pool, await plan_topics(context.services.db, user_id=user.user_id,
                                                 field=user.field), context.rng)
    seen = await seen_questions(context.services.db, user_id=user.user_id)
    return choose_next(pool, seen, context.rng)


async def send_question(update: Update, context: CoachContext, question: Question, lang: str,
                        on_topic: bool = False) -> Message | None:
    """Send one question with its letter buttons to the chat of `update`."""
    chat = update.effective_chat
    owner = update.effective_user.id if chat and chat.type != ChatType.PRIVATE else None
    text = render.question_html(question, lang, header=question_header(context, question, lang))
    return await reply(update, text, answer_keyboard(question, owner, on_topic))


async def ask(update: Update, context: CoachContext, user: User, lang: str,
              topic: str | None = None) -> None:
    """Ask the next question, or say why there is none."""
    texts, bank = context.services.texts, context.services.bank
    if not user.field or user.field not in bank.fields or not user.level:
        await reply(update, texts.t(lang, "need-setup"))
        return
    question = await pick_question(context, user, topic)
    if question is None:
        await reply(update, texts.t(lang, "no-questions", field=bank.field_name(user.field, lang),
                                    level=texts.t(lang, f"level-{user.level}")))
        return
    await send_question(update, context, question, lang, on_topic=topic is not None)


async def quiz(update: Update, context: CoachContext) -> None:
    """/quiz [topic]"""
    user, lang = await current_user(update, context)
    topic = context.args[0].lower() if context.args else None
    if topic and user.field and context.services.bank.topic(user.field, topic) is None:
        bank = context.services.bank
        topics = sorted(bank.fields[user.field].topics) if user.field in bank.fields else []
        await reply(update, context.services.texts.t(
            lang, "bad-topic", value=topic[:48], field=bank.field_name(user.field or "", lang),
            values=", ".join(topics) or "—"))
        return
    await ask(update, context, user, lang, topic)


async def next_question(update: Update, context: CoachContext) -> None:
    """`Next ▶` / `Start practice ▶`: remove the button, ask again (on the same topic, if any)."""
    query = update.callback_query
    await query.answer()
    data = callbacks.decode(query.data)
    user, lang = await current_user(update, context)
    seen_key = ("next", query.message.chat_id, query.message.message_id) if query.message else None
    handled = context.bot_data.setdefault("handled_buttons", set())
    if seen_key in handled:
        return  # a double tap on the same Next button asks once
    if seen_key:
        handled.add(seen_key)
        if len(handled) > 10_000:
            handled.clear()
    if query.message and query.message.reply_markup:
        try:
            await query.message.edit_reply_markup(None)
        except Exception as exc:  # noqa: BLE001 - a stale message must not stop the next question
            log.info("could not remove Next button: %s", exc)
    topic = (data.arg(0) or None) if data else None
    await ask(update, context, user, lang, topic)


async def receive_answer(update: Update, context: CoachContext) -> None:
    """A tap on A/B/C/D: store it, tell the result, mark the question, explain."""
    query = update.callback_query
    services = context.services
    texts = services.texts
    data = callbacks.decode(query.data)
    user, lang = await current_user(update, context)
    question = services.bank.by_key.get(data.arg(0)) if data else None
    choice = grade(question, data.arg(1)) if question and data else None
    if choice is None or query.message is None:
        await query.answer(texts.t(lang, "toast-expired"))
        return
    owner = data.arg(2)
    if owner and owner != str(user.user_id):
        await query.answer(texts.t(lang, "toast-not-yours"))
        return
    now = services.now()
    tz = streaks.zone(user.timezone, user.language)
    sent_at = query.message.date
    elapsed = int((now - sent_at).total_seconds() * 1000) if isinstance(sent_at, datetime) else None
    recorded = await record_answer(services.db, NewAnswer(
        user_id=user.user_id, question_id=question.id, field=question.field, topic=question.topic,
        level=question.seniority, chosen=choice.chosen, is_correct=choice.is_correct,
        answered_at=int(now.timestamp()), chat_id=query.message.chat_id,
        message_id=query.message.message_id, elapsed_ms=max(elapsed, 0) if elapsed else None,
    ), today=streaks.local_day(now, tz))
    if not recorded.inserted:
        await query.answer(texts.t(lang, "toast-already-answered"))
        return
    right = render.option_label(question.correct)
    chosen = render.option_label(choice.chosen)
    await query.answer(texts.t(lang, "toast-correct") if choice.is_correct
                       else texts.t(lang, "toast-wrong", right=right))
    result_line = (texts.t(lang, "graded-right", chosen=chosen) if choice.is_correct
                   else texts.t(lang, "graded-wrong", chosen=chosen, right=right))
    await edit_or_ignore(query.message, render.graded_html(
        question, lang, header=question_header(context, question, lang), chosen=choice.chosen,
        result_line=result_line))
    heading = (texts.t(lang, "explanation-right") if choice.is_correct
               else texts.t(lang, "explanation-wrong", right=right))
    body = f"{heading}\n\n{render.explanation_html(question, lang)}"
    if recorded.milestone:
        body += "\n\n" + texts.t(lang, "streak-milestone", days=recorded.milestone)
    next_data = (callbacks.encode(callbacks.NEXT, question.topic) if data.arg(3) == "t"
                 else callbacks.encode(callbacks.NEXT))
    await reply(update, body, keyboard([[(texts.t(lang, "button-next"), next_data)]]))


def register(app: Application) -> None:
    app.add_handler(CommandHandler("quiz", quiz))
    app.add_handler(CallbackQueryHandler(receive_answer, pattern=callbacks.pattern(callbacks.ANSWER)))
    app.add_handler(CallbackQueryHandler(next_question, pattern=callbacks.pattern(callbacks.NEXT)))
