"""/interview: a mock interview under interview conditions, then a report with its buttons.

No feedback until the end: each tap is only "recorded" and the next question follows. The state
lives in SQLite (storage/interviews.py), so an interview resumes after a restart.
"""

from __future__ import annotations

import logging
from datetime import datetime, tzinfo

from telegram import Update
from telegram.constants import ChatType
from telegram.error import TelegramError
from telegram.ext import Application, CallbackQueryHandler, CommandHandler

from bot import callbacks
from bot.context import CoachContext
from domain import interviews as rules
from domain import streaks
from domain.grading import grade, seeded_order
from handlers.common import (
    NEW_MESSAGES,
    edit_or_ignore,
    first_tap,
    keyboard,
    remove_buttons,
    reply,
)
from handlers.practice import question_header
from questions import render
from questions.markup import plain_length
from questions.model import Question
from services import answers
from services import interviews as interview_flow
from storage import interviews as store
from storage.users import User, get_user

log = logging.getLogger(__name__)
COMMANDS = ("interview",)
STOP, MISTAKES, NEW = "s", "m", "n"


def millis(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def duration_text(context: CoachContext, lang: str, ms: float) -> str:
    texts = context.services.texts
    seconds = round(ms / 1000)
    if seconds < 60:
        return texts.t(lang, "duration-seconds", seconds=seconds)
    return texts.t(lang, "duration-minutes", minutes=seconds // 60, seconds=seconds % 60)


def shown_order(interview_id: int, position: int, question: Question) -> str:
    """The order an interview question's options are shown in: the same for every tap, edit,
    resume and the mistakes review, new for each interview."""
    return seeded_order(question, f"i{interview_id}.{position}")


def interview_header(context: CoachContext, interview: store.Interview, lang: str) -> str:
    return context.services.texts.t(lang, "interview-question-header",
                                    number=interview.position + 1, total=interview.total)


async def ask_current(update: Update, context: CoachContext, interview: store.Interview,
                      lang: str) -> None:
    """Send the question at the interview's position (its answer buttons and Stop)."""
    services = context.services
    interview, question = await interview_flow.current_question(services, interview)
    if question is None:
        await send_report(update, context, interview, lang)
        return
    texts = services.texts
    header = (interview_header(context, interview, lang) + "\n"
              + question_header(context, question, lang))
    order = shown_order(interview.id, interview.position, question)
    buttons = [(render.option_label(key, order),
                callbacks.InterviewAnswer(interview.id, interview.position, key).encode())
               for key in order]
    markup = keyboard([buttons, [(texts.t(lang, "button-stop-interview"),
                                  callbacks.InterviewAction(STOP, interview.id).encode())]])
    message = await reply(update, render.question_html(question, lang, header=header,
                                                       order=order), markup)
    if message is not None:
        await store.mark_asked(services.db, interview_id=interview.id,
                               position=interview.position, message_id=message.message_id,
                               asked_at_ms=millis(services.now()))


async def start_new(update: Update, context: CoachContext, user: User, lang: str) -> None:
    """Compose an interview from the user's field and level and ask its first question."""
    services = context.services
    texts, bank = services.texts, services.bank
    if not user.field or user.field not in bank.fields or not user.level:
        await reply(update, texts.t(lang, "need-setup"))
        return
    interview = await interview_flow.compose(services, user, chat_id=update.effective_chat.id)
    if interview is None:
        await reply(update, texts.t(lang, "no-questions", field=bank.field_name(user.field, lang),
                                    level=texts.t(lang, f"level-{user.level}")))
        return
    if interview.position == 0 and interview.message_id is None:
        await reply(update, texts.t(lang, "interview-intro", count=interview.total,
                                    field=bank.field_name(user.field, lang),
                                    level=texts.t(lang, f"level-{user.level}")))
    await ask_current(update, context, interview, lang)


async def start_or_resume(update: Update, context: CoachContext, user: User, lang: str) -> None:
    """/interview and `New interview`: go on with the one running, else start one."""
    texts = context.services.texts
    interview, expired = await interview_flow.ongoing(context.services, user.user_id)
    if interview is not None:
        await reply(update, texts.t(lang, "interview-resume", number=interview.position + 1,
                                    total=interview.total))
        await take_buttons_off(context, interview)
        await ask_current(update, context, interview, lang)
        return
    if expired:
        await reply(update, texts.t(lang, "interview-expired-note"))
    await start_new(update, context, user, lang)


async def interview_command(update: Update, context: CoachContext) -> None:
    """/interview [stop]"""
    user, lang = context.user, context.lang
    if update.effective_chat.type != ChatType.PRIVATE:
        await reply(update, context.t("interview-private-only"))
        return
    arg = context.args[0].lower() if context.args else ""
    if arg not in ("", "stop"):
        await reply(update, context.t("interview-usage"))
        return
    if arg != "stop":
        await start_or_resume(update, context, user, lang)
        return
    interview, _ = await interview_flow.ongoing(context.services, user.user_id)
    if interview is None:
        await reply(update, context.t("interview-none-running"))
        return
    await stop(update, context, interview, lang)


async def take_buttons_off(context: CoachContext, interview: store.Interview) -> None:
    """Remove the answer buttons from the message that showed the current question."""
    if interview.message_id is None:
        return
    try:
        await context.bot.edit_message_reply_markup(interview.chat_id, interview.message_id,
                                                    reply_markup=None)
    except TelegramError as exc:  # already gone or edited: nothing to take off
        log.info("could not remove interview buttons: %s", exc)


async def stop(update: Update, context: CoachContext, interview: store.Interview,
               lang: str) -> None:
    """End the interview early with a partial report."""
    stopped = await interview_flow.stop(context.services, interview)
    if stopped is None:
        return
    await take_buttons_off(context, interview)
    await send_report(update, context, stopped, lang)


async def receive_interview_answer(update: Update, context: CoachContext) -> None:
    """A tap on A/B/C/D during an interview: store it, say "recorded", ask the next question."""
    query = update.callback_query
    services = context.services
    data = callbacks.InterviewAnswer.parse(query.data)
    user, lang = context.user, context.lang
    interview = (await store.get_interview(services.db, interview_id=data.interview_id)
                 if data is not None else None)
    if data is None or interview is None or query.message is None:
        await query.answer(context.toast("toast-expired"))
        return
    if interview.user_id != user.user_id:
        await query.answer(context.toast("toast-interview-not-yours"))
        return
    now = services.now()
    if await interview_flow.expire_if_old(services, interview):
        await query.answer(context.toast("toast-interview-expired"), show_alert=True)
        await remove_buttons(query.message)
        return
    if interview.status != store.ACTIVE:
        await query.answer(context.toast("toast-interview-over"))
        return
    position = data.position
    question_id = interview.question_ids[position] if position < interview.total else None
    question = services.bank.questions.get(question_id or "")
    choice = grade(question, data.option) if question else None
    if question is None or choice is None:
        await query.answer(context.toast("toast-expired"))
        return
    asked = interview.asked_at_ms if interview.position == position else None
    recorded = await interview_flow.record_answer(
        services.db, interview=interview, position=position,
        answer=answers.new_answer(
            user, question, choice, now=now, chat_id=query.message.chat_id,
            message_id=query.message.message_id, source="interview",
            elapsed=max(millis(now) - asked, 0) if asked is not None else None))
    if recorded is None:
        await query.answer(context.toast("toast-already-answered"))
        return
    await query.answer(context.toast("toast-recorded"))
    order = shown_order(interview.id, position, question)
    await edit_or_ignore(context, query.message, render.question_html(
        question, lang, header=question_header(context, question, lang), order=order)
        + "\n\n" + context.t("interview-recorded", number=position + 1, total=interview.total,
                           chosen=render.option_label(choice.chosen, order)))
    after = await store.get_interview(services.db, interview_id=interview.id)
    await ask_current(update, context, after or interview, lang)


def report_text(context: CoachContext, interview: store.Interview, report: rules.Report,
                lang: str, tz: tzinfo) -> str:
    services = context.services
    texts, bank = services.texts, services.bank
    level = texts.t(lang, f"level-{interview.level}")
    lines = [texts.t(lang, "report-title", field=bank.field_name(interview.field, lang),
                     level=level)]
    if not report.complete:
        lines.append(texts.t(lang, "report-partial", answered=report.answered, count=report.total))
    lines.append(texts.t(lang, "report-score", correct=report.correct, answered=report.answered,
                         percent=report.percent))
    if report.verdict is not None:
        lines.append(texts.t(lang, f"verdict-{report.verdict}", level=level))
    else:
        lines.append(texts.t(lang, "report-no-verdict", count=rules.VERDICT_MIN_ANSWERS))
    lines.append("")
    lines.append(texts.t(lang, "report-topics"))
    lines.extend(texts.t(lang, "report-topic-line",
                         topic=bank.topic_name(interview.field, t.topic, lang),
                         correct=t.correct, answered=t.answered)
                 for t in report.by_topic)
    if report.median_ms is not None:
        lines.append("")
        lines.append(texts.t(lang, "report-median",
                             time=duration_text(context, lang, report.median_ms)))
    if report.slowest:
        lines.append(texts.t(lang, "report-slowest"))
        lines.extend(texts.t(lang, "report-slow-line", number=r.position + 1,
                             topic=bank.topic_name(interview.field, r.topic, lang),
                             time=duration_text(context, lang, r.elapsed_ms or 0),
                             mark="✅" if r.is_correct else "❌")
                     for r in report.slowest)
    if not report.enough:  # the no-verdict line says why there is no comparison either
        return "\n".join(lines)
    lines.append("")
    if report.previous is None:
        lines.append(texts.t(lang, "report-first"))
    else:
        lines.append(texts.t(lang, "report-compare", before=report.previous.percent,
                             now=report.percent, change=f"{report.change:+d}",
                             date=texts.date(lang, report.previous.ended_at.astimezone(tz).date())))
    return "\n".join(lines)


async def send_report(update: Update, context: CoachContext, interview: store.Interview,
                      lang: str) -> None:
    """The report with `Review my mistakes` and `New interview`, or a note if nothing was answered."""
    services = context.services
    texts = services.texts
    new_button = (texts.t(lang, "button-new-interview"), callbacks.InterviewAction(NEW).encode())
    report = await interview_flow.report(services, interview)
    if report is None:
        await reply(update, texts.t(lang, "interview-stopped-empty"), keyboard([[new_button]]))
        return
    user = await get_user(services.db, user_id=interview.user_id)
    tz = streaks.zone(user.timezone if user else None, user.language if user else lang)
    rows = [[new_button]]
    if report.mistakes:
        rows.insert(0, [(texts.t(lang, "button-review-mistakes", count=len(report.mistakes)),
                         callbacks.InterviewAction(MISTAKES, interview.id, 0).encode())])
    await reply(update, report_text(context, interview, report, lang, tz), keyboard(rows))


async def show_mistake(update: Update, context: CoachContext, interview: store.Interview,
                       index: int, lang: str) -> None:
    """One missed question: the options marked, the user's pick, the right answer, why."""
    services = context.services
    texts = services.texts
    mistakes = [r for r in await store.interview_results(services.db, interview_id=interview.id)
                if not r.is_correct]
    if index >= len(mistakes):
        return
    mistake = mistakes[index]
    question = services.bank.questions.get(mistake.question_id)
    if question is None:  # left the bank since: go on with the next one
        await show_mistake(update, context, interview, index + 1, lang)
        return
    order = shown_order(interview.id, mistake.position, question)  # as it was asked
    right = render.option_label(question.correct, order)
    chosen = render.option_label(mistake.chosen, order)
    header = (texts.t(lang, "mistake-header", number=index + 1, total=len(mistakes))
              + "\n" + question_header(context, question, lang))
    graded = render.graded_html(question, lang, header=header, chosen=mistake.chosen,
                                result_line=texts.t(lang, "graded-wrong", chosen=chosen,
                                                    right=right), order=order)
    explanation = render.explanation_html(question, lang)
    if index + 1 < len(mistakes):
        button = (texts.t(lang, "button-next-mistake"),
                  callbacks.InterviewAction(MISTAKES, interview.id, index + 1).encode())
    else:
        button = (texts.t(lang, "button-new-interview"), callbacks.InterviewAction(NEW).encode())
    combined = f"{graded}\n\n{explanation}"
    if plain_length(combined) <= render.MESSAGE_LIMIT:
        await reply(update, combined, keyboard([[button]]))
        return
    # Each part fits one message (the bank validator checks that); together they may not.
    await reply(update, graded)
    await reply(update, explanation, keyboard([[button]]))


async def interview_button(update: Update, context: CoachContext) -> None:
    """Stop, `Review my mistakes` / `Next mistake`, and `New interview`."""
    query = update.callback_query
    services = context.services
    data = callbacks.InterviewAction.parse(query.data)
    user, lang = context.user, context.lang
    action = data.action if data else ""
    interview_id = data.interview_id if data else None
    if action == NEW:  # reusable: resumes the running interview or starts one, every time
        await query.answer()
        await start_or_resume(update, context, user, lang)
        return
    interview = (await store.get_interview(services.db, interview_id=interview_id)
                 if interview_id is not None else None)
    if interview is None or action not in (STOP, MISTAKES):
        await query.answer(context.toast("toast-expired"))
        return
    if interview.user_id != user.user_id:
        await query.answer(context.toast("toast-interview-not-yours"))
        return
    if action == STOP:
        if interview.status != store.ACTIVE:
            await query.answer(context.toast("toast-interview-over"))
            return
        await query.answer(context.toast("toast-interview-stopped"))
        await stop(update, context, interview, lang)
        return
    index = data.index if data else None
    if index is None:
        await query.answer(context.toast("toast-expired"))
        return
    # `Review my mistakes` on the report is reusable; each `Next mistake` is one-shot.
    if index > 0 and not await first_tap(context, query):
        await query.answer(context.toast("toast-button-used"))
        return
    await query.answer()
    if index > 0:
        await remove_buttons(query.message)  # the previous mistake's `Next` (the report keeps its)
    await show_mistake(update, context, interview, index, lang)


def register(app: Application) -> None:
    app.add_handler(CommandHandler("interview", interview_command, filters=NEW_MESSAGES))
    app.add_handler(CallbackQueryHandler(receive_interview_answer,
                                         pattern=callbacks.InterviewAnswer.pattern()))
    app.add_handler(CallbackQueryHandler(interview_button,
                                         pattern=callbacks.InterviewAction.pattern()))
