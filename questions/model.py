"""The question bank's data model: packs as written in YAML, and the questions the bot asks."""

from __future__ import annotations

import hashlib
import re
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal, Protocol

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SerializerFunctionWrapHandler,
    field_validator,
    model_serializer,
    model_validator,
)

Level = Literal["junior", "mid", "senior"]
LEVELS: tuple[str, ...] = ("junior", "mid", "senior")
LANGUAGES: tuple[str, ...] = ("en", "tr")
KEY_PATTERN = r"^[a-z0-9][a-z0-9-]{0,47}$"
OPTION_KEYS = "abcdef"
# Field and topic names are shown inside lines of other text (the question header, /topics,
# /stats, round scopes), so each is one short line: every message that joins names fits.
MAX_NAME_CHARS = 64


class Localized(BaseModel):
    """A name given in English and/or Turkish."""

    model_config = ConfigDict(extra="forbid")
    en: str | None = Field(default=None, max_length=MAX_NAME_CHARS)
    tr: str | None = Field(default=None, max_length=MAX_NAME_CHARS)

    @field_validator("en", "tr")
    @classmethod
    def _one_line(cls, value: str | None) -> str | None:
        if value is not None and ("\n" in value or "\r" in value):
            raise ValueError("a name is one line")
        return value

    def get(self, lang: str) -> str:
        return (self.tr if lang == "tr" else self.en) or self.en or self.tr or ""


# An explanation that names an option by its letter is false once options are shown shuffled:
# "(b)", "option c", "b is wrong", "(a, c)", "c şıkkı", "b seçeneği". Code is left out (`f(c)`).
_LETTER = "[a-f]"
# Each kind of reference, with words that must be in the (lower-cased) prose for it to be
# there at all: a substring test is cheap, and a 30,000-question bank runs this 60,000 times.
_REFERENCES: tuple[tuple[tuple[str, ...], re.Pattern[str]], ...] = (
    (("(",), re.compile(rf"\({_LETTER}\)|\(({_LETTER},\s*)+{_LETTER}\)")),
    (("option", "answer", "choice"), re.compile(
        r"\b(?i:option|answer|choice)s?\s+(?:[b-f]\b|a(?=\s*(?:[,.;:)]|is\b|and\b|or\b|$)))")),
    (("wrong", "right", "correct"), re.compile(
        r"\b[b-f]\s+(?:is|are|was|would be)\s+(?:wrong|right|correct|incorrect)\b")),
    (("şıkkı", "seçeneği"), re.compile(rf"\b{_LETTER}\)?\s+(?:şıkkı|seçeneği)")),
    (("şık", "seçenek"), re.compile(rf"\b(?i:şık|seçenek)\s+{_LETTER}\b")),
)
_CODE = re.compile(r"```.*?```|`[^`]*`", re.DOTALL)


def names_an_option_letter(explanation: str) -> bool:
    """True when the prose of an explanation (not its code) names an option by its letter."""
    prose = _CODE.sub(" ", explanation)
    lowered = prose.lower()
    return any(any(word in lowered for word in words) and pattern.search(prose)
               for words, pattern in _REFERENCES)


class QuestionText(BaseModel):
    """One language's version of a question."""

    model_config = ConfigDict(extra="forbid")
    body: str = Field(min_length=1)
    options: dict[str, str]
    explanation: str = Field(min_length=1)

    @field_validator("options", mode="before")
    @classmethod
    def _options_as_text(cls, value: object) -> object:
        # YAML turns `a: 1` or `a: yes` into numbers and booleans; an option is always text.
        if isinstance(value, dict):
            return {str(k): v if isinstance(v, str) else str(v) for k, v in value.items()}
        return value

    @field_validator("explanation")
    @classmethod
    def _no_option_letters(cls, value: str) -> str:
        if names_an_option_letter(value):
            raise ValueError("names an option by its letter; options are shown in a new order "
                             "each time, so refer to the option by what it says")
        return value

    @field_validator("options")
    @classmethod
    def _option_keys(cls, value: dict[str, str]) -> dict[str, str]:
        keys = list(value)
        if not 2 <= len(keys) <= 6:
            raise ValueError(f"needs 2 to 6 options, has {len(keys)}")
        if keys != list(OPTION_KEYS[: len(keys)]):
            raise ValueError(f"option keys must be a, b, c... in order, got {', '.join(keys)}")
        for key, text in value.items():
            if not text.strip():
                raise ValueError(f"option {key} is empty")
        return value


class TextSource(Protocol):
    """Where the texts of questions read without them come from (questions/cache.py)."""

    def texts(self, slot: int) -> tuple[QuestionText | None, QuestionText | None]:
        """The (en, tr) texts of the question in `slot`."""


class Question(BaseModel):
    """A multiple-choice question; `field` and `topic` come from its pack.

    A question read back from the bank cache comes without its texts: `en` and `tr` are read
    with its pack's on first use (`_texts` says from where). A restart of a 30,000-question bank
    then builds 30,000 small objects instead of also 360,000 strings, and only the packs in use
    take memory. Equality, pickling and dumps read the texts first, so nothing else can tell.
    """

    model_config = ConfigDict(extra="forbid")
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9._-]{0,99}$")
    seniority: Level
    difficulty: int = Field(ge=1, le=3)
    correct: str
    en: QuestionText | None = None
    tr: QuestionText | None = None
    field: str = ""
    topic: str = ""
    # False for the rare question whose options only make sense in order ("all of the above").
    shuffle: bool = True
    _texts: tuple[TextSource, int] | None = PrivateAttr(default=None)

    @classmethod
    def without_texts(cls, values: dict[str, Any], fields_set: set[str], source: TextSource,
                      slot: int) -> Question:
        """A question from its other fields, already validated (the bank cache's); `en` and
        `tr` come from `source` on first use."""
        question = cls.__new__(cls)
        # What unpickling sets (BaseModel.__setstate__), without its dict of state per question.
        set_slot = object.__setattr__
        set_slot(question, "__dict__", values)
        set_slot(question, "__pydantic_fields_set__", fields_set)
        set_slot(question, "__pydantic_extra__", None)
        set_slot(question, "__pydantic_private__", {"_texts": (source, slot)})
        return question

    def _read_texts(self) -> None:
        """Fill in `en` and `tr` when they are still at their source."""
        private = self.__pydantic_private__
        lazy = private.get("_texts") if private else None
        if lazy is not None:
            source, slot = lazy
            texts = dict(zip(LANGUAGES, source.texts(slot), strict=True))
            values = self.__dict__
            # In the fields' order, as if validated whole (dumps and exports keep their order);
            # a copy's own update of a text stays.
            merged = {name: values[name] if name in values else texts[name]
                      for name in type(self).model_fields if name in values or name in texts}
            merged.update(values)  # what is not a field: the cached key
            object.__setattr__(self, "__dict__", merged)
            private["_texts"] = None  # type: ignore[index]

    if not TYPE_CHECKING:  # for mypy, en and tr are plain fields
        def __getattr__(self, name: str) -> Any:  # only for what normal lookup did not find
            if name in LANGUAGES:
                self._read_texts()
                if name in self.__dict__:
                    return self.__dict__[name]
            return super().__getattr__(name)

    def __getstate__(self) -> dict[Any, Any]:
        self._read_texts()
        return super().__getstate__()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Question):
            self._read_texts()
            other._read_texts()
        return super().__eq__(other)

    @model_serializer(mode="wrap")
    def _dump_with_texts(self, handler: SerializerFunctionWrapHandler) -> Any:
        self._read_texts()
        return handler(self)

    @model_validator(mode="after")
    def _consistent(self) -> Question:
        texts = [t for t in (self.en, self.tr) if t is not None]
        if not texts:
            raise ValueError("needs at least one of en / tr")
        if self.en and self.tr and list(self.en.options) != list(self.tr.options):
            raise ValueError("options differ between en and tr")
        if self.correct not in texts[0].options:
            raise ValueError(f"correct key {self.correct!r} is not one of the options")
        return self

    @cached_property
    def key(self) -> str:
        """A short stable key for callback data (64-byte limit); collisions are checked at load.
        Kept once computed, so the bank cache holds it too (a restart hashed every id again)."""
        return question_key(self.id)

    @property
    def languages(self) -> list[str]:
        return [lang for lang in LANGUAGES if getattr(self, lang) is not None]

    def text(self, lang: str) -> QuestionText:
        """The text in `lang` when the question has it, else the other language."""
        chosen = getattr(self, lang, None) if lang in LANGUAGES else None
        return chosen or self.en or self.tr  # type: ignore[return-value]

    @property
    def option_keys(self) -> list[str]:
        return list(self.text("en").options)


class Keywords(BaseModel):
    model_config = ConfigDict(extra="forbid")
    en: list[str] = []
    tr: list[str] = []


class Pack(BaseModel):
    """One YAML file: the questions of one topic of one field."""

    model_config = ConfigDict(extra="forbid")
    field: str = Field(pattern=KEY_PATTERN)
    field_name: Localized | None = None
    topic: str = Field(pattern=KEY_PATTERN)
    topic_name: Localized | None = None
    specialization: str = "general"
    keywords: Keywords = Keywords()
    questions: list[Question] = []

    @field_validator("field_name", "topic_name", mode="before")
    @classmethod
    def _plain_name(cls, value: object) -> object:
        return {"en": value, "tr": value} if isinstance(value, str) else value


def question_key(question_id: str) -> str:
    return hashlib.blake2b(question_id.encode(), digest_size=5).hexdigest()


def humanize(key: str) -> str:
    """`http-caching` -> `Http caching`: a fallback name for a topic or field without one."""
    words = re.split(r"[-_]+", key)
    return " ".join(words).capitalize()
