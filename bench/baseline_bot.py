"""The baseline for `make bench`: a minimal python-telegram-bot 22 quiz bot, nothing more.

/quiz sends a question with A-D buttons; a tap is answered, the question is edited to show
the pick and an explanation is sent. PTB's defaults (updates one at a time) and the standard
AIORateLimiter at Telegram's rates, retrying a 429 as often as the coach bot does.
Run: BOT_TOKEN=... BOT_API_BASE_URL=... python -m bench.baseline_bot
"""

from __future__ import annotations

import html
import logging
import os
import random

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.constants import ParseMode
from telegram.ext import (
    AIORateLimiter,
    ApplicationBuilder,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
    Defaults,
)

# Question, options, right key, explanation: about the size of a bundled question.
QUESTIONS = [
    ("A client receives 304 Not Modified for a resource it requested with If-None-Match. "
     "What happened, and what does the client do with its cached copy?",
     {"a": "The server rejected the request; the client must drop the cached copy",
      "b": "The ETag still matches; the client reuses its cached copy and refreshes its age",
      "c": "The resource moved; the client follows the Location header",
      "d": "The cache expired; the client must send the request again without headers"},
     "b", "304 answers a conditional request whose validator (the ETag) still matches: the body "
     "is not sent again and the client keeps using what it has, with fresh metadata. A is the "
     "tempting wrong answer: 304 is not an error."),
    ("Two transactions read the same row, both add 10 to a counter and commit under READ "
     "COMMITTED. The counter started at 0. What can it end at, and why?",
     {"a": "Always 20: each transaction sees the other's commit",
      "b": "10 or 20: a lost update is possible without SELECT ... FOR UPDATE or an atomic "
           "UPDATE",
      "c": "Always 10: READ COMMITTED serialises writers",
      "d": "The second commit always fails with a serialization error"},
     "b", "Both may read 0 before either commits, so both write 10. UPDATE t SET n = n + 10 "
     "(atomic) or a row lock avoids the lost update; READ COMMITTED alone does not."),
    ("A React component fetches data in useEffect with an empty dependency array, but in "
     "development the request is sent twice. What is the most likely reason?",
     {"a": "React StrictMode mounts, unmounts and remounts components in development",
      "b": "useEffect always runs twice",
      "c": "The browser retries every fetch once",
      "d": "The dependency array must list the fetch function"},
     "a", "StrictMode deliberately runs effects twice in development to reveal missing "
     "cleanups; production runs them once. An AbortController in the cleanup is the fix."),
    ("A Kubernetes pod is OOMKilled while its container's memory usage graph stays below the "
     "node's free memory. Which setting explains it?",
     {"a": "The node's allocatable CPU",
      "b": "The container's memory limit, which the kernel's cgroup enforces",
      "c": "The pod's restartPolicy",
      "d": "The liveness probe's timeout"},
     "b", "The cgroup limit, not the node's free memory, decides: exceeding resources.limits."
     "memory kills the container. Requests only affect scheduling."),
]


def question_text(index: int) -> str:
    body, options, _, _ = QUESTIONS[index]
    lines = [f"<b>Question</b>\n\n{html.escape(body)}", ""]
    lines += [f"<b>{key.upper()}.</b> {html.escape(text)}" for key, text in options.items()]
    return "\n".join(lines)


async def quiz(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/quiz: one question with a button per option."""
    index = random.randrange(len(QUESTIONS))
    buttons = [InlineKeyboardButton(key.upper(), callback_data=f"{index}:{key}")
               for key in QUESTIONS[index][1]]
    await update.effective_chat.send_message(question_text(index),
                                             reply_markup=InlineKeyboardMarkup([buttons]))


async def answer(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A tap: answer it, edit the question to show the pick, send the explanation."""
    query = update.callback_query
    index, chosen = query.data.split(":")
    _, _, right, explanation = QUESTIONS[int(index)]
    correct = chosen == right
    await query.answer("✅ Right!" if correct else f"❌ The answer is {right.upper()}.")
    mark = "✅" if correct else "❌"
    await query.edit_message_text(
        f"{question_text(int(index))}\n\nYour answer: {chosen.upper()} {mark}")
    await update.effective_chat.send_message(
        f"{'✅ Right!' if correct else '❌ The answer is ' + right.upper() + '.'}\n\n"
        f"{html.escape(explanation)}")


def main() -> None:
    logging.basicConfig(level=os.environ.get("LOG_LEVEL", "WARNING"))
    base_url = os.environ.get("BOT_API_BASE_URL", "https://api.telegram.org/bot")
    app = (
        ApplicationBuilder()
        .token(os.environ["BOT_TOKEN"])
        .base_url(base_url)
        .defaults(Defaults(parse_mode=ParseMode.HTML))
        # Telegram's rates (the defaults); retries as many as the coach bot's limiter.
        .rate_limiter(AIORateLimiter(max_retries=5))
        .build()
    )
    app.add_handler(CommandHandler("quiz", quiz))
    app.add_handler(CallbackQueryHandler(answer))
    app.run_polling(allowed_updates=None)


if __name__ == "__main__":
    main()
