"""/quiz and the answer buttons: ask a question, grade the tap, explain, offer the next one."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from telegram import InlineKeyboardMarkup, Update
from telegram.constants import ChatType
from telegram.ext import Application, CallbackQueryHandler, CommandHandler

from bot import callbacks
from bot.context import CoachContext
from bot.services import Services
from domain import ratings, review
from domain.grading import Grade, checked_order, grade
from handlers import flags
from handlers.common import (
    NEW_MESSAGES,
    button_rows,
    edit_or_ignore,
    first_tap,
    keyboard,
    own_keyboard,
    remove_buttons,
    reply,
)
from handlers.onboarding import ask_next_choice
from handlers.question_messages import question_header, send_question
from questions import render
from questions.model import Question
from questions.selection import choose_adaptive, choose_next, last_topic, plan_pool
from questions.topic_match import find_topic
from services import answers
from services.answers import Recorded
from storage import ratings as rating_store
from storage import review as review_store
from storage.answers import seen_questions
from storage.jobmatch import plan_topics
from storage.users import User

log = logging.getLogger(__name__)
COMMANDS = ("quiz",)
MAX_TOPIC_BUTTONS = 40  # the same cap as /topics: a keyboard well inside Telegram's limits


async def pick_question(services: Services, user: User, topic: str | None = None) -> Question | None:
    """The next question for this user: now and then a due review, else an unseen one from their
    field and level (and topic, if given) pitched in the rating band, topics interleaved."""
    bank = services.bank
    if topic is None and review.mix_in_review(services.rng):
        due = await next_due_question(services, user.user_id)
        if due is not None:
            return due
    level: str | None = user.level
    pool: Sequence[Question] = bank.pool(user.field, level, topic)
    if not pool and topic:
        level = None
        pool = bank.pool(user.field, None, topic)  # a topic may not cover every level
    if topic is None:  # a job-ad plan (/jd) weights its topics
        pool = plan_pool(pool, await plan_topics(services.db, user_id=user.user_id,
                                                 field=user.field), services.rng)
    seen = await seen_questions(services.db, user_id=user.user_id)
    if not user.field:
        return choose_next(pool, seen, services.rng)
    skill = await rating_store.user_rating(services.db, user_id=user.user_id, field=user.field)
    rated = await rating_store.question_ratings(services.db, field=user.field, level=level)
    # A plain /quiz interleaves topics: the next question comes from another topic.
    return choose_adaptive(
        pool, seen, services.rng,
        user_rating=skill.rating if skill else ratings.user_prior(user.level), ratings=rated,
        last_topic=last_topic(seen, bank.questions) if topic is None else None)


async def next_due_question(services: Services, user_id: int) -> Question | None:
    """The most overdue review card whose question is still in the bank."""
    due = await review_store.due_cards(services.db, user_id=user_id, now=services.now())
    gone = [d.question_id for d in due if d.question_id not in services.bank.questions]
    if gone:
        await review_store.forget_cards(services.db, user_id=user_id, question_ids=gone)
    return next((services.bank.questions[d.question_id] for d in due
                 if d.question_id in services.bank.questions), None)


async def ask(update: Update, context: CoachContext, user: User, lang: str,
              topic: str | None = None) -> None:
    """Ask the next question, or say why there is none."""
    texts, bank = context.services.texts, context.services.bank
    if not user.field or user.field not in bank.fields or not user.level:
        # Not set up yet: show the first missing choice right here, not a "send /start" note.
        await ask_next_choice(update, context, user, lang)
        return
    question = await pick_question(context.services, user, topic)
    if question is None:
        await reply(update, texts.t(lang, "no-questions", field=bank.field_name(user.field, lang),
                                    level=texts.t(lang, f"level-{user.level}")))
        return
    await send_question(update, context, question, lang, on_topic=topic is not None)


async def quiz(update: Update, context: CoachContext) -> None:
    """/quiz [topic]"""
    user, lang = context.user, context.lang
    bank = context.services.bank
    wanted = " ".join(context.args or ())
    topic = None
    if wanted and user.field in bank.fields and user.level:
        topic = find_topic(bank, user.field, wanted)
        if topic is None:
            await own_keyboard(context, await reply(
                update, context.t("quiz-pick-topic", value=wanted[:48],
                                  field=bank.field_name(user.field, lang)),
                topic_keyboard(context, user.field, sorted(bank.fields[user.field].topics))))
            return
    await ask(update, context, user, lang, topic)


def topic_keyboard(context: CoachContext, field: str, topics: list[str]):
    """One button per topic (a long name on a row of its own); a tap asks on that topic."""
    bank = context.services.bank
    return keyboard(button_rows([(bank.topic_name(field, topic, context.lang),
                                  callbacks.TopicPick(topic).encode())
                                 for topic in topics[:MAX_TOPIC_BUTTONS]]))


async def pick_topic(update: Update, context: CoachContext) -> None:
    """A topic tapped in a list: ask on it and leave the list, so another topic is one tap."""
    query = update.callback_query
    data = callbacks.TopicPick.parse(query.data)
    user = context.user
    if data is None or not user.field or context.services.bank.topic(user.field, data.topic) is None:
        await query.answer(context.toast("toast-expired"))
        return
    await query.answer()
    await ask(update, context, user, context.lang, data.topic)


async def next_question(update: Update, context: CoachContext) -> None:
    """`Next ▶` / `Start practice ▶`: remove the button, ask again (on the same topic, if any)."""
    query = update.callback_query
    data = callbacks.Next.parse(query.data)
    user, lang = context.user, context.lang
    if not await first_tap(context, query):  # a one-shot button: a double tap asks once
        await query.answer(context.toast("toast-button-used"))
        return
    await query.answer()
    await remove_buttons(query.message)
    topic = data.topic if data else None
    await ask(update, context, user, lang, topic)


@dataclass(frozen=True)
class Graded:
    """A tap that was stored: what was asked, what was chosen, what storing it changed."""

    user: User
    lang: str
    question: Question
    choice: Grade
    recorded: Recorded
    order: str  # the options as shown: the letters in every text follow it


async def grade_tap(update: Update, context: CoachContext, *, question_key: str, option: str,
                    owner: int | None, source: str, order: str | None = None) -> Graded | None:
    """Store a tap on A/B/C/D, answer it with the result, mark the question message.

    None (the tap answered with a short notice) when nothing was stored: an unknown or stale
    button, someone else's question, or a repeat of a stored tap.
    """
    query = update.callback_query
    services = context.services
    user, lang = context.user, context.lang
    question = services.bank.by_key.get(question_key)
    choice = grade(question, option) if question else None
    shown = checked_order(question, order) if question else None
    if question is None or choice is None or shown is None or query.message is None:
        await query.answer(context.toast("toast-expired"))
        return None
    if owner is not None and owner != user.user_id:
        await query.answer(context.toast("toast-not-yours"))
        return None
    now = services.now()
    sent_at = query.message.date if isinstance(query.message.date, datetime) else None
    recorded = await answers.record(services.db, answers.new_answer(
        user, question, choice, now=now, chat_id=query.message.chat_id,
        message_id=query.message.message_id, source=source,
        elapsed=answers.elapsed_ms(sent_at, now)))
    if not recorded.inserted:
        await query.answer(context.toast("toast-already-answered"))
        return None
    right = render.option_label(question.correct, shown)
    chosen = render.option_label(choice.chosen, shown)
    await query.answer(context.toast("toast-correct") if choice.is_correct
                       else context.t("toast-wrong", right=right))
    result_line = (context.t("graded-right", chosen=chosen) if choice.is_correct
                   else context.t("graded-wrong", chosen=chosen, right=right))
    await edit_or_ignore(context, query.message, render.graded_html(
        question, lang, header=question_header(context, question, lang), chosen=choice.chosen,
        result_line=result_line, order=shown))
    return Graded(user, lang, question, choice, recorded, shown)


def explanation_text(context: CoachContext, graded: Graded) -> str:
    """Right or wrong, why, and a streak milestone if this answer reached one."""
    texts, lang, question = context.services.texts, graded.lang, graded.question
    right = render.option_label(question.correct, graded.order)
    heading = (texts.t(lang, "explanation-right") if graded.choice.is_correct
               else texts.t(lang, "explanation-wrong", right=right))
    body = f"{heading}\n\n{render.explanation_html(question, lang)}"
    if graded.recorded.milestone:
        body += "\n\n" + texts.t(lang, "streak-milestone", days=graded.recorded.milestone)
    return body


async def deck_button(update: Update, context: CoachContext, data: callbacks.Review | None,
                      on_answer: Callable[[Update, CoachContext, Any], Awaitable[None]],
                      on_next: Callable[[Update, CoachContext, User, str], Awaitable[None]],
                      ) -> None:
    """A button of a private deck (/review, /mistakes): a letter under its question, or its
    one-shot `Next`. Anything else, or such a button in a group (the decks are private, so it
    was forged), is answered as expired."""
    query = update.callback_query
    in_group = query.message is not None and query.message.chat.type != ChatType.PRIVATE
    if data is None or in_group or (data.question_key is None) != (data.option is None):
        await query.answer(context.toast("toast-expired"))
        return
    if data.question_key is not None:
        await on_answer(update, context, data)
        return
    if not await first_tap(context, query):  # a double tap serves one question
        await query.answer(context.toast("toast-button-used"))
        return
    await query.answer()
    await remove_buttons(query.message)
    await on_next(update, context, context.user, context.lang)


def explanation_keyboard(context: CoachContext, graded: Graded,
                         next_button: tuple[str, str] | None) -> InlineKeyboardMarkup:
    """Under every explanation: the way on (if any) and `⚑ Report` in one row, then
    `I guessed 🤔` under a right answer."""
    row = [*([next_button] if next_button else []), flags.report_button(context, graded.question)]
    return keyboard([row, *guess_rows(context, graded)])


def guess_rows(context: CoachContext, graded: Graded) -> list[list[tuple[str, str]]]:
    """`I guessed 🤔` under the explanation of a right answer (nothing under a wrong one)."""
    answer_id = graded.recorded.answer_id
    if not graded.choice.is_correct or answer_id is None:
        return []
    label = context.services.texts.t(graded.lang, "button-guessed")
    return [[(label, callbacks.Guessed(answer_id).encode())]]


async def suggest_level(update: Update, context: CoachContext, graded: Graded) -> None:
    """Once per level: when the rating predicts a good score at the next level, offer it, say
    why, and let the user switch or stay."""
    level_up = graded.recorded.level_up
    if level_up is None:
        return
    texts, lang = context.services.texts, graded.lang
    level, target = (texts.t(lang, f"level-{name}") for name in (level_up.level, level_up.next))
    low, high = (round(edge * 100) for edge in ratings.BAND)
    await own_keyboard(context, await reply(update, texts.t(
        lang, "level-up-suggestion", rating=level_up.rating, chance=level_up.chance, low=low,
        high=high, level=level, next=target,
        field=context.services.bank.field_name(graded.question.field, lang)),
        keyboard([[(texts.t(lang, "button-switch-level", level=target),
                    callbacks.LevelChoice(level_up.next).encode()),
                   (texts.t(lang, "button-level-not-yet"),
                    callbacks.LevelNotYet(level_up.level).encode())]])))


async def stay_at_level(update: Update, context: CoachContext) -> None:
    """`Not yet` under a level-up suggestion: keep the level, say how to move later."""
    query = update.callback_query
    data = callbacks.LevelNotYet.parse(query.data)
    if data is None:
        await query.answer(context.toast("toast-expired"))
        return
    await query.answer()
    await edit_or_ignore(context, query.message,
                         context.t("level-not-yet", level=context.t(f"level-{data.level}")))


async def receive_answer(update: Update, context: CoachContext) -> None:
    """A tap on A/B/C/D in practice: store it, tell the result, mark the question, explain."""
    data = callbacks.Answer.parse(update.callback_query.data)
    if data is None:
        await update.callback_query.answer(context.toast("toast-expired"))
        return
    graded = await grade_tap(update, context, question_key=data.question_key, option=data.option,
                             owner=data.owner, source="practice", order=data.order)
    if graded is None:
        return
    texts, lang = context.services.texts, graded.lang
    next_data = callbacks.Next(graded.question.topic if data.on_topic else None).encode()
    await own_keyboard(context, await reply(
        update, explanation_text(context, graded),
        explanation_keyboard(context, graded, (texts.t(lang, "button-next"), next_data))))
    await suggest_level(update, context, graded)


def register(app: Application) -> None:
    app.add_handler(CommandHandler("quiz", quiz, filters=NEW_MESSAGES))
    app.add_handler(CallbackQueryHandler(receive_answer, pattern=callbacks.Answer.pattern()))
    app.add_handler(CallbackQueryHandler(next_question, pattern=callbacks.Next.pattern()))
    app.add_handler(CallbackQueryHandler(stay_at_level, pattern=callbacks.LevelNotYet.pattern()))
    app.add_handler(CallbackQueryHandler(pick_topic, pattern=callbacks.TopicPick.pattern()))
