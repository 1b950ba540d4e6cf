"""Slows down a user who floods the bot: extra updates are dropped with one notice."""

from __future__ import annotations

import logging
import time

from telegram import Update
from telegram.error import TelegramError
from telegram.ext import Application, ApplicationHandlerStop, TypeHandler

from bot.context import CoachContext
from handlers.common import actor_id

log = logging.getLogger(__name__)
COMMANDS: tuple[str, ...] = ()
GROUP = -100  # runs before every feature handler


async def guard(update: Update, context: CoachContext) -> None:
    """Drop the update if its sender is over the limit (taps still get an answer)."""
    user, actor = update.effective_user, actor_id(update)
    if user is None or actor is None:
        return
    flood = context.flood_guard
    now = time.monotonic()
    if flood.allow(actor, now):
        return
    log.info("flood: dropped update_id=%s actor_id=%s", update.update_id, actor)
    services = context.services
    lang = services.language_for(None, user.language_code)
    text = services.texts.t(lang, "flood-slow-down")
    try:
        if update.callback_query is not None:
            await update.callback_query.answer(text)
        elif flood.should_warn(actor, now) and update.effective_chat is not None \
                and update.effective_chat.type == "private":
            await update.effective_chat.send_message(text)
    except TelegramError as exc:
        log.info("flood notice not sent: %s", exc)
    raise ApplicationHandlerStop


def register(app: Application) -> None:
    app.add_handler(TypeHandler(Update, guard), group=GROUP)
