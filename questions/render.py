"""How a question looks in a chat message (Telegram HTML), shared by the bot and the validator."""

from __future__ import annotations

from questions.markup import escape, to_html
from questions.model import Question

MESSAGE_LIMIT = 4096
# Room kept for the header and the grading lines added when the message is edited.
RESERVED = 300


def option_label(key: str, order: str | None = None) -> str:
    """The letter an option is shown under: its place in `order` (the shown order), else the
    pack's own letter."""
    return "ABCDEF"[order.index(key)] if order else key.upper()


def _shown(options: dict[str, str], order: str | None) -> list[tuple[str, str]]:
    return [(key, options[key]) for key in order] if order else list(options.items())


def question_html(question: Question, lang: str, *, header: str = "",
                  order: str | None = None) -> str:
    """The question body and its lettered options (in the shown order), as sent with the
    answer buttons."""
    text = question.text(lang)
    lines = [header, ""] if header else []
    lines.append(to_html(text.body))
    lines.append("")
    for key, option in _shown(text.options, order):
        lines.append(f"<b>{option_label(key, order)}.</b> {to_html(option)}")
    return "\n".join(lines)


def graded_html(question: Question, lang: str, *, header: str, chosen: str | None,
                result_line: str, order: str | None = None) -> str:
    """The question after the tap: options marked, the user's pick and the right answer below."""
    text = question.text(lang)
    lines = [header, ""] if header else []
    lines.append(to_html(text.body))
    lines.append("")
    for key, option in _shown(text.options, order):
        mark = ""
        if key == question.correct:
            mark = " ✅"
        elif key == chosen:
            mark = " ❌"
        lines.append(f"<b>{option_label(key, order)}.</b> {to_html(option)}{mark}")
    lines.append("")
    lines.append(result_line)
    return "\n".join(lines)


def explanation_html(question: Question, lang: str) -> str:
    return to_html(question.text(lang).explanation)


def header_html(field_name: str, topic_name: str, level_name: str) -> str:
    return f"<b>{escape(field_name)} · {escape(topic_name)}</b> · {escape(level_name)}"
