"""A practice question as a message: its header, its letter buttons, and sending it."""

from __future__ import annotations

from telegram import Message, Update
from telegram.constants import ChatType

from bot import callbacks
from bot.context import CoachContext
from domain.grading import shown_order
from handlers.common import keyboard, own_keyboard, reply
from questions import render
from questions.model import Question


def question_header(context: CoachContext, question: Question, lang: str) -> str:
    bank, texts = context.services.bank, context.services.texts
    return render.header_html(bank.field_name(question.field, lang),
                              bank.topic_name(question.field, question.topic, lang),
                              texts.t(lang, f"level-{question.seniority}"))


def answer_keyboard(question: Question, owner: int | None, on_topic: bool = False,
                    order: str | None = None):
    # Self-contained: the question, the option, the asker in a group, whether to stay on the
    # topic, and the shown order (so every tap, and a restart, labels the options alike).
    stay = "t" if on_topic else None
    order = order or "".join(question.option_keys)
    return keyboard([[(render.option_label(key, order),
                       callbacks.Answer(question.key, key, owner, stay, order).encode())
                      for key in order]])


async def send_question(update: Update, context: CoachContext, question: Question, lang: str,
                        on_topic: bool = False) -> Message | None:
    """Send one question with its letter buttons to the chat of `update`."""
    chat = update.effective_chat
    owner = update.effective_user.id if chat and chat.type != ChatType.PRIVATE else None
    order = shown_order(question, context.services.rng)
    text = render.question_html(question, lang, header=question_header(context, question, lang),
                                order=order)
    return await own_keyboard(context, await reply(
        update, text, answer_keyboard(question, owner, on_topic, order)))
