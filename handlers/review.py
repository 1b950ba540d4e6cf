"""/review: the questions whose FSRS cards are due, most overdue first, with explanations.

Cards are updated with every answer (storage/answers.record_answer); this serves the due ones
through the normal question flow and says how many are left or when the next one is due.
"""

from __future__ import annotations

from datetime import datetime

from telegram import Update
from telegram.constants import ChatType
from telegram.ext import Application, CallbackQueryHandler, CommandHandler

from bot import callbacks
from bot.context import CoachContext, services_of
from domain import review
from domain.grading import shown_order
from handlers import practice
from handlers.common import NEW_MESSAGES, keyboard, reply
from questions import render
from storage import review as store
from storage.users import User

COMMANDS = ("review",)


def when_text(context: CoachContext, lang: str, due: datetime) -> str:
    unit, count = review.wait_until(due, context.services.now())
    return context.services.texts.t(lang, f"due-in-{unit}", count=count)


async def nothing_due_text(context: CoachContext, user_id: int, lang: str) -> str:
    texts = context.services.texts
    upcoming = await store.next_due(context.services.db, user_id=user_id)
    if upcoming is None:
        return texts.t(lang, "review-no-cards")
    return texts.t(lang, "review-none-due", when=when_text(context, lang, upcoming))


async def serve_review(update: Update, context: CoachContext, user: User, lang: str) -> None:
    """Ask the most overdue card's question, or say when the next one is due."""
    services = context.services
    texts = services.texts
    question = await practice.next_due_question(services, user.user_id)
    if question is None:
        await reply(update, await nothing_due_text(context, user.user_id, lang))
        return
    left = await store.due_count(services.db, user_id=user.user_id, now=services.now()) - 1
    header = (texts.t(lang, "review-header", left=left) + "\n"
              + practice.question_header(context, question, lang))
    order = shown_order(question, services.rng)
    markup = keyboard([[(render.option_label(key, order),
                         callbacks.Review(question.key, key, order).encode())
                        for key in order]])
    await reply(update, render.question_html(question, lang, header=header, order=order), markup)


async def review_command(update: Update, context: CoachContext) -> None:
    """/review"""
    user, lang = context.user, context.lang
    if update.effective_chat.type != ChatType.PRIVATE:
        await reply(update, context.t("review-private-only"))
        return
    await serve_review(update, context, user, lang)


async def review_button(update: Update, context: CoachContext) -> None:
    """A/B/C/D on a review question (`rv:<question>:<option>`), or `Next review` (`rv`)."""
    data = callbacks.Review.parse(update.callback_query.data)
    await practice.deck_button(update, context, data, receive_review_answer, serve_review)


async def receive_review_answer(update: Update, context: CoachContext,
                                data: callbacks.Review) -> None:
    """Grade and explain like practice, then offer the next due card or say when one is due."""
    graded = await practice.grade_tap(update, context, question_key=data.question_key or "",
                                      option=data.option or "", owner=None, source="review",
                                      order=data.order)
    if graded is None:
        return
    services = context.services
    texts, lang = services.texts, graded.lang
    body = practice.explanation_text(context, graded)
    left = await store.due_count(services.db, user_id=graded.user.user_id, now=services.now())
    next_button = None
    if left:
        next_button = (texts.t(lang, "button-next-review", left=left), callbacks.Review().encode())
    else:
        body += "\n\n" + await nothing_due_text(context, graded.user.user_id, lang)
    await reply(update, body, practice.explanation_keyboard(context, graded, next_button))
    await practice.suggest_level(update, context, graded)


async def on_startup(app: Application) -> None:
    """Give the reminder message its due-review count (`Services.due_reviews`)."""
    services = services_of(app)

    async def due_reviews(user_id: int, now: datetime) -> int:
        return await store.due_count(services.db, user_id=user_id, now=now)

    services.due_reviews = due_reviews


def register(app: Application) -> None:
    app.add_handler(CommandHandler("review", review_command, filters=NEW_MESSAGES))
    app.add_handler(CallbackQueryHandler(review_button, pattern=callbacks.Review.pattern()))
