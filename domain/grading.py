"""Grading a tap against a question's right key."""

from __future__ import annotations

from dataclasses import dataclass

from questions.model import Question


@dataclass(frozen=True)
class Grade:
    question_id: str
    chosen: str
    correct_key: str

    @property
    def is_correct(self) -> bool:
        return self.chosen == self.correct_key


def grade(question: Question, chosen: str) -> Grade | None:
    """None when `chosen` is not one of the question's options (a forged or stale button)."""
    if chosen not in question.option_keys:
        return None
    return Grade(question.id, chosen, question.correct)
