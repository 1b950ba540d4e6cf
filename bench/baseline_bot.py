"""The baseline for `make bench`: a minimal python-telegram-bot 22 quiz bot, nothing more.

/quiz sends a question with A-D buttons; a tap is answered, the question is edited to show
the pick and an explanation is sent with the coach's three buttons under it. The questions are
the bundled ones the coach's bench users get (backend, mid, English), in the coach's layout, so
the two bots exchange the same messages; what the baseline leaves out is everything else the
coach does (storage, progress, selection, spaced repetition, ratings, limits per user). PTB's defaults (updates one at a time) and the standard
AIORateLimiter at Telegram's rates, retrying a 429 as often as the coach bot does.
Run: BOT_TOKEN=... BOT_API_BASE_URL=... python -m bench.baseline_bot [--transport aiohttp]
(aiohttp: the coach's transport, bot/http.py, instead of PTB's default httpx.)
"""

from __future__ import annotations

import html
import logging
import os
import random
import re
import sys
from pathlib import Path

import yaml
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

BANK = Path(__file__).resolve().parent.parent / "questions" / "bank"
FIELD, LEVEL = "backend", "mid"  # what the bench's coach users practise
_CODE_BLOCK = re.compile(r"```([a-z]*)\n(.*?)\n?```", re.S)
_CODE = re.compile(r"`([^`]+)`")


def load_questions() -> list[tuple[str, dict[str, str], str, str]]:
    """The bundled bank's English questions of the bench's field and level, read as plain YAML:
    the same questions the coach asks, so both bots send messages of the same size and shape."""
    out = []
    for path in sorted((BANK / FIELD).glob("*.yaml")):
        pack = yaml.safe_load(path.read_text(encoding="utf-8"))
        title = f"{pack['field_name']['en']} · {pack['topic_name']['en']}"
        for q in pack["questions"]:
            if q.get("seniority") == LEVEL and q.get("en"):
                en = q["en"]
                out.append((f"<b>{html.escape(title)}</b> · {LEVEL.title()}\n\n"
                            f"{markup(en['body'].strip())}", en["options"], q["correct"],
                            markup(en["explanation"])))
    return out


def markup(text: str) -> str:
    """HTML-escaped, code spans and blocks as <code> and <pre> (what the coach's renderer does)."""
    text = html.escape(text, quote=False)
    text = _CODE_BLOCK.sub(
        lambda m: f'<pre><code class="language-{m.group(1)}">{m.group(2)}</code></pre>', text)
    return _CODE.sub(lambda m: f"<code>{m.group(1)}</code>", text)


QUESTIONS = load_questions()
# Under the explanation, as the coach shows them ("I guessed" only after a right answer).
NEXT = [InlineKeyboardButton("Next ▶", callback_data="next"),
        InlineKeyboardButton("⚑ Report", callback_data="report")]
GUESSED = [InlineKeyboardButton("I guessed 🤔", callback_data="guessed")]


def question_text(index: int, marks: dict[str, str] | None = None) -> str:
    head, options, _, _ = QUESTIONS[index]
    marks = marks or {}
    lines = [head, ""]
    lines += [f"<b>{key.upper()}.</b> {markup(str(text))}{marks.get(key, '')}"
              for key, text in sorted(options.items())]
    return "\n".join(lines)


async def quiz(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/quiz: one question with a button per option."""
    index = random.randrange(len(QUESTIONS))
    buttons = [InlineKeyboardButton(key.upper(), callback_data=f"{index}:{key}")
               for key in sorted(QUESTIONS[index][1])]
    await update.effective_chat.send_message(question_text(index),
                                             reply_markup=InlineKeyboardMarkup([buttons]))


async def answer(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A tap: answer it, edit the question to show the pick, send the explanation."""
    query = update.callback_query
    if ":" not in query.data:
        await query.answer()
        return
    index, chosen = query.data.split(":")
    _, _, right, explanation = QUESTIONS[int(index)]
    correct = chosen == right
    await query.answer("✅ Right!" if correct else f"❌ Not quite: the answer is {right.upper()}.")
    marks = {right: " ✅"} if correct else {right: " ✅", chosen: " ❌"}
    mark = "✅" if correct else "❌"
    await query.edit_message_text(
        f"{question_text(int(index), marks)}\n\nYour answer: <b>{chosen.upper()}</b> {mark}"
        f" · Right answer: <b>{right.upper()}</b>")
    await update.effective_chat.send_message(
        f"{'✅ <b>Right!</b>' if correct else '❌ <b>The answer is ' + right.upper() + '.</b>'}"
        f"\n\n{explanation}",
        reply_markup=InlineKeyboardMarkup([NEXT, GUESSED] if correct else [NEXT]))


def main() -> None:
    logging.basicConfig(level=os.environ.get("LOG_LEVEL", "WARNING"))
    base_url = os.environ.get("BOT_API_BASE_URL", "https://api.telegram.org/bot")
    builder = ApplicationBuilder()
    if sys.argv[1:] == ["--transport", "aiohttp"]:  # the coach's transport, for comparison
        from bot.http import AiohttpRequest

        builder = builder.request(AiohttpRequest()).get_updates_request(
            AiohttpRequest(connection_pool_size=1))
    app = (
        builder
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
