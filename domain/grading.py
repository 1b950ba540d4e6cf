"""Grading a tap against a question's right key."""

from __future__ import annotations

import hashlib
import random
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


# Options are shown in a new order each time a question is asked, so position memory cannot
# stand in for knowledge. An order is the pack's option keys as shown, top to bottom ("cadb");
# buttons and texts label them A, B, C... by position, while answers store the pack's key.
LABELS = "ABCDEF"


def shown_order(question: Question, rng: random.Random) -> str:
    """A fresh order for one asking (the pack's order for a `shuffle: false` question)."""
    keys = list(question.option_keys)
    if question.shuffle:
        rng.shuffle(keys)
    return "".join(keys)


def seeded_order(question: Question, seed: str) -> str:
    """The same order every time for one seed (an interview's or a round's question position),
    so every tap, every edit and a restart all see what the message shows."""
    digest = hashlib.sha256(f"{seed}:{question.id}".encode()).digest()
    return shown_order(question, random.Random(int.from_bytes(digest[:8], "big")))


def checked_order(question: Question, order: str | None) -> str | None:
    """`order` when it is an order of exactly this question's options; the pack's order for
    None (a button from before options were shuffled); None for anything else (forged)."""
    keys = "".join(question.option_keys)
    if order is None:
        return keys
    return order if sorted(order) == sorted(keys) and len(set(order)) == len(order) else None


def label(order: str, key: str) -> str:
    """The letter `key` is shown under in `order`."""
    return LABELS[order.index(key)]
