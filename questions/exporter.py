"""Exports a bank as CSV (the import format): one row per question and language, so that
exporting and importing again gives the same bank."""

from __future__ import annotations

from questions.csvformat import COLUMNS, write_rows
from questions.loader import Bank
from questions.model import OPTION_KEYS


def bank_rows(bank: Bank) -> list[dict[str, str]]:
    """Rows in bank order: field, topic, question, then en before tr."""
    rows: list[dict[str, str]] = []
    for info in bank.fields.values():
        for topic in info.topics.values():
            for qid in topic.question_ids:
                question = bank.questions[qid]
                for lang in question.languages:
                    text = question.text(lang)
                    rows.append({
                        "id": question.id, "field": info.key,
                        "field_name": getattr(info.name, lang) or "",
                        "topic": topic.key, "topic_name": getattr(topic.name, lang) or "",
                        "specialization": topic.specialization,
                        "keywords": ", ".join(getattr(topic.keywords, lang)),
                        "seniority": question.seniority, "difficulty": str(question.difficulty),
                        "locale": lang, "body": text.body, **text.options,
                        "correct": question.correct, "explanation": text.explanation,
                    })
    return rows


def export_csv(bank: Bank) -> str:
    """The bank as CSV text; the e and f columns only when a question has that many options."""
    rows = bank_rows(bank)
    widest = max((len(q.option_keys) for q in bank.questions.values()), default=4)
    unused = set(OPTION_KEYS[max(widest, 4):])
    return write_rows(rows, [c for c in COLUMNS if c not in unused])

