"""Reports on questions: `⚑ Report` under an explanation, a reason in one tap, an optional
one-line comment; `/flags` lists the open reports for admins, who mark them fixed or dismissed.
"""

from __future__ import annotations

from telegram import InlineKeyboardMarkup, Update
from telegram.constants import ChatType
from telegram.ext import (
    Application,
    ApplicationHandlerStop,
    CallbackQueryHandler,
    CommandHandler,
    MessageHandler,
    filters,
)

from bot import callbacks
from bot.context import CoachContext
from handlers.common import edit_or_ignore, keyboard, reply
from questions.model import Question
from storage import flags as store
from storage import jobmatch as jobmatch_store

COMMANDS: tuple[str, ...] = ()  # nothing for everyone's menu
ADMIN_COMMANDS = ("flags",)  # listed in /help for admins only
COMMENT_MINUTES = 5
COMMENT_LIMIT = 200  # one line; what an author needs to find the problem
SHOWN_QUESTIONS = 8
SHOWN_COMMENTS = 2
COMMENT_PREVIEW = 80
MESSAGE_BUDGET = 3800  # under Telegram's 4096 with room for the header
# Before the job-ad handler (-1): a user who just reported a question has their next message
# read as its comment; for everyone else this returns at once and the update goes on.
COMMENT_GROUP = -2


def report_button(context: CoachContext, question: Question) -> tuple[str, str]:
    """The `⚑ Report` button for an explanation's keyboard row."""
    return context.t("button-report"), callbacks.Flag(question.key).encode()


def now_ts(context: CoachContext) -> int:
    return int(context.services.now().timestamp())


def reason_keyboard(context: CoachContext, question: Question) -> InlineKeyboardMarkup:
    reasons = [(context.t(f"flag-reason-{r}"), callbacks.Flag(question.key, r).encode())
               for r in store.REASONS]
    return keyboard([reasons[:2], reasons[2:]])


async def flag_button(update: Update, context: CoachContext) -> None:
    """`⚑ Report` (show the reasons) or a reason (store the report once, ask for a comment)."""
    query = update.callback_query
    data = callbacks.Flag.parse(query.data)
    question = context.services.bank.by_key.get(data.question_key) if data else None
    if data is None or question is None or query.message is None:
        await query.answer(context.toast("toast-expired"))
        return
    if data.reason is None:
        await query.answer()
        await reply(update, context.t("flag-choose-reason", question=question.id),
                    reason_keyboard(context, question))
        return
    private = query.message.chat.type == ChatType.PRIVATE
    now = now_ts(context)
    db, user_id = context.services.db, context.user.user_id
    flag_id = await store.add_flag(
        db, question_id=question.id, user_id=user_id, reason=data.reason, now=now,
        comment_until=now + COMMENT_MINUTES * 60 if private else None)
    if flag_id is None:
        await query.answer(context.toast("toast-flag-repeat"))
        return
    await query.answer(context.toast("toast-flag-saved"))
    reason = context.t(f"flag-reason-{data.reason}")
    if private:
        await jobmatch_store.stop_waiting(db, user_id=user_id)  # the latest prompt wins
        text = context.t("flag-thanks-comment", reason=reason, minutes=COMMENT_MINUTES)
    else:
        text = context.t("flag-thanks", reason=reason)
    await edit_or_ignore(context, query.message, text)


async def receive_comment(update: Update, context: CoachContext) -> None:
    """The message after a report: its one-line comment; a command skips it."""
    message = update.message
    if message is None or update.effective_user is None:
        return
    db = context.services.db
    user_id = update.effective_user.id
    flag_id = await store.waiting_flag(db, user_id=user_id, now=now_ts(context))
    if flag_id is None:
        return  # not waiting for a comment: the other handlers see this message
    text = message.text
    if text is not None and text.startswith("/"):
        await store.stop_waiting(db, user_id=user_id)
        return  # a command cancels the comment and runs as usual
    comment = (text or "").strip()
    if not comment or "\n" in comment or len(comment) > COMMENT_LIMIT:
        await reply(update, context.t("flag-comment-bad", limit=COMMENT_LIMIT))
        raise ApplicationHandlerStop
    await store.save_comment(db, user_id=user_id, flag_id=flag_id, comment=comment)
    await reply(update, context.t("flag-comment-saved"))
    raise ApplicationHandlerStop  # this message was the comment: nobody else's


def preview(text: str) -> str:
    return text if len(text) <= COMMENT_PREVIEW else text[:COMMENT_PREVIEW - 1] + "…"


def flags_view(context: CoachContext,
               flagged: list[store.FlaggedQuestion]) -> tuple[str, InlineKeyboardMarkup | None]:
    """The open reports, most reported first, with a fixed / dismissed pair per question."""
    if not flagged:
        return context.t("flags-none"), None
    bank = context.services.bank
    lines = [context.t("flags-header", questions=len(flagged),
                       reports=sum(f.reports for f in flagged))]
    rows = []
    size = len(lines[0])
    for number, item in enumerate(flagged[:SHOWN_QUESTIONS], start=1):
        question = bank.questions.get(item.question_id)
        where = f"{question.field}/{question.topic}" if question else context.t("flags-gone")
        reasons = " · ".join(f"{context.t(f'flag-reason-{r}')} ×{n}"
                             for r, n in sorted(item.reasons.items(), key=lambda x: -x[1]))
        block = [context.t("flags-item", number=number, question=item.question_id, where=where,
                           reports=item.reports, reasons=reasons)]
        block += [context.t("flags-comment", comment=preview(c))
                  for c in item.comments[:SHOWN_COMMENTS]]
        text = "\n".join(block)
        if size + len(text) + 2 > MESSAGE_BUDGET:
            break
        size += len(text) + 2
        lines.append(text)
        rows.append([(context.t("button-flag-fixed", number=number),
                      callbacks.FlagResolve("f", item.first_flag_id).encode()),
                     (context.t("button-flag-dismissed", number=number),
                      callbacks.FlagResolve("d", item.first_flag_id).encode())])
    if len(rows) < len(flagged):
        lines.append(context.t("flags-more", count=len(flagged) - len(rows)))
    return "\n\n".join(lines), keyboard(rows)


async def flags_command(update: Update, context: CoachContext) -> None:
    """/flags (admins): the open reports grouped by question."""
    if not context.services.is_admin(context.user.user_id):
        await reply(update, context.t("unknown-command"))
        return
    text, markup = flags_view(context, await store.open_flags(context.services.db))
    await reply(update, text, markup)


async def resolve_button(update: Update, context: CoachContext) -> None:
    """`✔ fixed` / `✖ dismiss` under /flags: close the question's reports, refresh the list."""
    query = update.callback_query
    data = callbacks.FlagResolve.parse(query.data)
    if data is None or not context.services.is_admin(context.user.user_id):
        await query.answer(context.toast("toast-expired"))
        return
    db = context.services.db
    status = "fixed" if data.action == "f" else "dismissed"
    closed = await store.resolve_question(db, flag_id=data.flag_id, status=status,
                                          now=now_ts(context))
    await query.answer(context.toast(f"toast-flag-{status}") if closed
                       else context.t("toast-button-used"))
    text, markup = flags_view(context, await store.open_flags(db))
    await edit_or_ignore(context, query.message, text, markup)


def register(app: Application) -> None:
    app.add_handler(CommandHandler("flags", flags_command))
    app.add_handler(CallbackQueryHandler(flag_button, pattern=callbacks.Flag.pattern()))
    app.add_handler(CallbackQueryHandler(resolve_button, pattern=callbacks.FlagResolve.pattern()))
    app.add_handler(MessageHandler(
        filters.ChatType.PRIVATE & filters.UpdateType.MESSAGE, receive_comment),
        group=COMMENT_GROUP)
