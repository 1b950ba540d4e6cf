"""Callback data: versioned, self-contained, at most 64 bytes; built and parsed only here.

Format: `v1:<kind>:<arg>:<arg>...`. The client writes callback data, so every kind has one typed
schema below that range-checks each field when decoding (numbers: ASCII digits, at most 12;
keys: from a known set or pattern). A handler receives checked values or None; data that does
not parse is an expired (or forged) button.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any, ClassVar, TypeVar

from domain.numbers import parse_number

VERSION = "v1"
MAX_BYTES = 64
_ARG = re.compile(r"^[A-Za-z0-9_.+\-]*$")
MAX_DIGITS = 12  # ids SQLite holds with room to spare; a 40-digit forged id never reaches it


# Field parsers: text -> value, or ValueError. Each names what a field may hold.
def number(text: str) -> int:
    value = parse_number(text, max_digits=MAX_DIGITS)
    if value is None:
        raise ValueError("not a number of ours")
    return value


def one_of(*allowed: str) -> Callable[[str], str]:
    def parse(text: str) -> str:
        if text not in allowed:
            raise ValueError("not an allowed value")
        return text
    return parse


def matching(pattern: str) -> Callable[[str], str]:
    compiled = re.compile(pattern)

    def parse(text: str) -> str:
        if not compiled.fullmatch(text):
            raise ValueError("does not match")
        return text
    return parse


QUESTION_KEY = matching(r"[0-9a-f]{10}")  # questions.model.question_key
OPTION = one_of(*"abcdef")
ORDER = matching(r"[a-f]{2,6}")  # the option keys as shown (domain.grading.shown_order)
TOPIC = matching(r"[a-z0-9][a-z0-9-]{0,47}")  # questions.model.KEY_PATTERN
LANGUAGES = one_of("en", "tr")
LEVELS = one_of("junior", "mid", "senior")


class Schema:
    """Base of the kinds: `KIND`, and per dataclass field a parser in `PARSE` (same order).

    Fields after `REQUIRED` may be missing (None); a None in the middle is written as "".
    """

    KIND: ClassVar[str]
    PARSE: ClassVar[tuple[Callable[[str], Any], ...]]
    REQUIRED: ClassVar[int] = -1  # -1: all fields

    def encode(self) -> str:
        # The fields are flat (str, int, bool): astuple would deep-copy them for nothing.
        values = ["" if (v := getattr(self, f.name)) is None else str(v)
                  for f in fields(self)]  # type: ignore[arg-type]
        while values and values[-1] == "" and len(values) > self._required():
            values.pop()
        return encode(self.KIND, *values)

    @classmethod
    def _required(cls) -> int:
        return len(fields(cls)) if cls.REQUIRED < 0 else cls.REQUIRED  # type: ignore[arg-type]

    @classmethod
    def parse(cls: type[S], data: str | None) -> S | None:
        """The checked fields of a button of this kind, or None."""
        raw = decode(data)
        if raw is None or raw.kind != cls.KIND:
            return None
        count = len(fields(cls))  # type: ignore[arg-type]
        if not cls._required() <= len(raw.args) <= count:
            return None
        values: list[Any] = []
        for index, parse in enumerate(cls.PARSE):
            text = raw.args[index] if index < len(raw.args) else ""
            if text == "" and index >= cls._required():
                values.append(None)
                continue
            try:
                values.append(parse(text))
            except ValueError:
                return None
        return cls(*values)

    @classmethod
    def pattern(cls) -> str:
        return pattern(cls.KIND)


S = TypeVar("S", bound=Schema)


@dataclass(frozen=True)
class LanguageChoice(Schema):
    KIND: ClassVar[str] = "l"
    PARSE = (LANGUAGES,)
    language: str


@dataclass(frozen=True)
class FieldChoice(Schema):
    KIND: ClassVar[str] = "f"
    PARSE = (TOPIC,)
    field_key: str


@dataclass(frozen=True)
class LevelChoice(Schema):
    KIND: ClassVar[str] = "v"
    PARSE = (LEVELS,)
    level: str


@dataclass(frozen=True)
class Answer(Schema):
    """A letter under a practice question: which question, which option (its key in the pack),
    whose (in a group), whether `Next` stays on the question's topic ("t"), and the order the
    options were shown in (missing on buttons from before options were shuffled)."""

    KIND: ClassVar[str] = "a"
    PARSE = (QUESTION_KEY, OPTION, number, one_of("t"), ORDER)
    REQUIRED: ClassVar[int] = 2
    question_key: str
    option: str
    owner: int | None = None
    on_topic: str | None = None
    order: str | None = None


@dataclass(frozen=True)
class Next(Schema):
    """`Next ▶` / `Start practice ▶`, on a topic or not."""

    KIND: ClassVar[str] = "n"
    PARSE = (TOPIC,)
    REQUIRED: ClassVar[int] = 0
    topic: str | None = None


@dataclass(frozen=True)
class TopicPick(Schema):
    """A topic in a list (/topics, a /quiz topic not found): ask one question on it and leave
    the list as it is, so another topic is one more tap."""

    KIND: ClassVar[str] = "tp"
    PARSE = (TOPIC,)
    topic: str


@dataclass(frozen=True)
class ReminderChoice(Schema):
    """A preset time under /remind (`HHMM`) or `off`."""

    KIND: ClassVar[str] = "r"
    PARSE = (matching(r"off|[0-2][0-9][0-5][0-9]"),)
    value: str


@dataclass(frozen=True)
class TimezoneChoice(Schema):
    """A zone under /timezone; "/" is not allowed in callback data and no IANA name has "."."""

    KIND: ClassVar[str] = "z"
    PARSE = (matching(r"[A-Za-z0-9_+\-]+(\.[A-Za-z0-9_+\-]+){0,2}"),)
    zone: str

    @property
    def name(self) -> str:
        return self.zone.replace(".", "/")

    @classmethod
    def of(cls, name: str) -> TimezoneChoice:
        return cls(name.replace("/", "."))


@dataclass(frozen=True)
class InterviewAnswer(Schema):
    KIND: ClassVar[str] = "i"
    PARSE = (number, number, OPTION)
    interview_id: int
    position: int
    option: str


@dataclass(frozen=True)
class InterviewAction(Schema):
    """Stop an interview (s), review its mistakes from `index` (m), or start a new one (n)."""

    KIND: ClassVar[str] = "ix"
    PARSE = (one_of("s", "m", "n"), number, number)
    REQUIRED: ClassVar[int] = 1
    action: str
    interview_id: int | None = None
    index: int | None = None


@dataclass(frozen=True)
class Review(Schema):
    """/review: a letter under a due card's question (with the shown order), or `Next review`
    (no fields)."""

    KIND: ClassVar[str] = "rv"
    PARSE = (QUESTION_KEY, OPTION, ORDER)
    REQUIRED: ClassVar[int] = 0
    question_key: str | None = None
    option: str | None = None
    order: str | None = None


@dataclass(frozen=True)
class Mistake(Review):
    """/mistakes: a letter under a missed question (with the shown order), or `Next mistake`
    (no fields); the same fields as a review button, its own kind."""

    KIND: ClassVar[str] = "mk"


@dataclass(frozen=True)
class Guessed(Schema):
    """`I guessed 🤔` under the explanation of a right answer: which stored answer."""

    KIND: ClassVar[str] = "gu"
    PARSE = (number,)
    answer_id: int


@dataclass(frozen=True)
class DeleteMe(Schema):
    KIND: ClassVar[str] = "d"
    PARSE = (one_of("yes", "no"), number)
    choice: str
    owner: int


@dataclass(frozen=True)
class JobMatchAction(Schema):
    """Use / change field / cancel under a ranked job ad (`rank` with use only)."""

    KIND: ClassVar[str] = "j"
    PARSE = (one_of("u", "c", "x"), number, number)
    REQUIRED: ClassVar[int] = 2
    action: str
    match_id: int
    rank: int | None = None


@dataclass(frozen=True)
class JobMatchField(Schema):
    """A field picked for a ranked job ad."""

    KIND: ClassVar[str] = "jf"
    PARSE = (number, number)
    match_id: int
    rank: int


@dataclass(frozen=True)
class RoundAnswer(Schema):
    """A letter on a group round question."""

    KIND: ClassVar[str] = "g"
    PARSE = (number, number, OPTION)
    round_id: int
    position: int
    option: str


@dataclass(frozen=True)
class Flag(Schema):
    """`⚑ Report` under an explanation (no reason: show the reasons), or one reason."""

    KIND: ClassVar[str] = "fl"
    PARSE = (QUESTION_KEY, one_of("key", "unclear", "outdated", "typo"))
    REQUIRED: ClassVar[int] = 1
    question_key: str
    reason: str | None = None


@dataclass(frozen=True)
class FlagResolve(Schema):
    """/flags (admins): mark a question's open reports fixed (f) or dismissed (d); the question
    is named by one of its reports, so a question gone from the bank can still be closed."""

    KIND: ClassVar[str] = "fx"
    PARSE = (one_of("f", "d"), number)
    action: str
    flag_id: int


@dataclass(frozen=True)
class LevelNotYet(Schema):
    """`Not yet` under a level-up suggestion: stay at `level`."""

    KIND: ClassVar[str] = "vn"
    PARSE = (LEVELS,)
    level: str


@dataclass(frozen=True)
class SharedAnswer(Schema):
    """A letter under a question shared in inline mode: the question, the option, the
    language the message is in and the order its options are shown in. Anyone in the chat may
    tap it; the message is named by the tap's inline_message_id, not by the data."""

    KIND: ClassVar[str] = "sh"
    PARSE = (QUESTION_KEY, OPTION, LANGUAGES, ORDER)
    question_key: str
    option: str
    language: str
    order: str


KINDS: tuple[type[Schema], ...] = (
    LanguageChoice, FieldChoice, LevelChoice, Answer, Next, ReminderChoice, TimezoneChoice,
    InterviewAnswer, InterviewAction, Review, Mistake, Guessed, DeleteMe, JobMatchAction,
    JobMatchField, RoundAnswer, Flag, FlagResolve, LevelNotYet, SharedAnswer)
assert len({k.KIND for k in KINDS}) == len(KINDS), "two kinds share a letter"
assert all(len(k.PARSE) == len(fields(k)) for k in KINDS)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Callback:
    kind: str
    args: tuple[str, ...]


def encode(kind: str, *args: object) -> str:
    parts = [VERSION, kind, *(str(a) for a in args)]
    for part in parts[2:]:
        if not _ARG.match(part):
            raise ValueError(f"callback argument {part!r} has characters outside [A-Za-z0-9_.+-]")
    data = ":".join(parts)
    if len(data.encode()) > MAX_BYTES:
        raise ValueError(f"callback data over {MAX_BYTES} bytes: {data!r}")
    return data


def decode(data: str | None) -> Callback | None:
    """The raw kind and arguments, or None for anything this version of the bot did not make."""
    if not data or len(data.encode()) > MAX_BYTES:
        return None
    parts = data.split(":")
    if len(parts) < 2 or parts[0] != VERSION or not parts[1]:
        return None
    if not all(_ARG.match(p) for p in parts[2:]):
        return None
    return Callback(parts[1], tuple(parts[2:]))


def pattern(kind: str) -> str:
    """A CallbackQueryHandler pattern for one kind."""
    return rf"^{VERSION}:{re.escape(kind)}(:|$)"
