"""/mistakes and `I guessed 🤔`: the questions a user missed or guessed come back one after
another until each is answered right (the last answer decides)."""

from __future__ import annotations

from telegram import InlineKeyboardMarkup, Message, Update
from telegram.constants import ChatType
from telegram.error import TelegramError
from telegram.ext import Application, CallbackQueryHandler, CommandHandler

from bot import callbacks
from bot.context import CoachContext
from bot.services import Services
from domain.grading import shown_order
from handlers import practice
from handlers.common import keyboard, reply
from questions import render
from questions.model import Question
from services import answers
from storage import mistakes as store
from storage.users import User

COMMANDS = ("mistakes",)


async def mistakes_left(services: Services, user_id: int) -> list[Question]:
    """The user's mistakes still in the bank, longest waiting first."""
    bank = services.bank
    return [bank.questions[qid] for qid in await store.mistake_ids(services.db, user_id=user_id)
            if qid in bank.questions]


async def serve_mistake(update: Update, context: CoachContext, user: User, lang: str) -> None:
    """Ask the mistake that has waited longest, or say there is none left."""
    services = context.services
    texts = services.texts
    left = await mistakes_left(services, user.user_id)
    if not left:
        await reply(update, texts.t(lang, "mistakes-none"))
        return
    question = left[0]
    header = (texts.t(lang, "mistakes-header", left=len(left) - 1) + "\n"
              + practice.question_header(context, question, lang))
    order = shown_order(question, services.rng)
    markup = keyboard([[(render.option_label(key, order),
                         callbacks.Mistake(question.key, key, order).encode())
                        for key in order]])
    await reply(update, render.question_html(question, lang, header=header, order=order), markup)


async def mistakes_command(update: Update, context: CoachContext) -> None:
    """/mistakes"""
    if update.effective_chat.type != ChatType.PRIVATE:
        await reply(update, context.t("mistakes-private-only"))
        return
    await serve_mistake(update, context, context.user, context.lang)


async def mistake_button(update: Update, context: CoachContext) -> None:
    """A/B/C/D on a missed question (`mk:<question>:<option>:<order>`), or `Next mistake`."""
    data = callbacks.Mistake.parse(update.callback_query.data)
    await practice.deck_button(update, context, data, receive_mistake_answer, serve_mistake)


async def receive_mistake_answer(update: Update, context: CoachContext,
                                 data: callbacks.Mistake) -> None:
    """Grade and explain like practice, then offer the next mistake or say none is left."""
    graded = await practice.grade_tap(update, context, question_key=data.question_key or "",
                                      option=data.option or "", owner=None, source="mistakes",
                                      order=data.order)
    if graded is None:
        return
    services = context.services
    texts, lang = services.texts, graded.lang
    body = practice.explanation_text(context, graded)
    left = len(await mistakes_left(services, graded.user.user_id))
    next_button = None
    if left:
        next_button = (texts.t(lang, "button-next-redo", left=left), callbacks.Mistake().encode())
    else:
        body += "\n\n" + texts.t(lang, "mistakes-none")
    await reply(update, body, practice.explanation_keyboard(context, graded, next_button))
    await practice.suggest_level(update, context, graded)


def without_guess_button(markup: InlineKeyboardMarkup | None) -> InlineKeyboardMarkup | None:
    """The explanation's keyboard with `I guessed` taken off (`Next` stays)."""
    if markup is None:
        return None
    rows = [[b for b in row if not (isinstance(b.callback_data, str)
                                    and callbacks.Guessed.parse(b.callback_data))]
            for row in markup.inline_keyboard]
    rows = [row for row in rows if row]
    return InlineKeyboardMarkup(rows) if rows else None


async def guessed_button(update: Update, context: CoachContext) -> None:
    """`I guessed 🤔`: the question goes on the mistakes list, its card is re-rated Hard, and
    the button goes away; a second tap changes nothing."""
    query = update.callback_query
    data = callbacks.Guessed.parse(query.data)
    if data is None:
        await query.answer(context.toast("toast-expired"))
        return
    outcome = await answers.mark_guessed(context.services.db, user_id=context.user.user_id,
                                         answer_id=data.answer_id, now=context.services.now())
    toast = {"marked": "toast-guess-marked", "already": "toast-guess-already",
             "not-yours": "toast-not-yours"}.get(outcome, "toast-expired")
    await query.answer(context.toast(toast))
    message = query.message
    # Only the tap that marked edits: a second one would ask for an identical edit.
    if outcome == "marked" and isinstance(message, Message) and message.reply_markup:
        try:
            await message.edit_reply_markup(without_guess_button(message.reply_markup))
        except TelegramError:  # edited or gone meanwhile: the mark is stored either way
            pass


def register(app: Application) -> None:
    app.add_handler(CommandHandler("mistakes", mistakes_command))
    app.add_handler(CallbackQueryHandler(mistake_button, pattern=callbacks.Mistake.pattern()))
    app.add_handler(CallbackQueryHandler(guessed_button, pattern=callbacks.Guessed.pattern()))
