"""The error handler: log the update's ids (never its text), tell the admins, apologise, keep
running."""

from __future__ import annotations

import logging
import sqlite3
import sys
from datetime import datetime, timedelta

from telegram import Update
from telegram.error import TelegramError

from bot.context import CoachContext

log = logging.getLogger("bot.errors")
# Each kind of error reaches the admins at most this often; the log has every occurrence.
ALERT_EVERY = timedelta(hours=1)


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


def due_alert(sent: dict[str, datetime], kind: str, now: datetime) -> bool:
    """True (and remembered) when `kind` was not reported within the last ALERT_EVERY."""
    last = sent.get(kind)
    if last is not None and now - last < ALERT_EVERY:
        return False
    sent[kind] = now
    return True


async def alert_admins(update: object, context: CoachContext, error: BaseException) -> None:
    """One short message to each of ADMIN_IDS: the error's type and the update's ids, never
    its text or the error's message (either may hold what a user typed, or a secret)."""
    services = context.services
    kind = type(error).__name__
    if not services.settings.admin_ids or not due_alert(context.admin_alerts, kind,
                                                         services.now()):
        return
    ids = {"update_id": "-", "chat_id": "-", "user_id": "-"}
    if isinstance(update, Update):
        ids["update_id"] = str(update.update_id)
        if update.effective_chat is not None:
            ids["chat_id"] = str(update.effective_chat.id)
        if update.effective_user is not None:
            ids["user_id"] = str(update.effective_user.id)
    text = services.texts.t(services.language_for(None, None), "admin-error-alert",
                            error=kind, **ids)
    for admin_id in sorted(services.settings.admin_ids):
        try:
            await context.bot.send_message(admin_id, text)
        except TelegramError as exc:  # blocked the bot, never started it...
            log.warning("could not alert admin %d: %s", admin_id, type(exc).__name__)


def database_unavailable(error: BaseException | None) -> bool:
    """Locked past the busy timeout, read-only or full disk, or the PostgreSQL server gone.
    (asyncpg is loaded only with PostgreSQL; until it is, no error can come from it.)"""
    if isinstance(error, sqlite3.OperationalError | ConnectionRefusedError):
        return True
    asyncpg = sys.modules.get("asyncpg")
    return asyncpg is not None and isinstance(error, asyncpg.PostgresConnectionError
                                              | asyncpg.InterfaceError
                                              | asyncpg.InsufficientResourcesError)


async def error_handler(update: object, context: CoachContext) -> None:
    """Logs first, then tells the user briefly; never raises."""
    error = context.error
    if database_unavailable(error):
        # Locked past the busy timeout, read-only or full disk, or the PostgreSQL server gone:
        # one clear line, no traceback; nothing was written (the transaction rolled back) and
        # the next update tries again.
        log.error("database unavailable (%s): %s", describe(update), error)
    else:
        log.error("handler failed (%s): %s: %s", describe(update), type(error).__name__, error,
                  exc_info=(type(error), error, error.__traceback__) if error else None)
    if error is not None:
        try:
            await alert_admins(update, context, error)
        except Exception as exc:  # noqa: BLE001 - the error handler must never raise
            log.warning("could not alert the admins (%s): %s", describe(update),
                        type(exc).__name__)
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
