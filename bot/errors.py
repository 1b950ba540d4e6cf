"""The error handler: log the update's ids (never its text), apologise, keep running."""

from __future__ import annotations

import logging
import sqlite3

from telegram import Update
from telegram.error import TelegramError

from bot.context import CoachContext

log = logging.getLogger("bot.errors")


def route(update: Update) -> str:
    """Which handler family an update goes to, without any of the user's text."""
    if update.callback_query is not None:
        data = update.callback_query.data or ""
        return "button:" + ":".join(data.split(":")[:2])[:8] if data.startswith("v1:") else "button:?"
    message = update.effective_message
    if message is not None and message.text and message.text.startswith("/"):
        command = message.text.split()[0].split("@")[0][1:33]
        return "/" + "".join(c for c in command if c.isalnum() or c == "_")
    if message is not None:
        return "document" if message.document else "message"
    return "other"


def describe(update: object) -> str:
    if not isinstance(update, Update):
        return "no update"
    user = update.effective_user.id if update.effective_user else None
    chat = update.effective_chat.id if update.effective_chat else None
    return f"update_id={update.update_id} route={route(update)} user_id={user} chat_id={chat}"


async def error_handler(update: object, context: CoachContext) -> None:
    """Logs first, then tells the user briefly; never raises."""
    error = context.error
    if isinstance(error, sqlite3.OperationalError):
        # Locked past the busy timeout, read-only or full disk: one clear line, no traceback;
        # nothing was written (the transaction rolled back) and the next update tries again.
        log.error("database unavailable (%s): %s", describe(update), error)
    else:
        log.error("handler failed (%s): %s: %s", describe(update), type(error).__name__, error,
                  exc_info=(type(error), error, error.__traceback__) if error else None)
    if not isinstance(update, Update):
        return
    try:
        services = context.services
        tg_user = update.effective_user
        lang = services.language_for(None, tg_user.language_code if tg_user else None)
        text = services.texts.t(lang, "error-apology")
        if update.callback_query is not None:
            try:
                await update.callback_query.answer(text)
                return
            except TelegramError:
                pass  # already answered: fall through to a message
        if update.effective_chat is not None and update.effective_chat.type == "private":
            await update.effective_chat.send_message(text)
    except Exception as exc:  # noqa: BLE001 - the error handler must never raise
        log.warning("could not apologise (%s): %s", describe(update), type(exc).__name__)
