"""A validated pack split in two for the bank cache: what the bank needs from the start (the
pack and its questions, without their texts) and the texts, pickled apart. The texts are
unpickled only when a question of the pack is first used (`Question.without_texts`), so a
restart builds small objects rather than every string of every question.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable
from typing import Any

from questions.model import LANGUAGES, Pack, Question, QuestionText

# What the bank needs from the start: the pack's fields but its questions, the fields it was
# given, and each question's fields but its texts with the fields it was given.
Skeleton = tuple[dict[str, Any], set[str], list[tuple[dict[str, Any], set[str]]]]


def split(pack: Pack) -> tuple[Skeleton, bytes]:
    """The pack without its texts, and its texts pickled (one (en, tr) pair per question)."""
    questions: list[tuple[dict[str, Any], set[str]]] = []
    texts: list[tuple[QuestionText | None, QuestionText | None]] = []
    for question in pack.questions:
        texts.append((question.en, question.tr))  # read first when still at their source
        values = {k: v for k, v in question.__dict__.items() if k not in LANGUAGES}
        questions.append((values, set(question.model_fields_set)))
    values = {k: v for k, v in pack.__dict__.items() if k != "questions"}
    skeleton = (values, set(pack.model_fields_set), questions)
    return skeleton, pickle.dumps(texts, protocol=pickle.HIGHEST_PROTOCOL)


class PackTexts:
    """The texts of one pack's questions: `read` gives their pickle, unpickled on first use.
    Each question keeps its own once it has them, so this is let go with the last one."""

    __slots__ = ("_read", "_texts")

    def __init__(self, read: Callable[[], bytes]) -> None:
        self._read: Callable[[], bytes] | None = read
        self._texts: list[tuple[QuestionText | None, QuestionText | None]] | None = None

    def texts(self, slot: int) -> tuple[QuestionText | None, QuestionText | None]:
        if self._texts is None:
            assert self._read is not None
            self._texts = pickle.loads(self._read())
            self._read = None
        return self._texts[slot]

    # A copied question shares its source: the texts are the same, and a file is not copied.
    def __copy__(self) -> PackTexts:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> PackTexts:
        return self


def held(blob: bytes) -> Callable[[], bytes]:
    """A `read` for texts already in memory (a worker process's, before they are cached)."""
    return lambda: blob


def join(skeleton: Skeleton, read: Callable[[], bytes]) -> Pack:
    """The pack again, its questions' texts read with `read` when one is first used."""
    values, fields_set, question_states = skeleton
    source = PackTexts(read)
    questions = [Question.without_texts(state, given, source, slot)
                 for slot, (state, given) in enumerate(question_states)]
    pack = Pack.__new__(Pack)
    pack.__setstate__({"__dict__": {**values, "questions": questions},
                       "__pydantic_fields_set__": fields_set, "__pydantic_extra__": None,
                       "__pydantic_private__": None})
    return pack
