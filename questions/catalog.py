"""Reads the interview-practice platform's catalog page payload: Nuxt's flattened "devalue" JSON.

The payload is one array; element 0 is the root. Inside objects and arrays, numbers are indices
into that array, negative numbers are special values (-1 undefined...), and an array that starts
with a string is a typed wrapper such as `["ShallowReactive", 5]`. Only the entries the import
needs are resolved, each at most a bounded number of times, so a hostile payload (an index loop,
a reference fan-out, a wrong type) ends in a clear error instead of a hang.
"""

from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass
from typing import Any

# Wrappers Nuxt adds around reactive state; their value is the wrapped entry.
WRAPPERS = {"ShallowReactive", "Reactive", "Ref", "ShallowRef", "EmptyRef", "EmptyShallowRef"}
UNDEFINED, HOLE = -1, -2
CATALOG_KEY = re.compile(r"^catalog:(?P<locale>[^:]+):(?P<field>[^/]+)/(?P<topic>.+)$")
NUXT_DATA = re.compile(r'<script[^>]*\bid="__NUXT_DATA__"[^>]*>(.*?)</script>', re.DOTALL)
MAX_OPTIONS = 6


class PayloadError(ValueError):
    """The payload does not have the shape of a catalog page (the message says where)."""


class TooManyReads(PayloadError):
    """The payload points at the same entries over and over: stop reading it altogether."""


@dataclass
class Sample:
    where: str
    id: str
    difficulty: int
    body: str
    options: dict[str, str]
    correct: str
    explanation: str


@dataclass
class CatalogTopic:
    """One `catalog:<locale>:<field>/<topic>` entry."""

    key: str
    locale: str
    field: str
    field_name: dict[str, str]
    topic: str
    topic_name: str | None
    specialization: str | None
    samples: list[Sample] = dataclasses.field(default_factory=list)


class Payload:
    """Typed access to the flattened array, with loop detection and a visit budget."""

    def __init__(self, table: list[Any]) -> None:
        self.table = table
        # Each entry is read a few times at most in a real page; far more means fan-out abuse.
        self.budget = 20 * len(table) + 1_000

    def entry(self, index: Any, what: str) -> Any:
        """The value at `index`, wrappers followed; None for undefined."""
        seen: set[int] = set()
        while True:
            if type(index) is not int:
                raise PayloadError(f"{what}: {json.dumps(index)[:40]} is not an index")
            if index == UNDEFINED:
                return None
            if not 0 <= index < len(self.table):
                raise PayloadError(f"{what}: index {index} is outside the payload "
                                   f"(0..{len(self.table) - 1})")
            if index in seen:
                raise PayloadError(f"{what}: index loop at entry {index}")
            seen.add(index)
            self.budget -= 1
            if self.budget < 0:
                raise TooManyReads("the payload refers to the same entries too many times")
            value = self.table[index]
            if isinstance(value, list) and value and isinstance(value[0], str):
                if value[0] in WRAPPERS and len(value) == 2:
                    index = value[1]
                    continue
                raise PayloadError(f"{what}: entry {index} is a {value[0][:30]!r} value")
            return value

    def obj(self, index: Any, what: str) -> dict[str, Any]:
        value = self.entry(index, what)
        if not isinstance(value, dict):
            raise PayloadError(f"{what}: expected an object, found {_kind(value)}")
        return value

    def arr(self, index: Any, what: str) -> list[Any]:
        value = self.entry(index, what)
        if value is None:
            return []
        if not isinstance(value, list):
            raise PayloadError(f"{what}: expected an array, found {_kind(value)}")
        return [i for i in value if i != HOLE]

    def text(self, index: Any, what: str, *, optional: bool = False) -> str | None:
        value = self.entry(index, what)
        if value is None and optional:
            return None
        if not isinstance(value, str):
            raise PayloadError(f"{what}: expected text, found {_kind(value)}")
        return value

    def number(self, index: Any, what: str) -> int:
        value = self.entry(index, what)
        if type(value) is not int:
            raise PayloadError(f"{what}: expected a whole number, found {_kind(value)}")
        return value


def _kind(value: Any) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "true/false"
    return {dict: "an object", list: "an array", str: "text", int: "a number",
            float: "a number"}.get(type(value), type(value).__name__)


def parse_json(text: str) -> list[Any]:
    """The flattened array from the payload JSON, or from a saved page's __NUXT_DATA__ script."""
    stripped = text.lstrip()
    if stripped.startswith("<"):
        match = NUXT_DATA.search(text)
        if match is None:
            raise PayloadError("an HTML page without the __NUXT_DATA__ payload script")
        stripped = match.group(1)
    try:
        table = json.loads(stripped)
    except RecursionError:
        raise PayloadError("not valid JSON (nested too deeply)") from None
    except json.JSONDecodeError as exc:
        raise PayloadError(f"not valid JSON (line {exc.lineno}, column {exc.colno}: "
                           f"{exc.msg})") from None
    except ValueError as exc:  # e.g. an integer with thousands of digits
        raise PayloadError(f"not valid JSON ({str(exc)[:80]})") from None
    if not isinstance(table, list) or not table or not isinstance(table[0], dict):
        raise PayloadError("not a catalog page payload: expected a JSON array whose first "
                           "element is the root object")
    return table


def read_catalog(text: str) -> tuple[list[CatalogTopic], list[str]]:
    """Every catalog entry of a page, and the problems found (entry or sample named in each)."""
    payload = Payload(parse_json(text))
    root = payload.obj(0, "root")
    data = payload.obj(root["data"], "data") if "data" in root else root
    keys = [key for key in data if key.startswith("catalog:")]
    if not keys:
        raise PayloadError("no catalog:<locale>:<field>/<topic> entry in the page data")
    field_names = _field_names(payload, data)
    topics: list[CatalogTopic] = []
    problems: list[str] = []
    seen_entries: set[int] = set()
    for key in keys:
        if type(data[key]) is int:
            if data[key] in seen_entries:
                continue  # the same entry under two keys: read it once
            seen_entries.add(data[key])
        try:
            topics.append(_read_topic(payload, key, data[key], field_names, problems))
        except TooManyReads:
            raise
        except PayloadError as exc:
            problems.append(f"{key}: {exc}")
    return topics, problems


def _field_names(payload: Payload, data: dict[str, Any]) -> dict[str, dict[str, str]]:
    """Field names in both languages from the page's config, when it has them."""
    names: dict[str, dict[str, str]] = {}
    try:
        config = payload.obj(data["config"], "config") if "config" in data else {}
        for index in payload.arr(config.get("fields", UNDEFINED), "config.fields"):
            entry = payload.obj(index, "config.fields")
            key = payload.text(entry.get("key", UNDEFINED), "key", optional=True)
            if not key:
                continue
            names[key] = {lang: name for lang in ("en", "tr")
                          if (name := payload.text(entry.get(f"name_{lang}", UNDEFINED), "name",
                                                   optional=True))}
    except TooManyReads:
        raise
    except PayloadError:
        return {}  # names are a nicety; a broken config must not block the questions
    return names


def _read_topic(payload: Payload, key: str, index: Any, field_names: dict[str, dict[str, str]],
                problems: list[str]) -> CatalogTopic:
    entry = payload.obj(index, "entry")
    match = CATALOG_KEY.match(key)

    def text(name: str, *, optional: bool = True) -> str | None:
        value = payload.text(entry.get(name, UNDEFINED), name, optional=optional)
        return value.strip() if value else None

    locale = text("locale") or (match and match["locale"])
    field_key = text("field_key") or (match and match["field"])
    topic_key = text("topic_key") or (match and match["topic"])
    if not (locale and field_key and topic_key):
        raise PayloadError("needs locale, field_key and topic_key")
    field_name = field_names.get(field_key) or {}
    if not field_name and (name := text("field_name")):
        field_name = {locale: name}
    topic = CatalogTopic(key=key, locale=locale, field=field_key, field_name=field_name,
                         topic=topic_key, topic_name=text("topic_name"),
                         specialization=text("spec_key"))
    for number, sample_index in enumerate(payload.arr(entry.get("samples", UNDEFINED),
                                                      "samples"), start=1):
        where = f"{key}: sample {number}"
        try:
            topic.samples.append(_read_sample(payload, sample_index, where))
        except TooManyReads:
            raise
        except PayloadError as exc:
            problems.append(f"{where}: {exc}")
    return topic


def _read_sample(payload: Payload, index: Any, where: str) -> Sample:
    sample = payload.obj(index, "sample")
    qid = (payload.text(sample.get("id", UNDEFINED), "id") or "").strip().lower()
    try:
        return _sample_fields(payload, sample, f"{where} (id {qid[:60]})", qid)
    except TooManyReads:
        raise
    except PayloadError as exc:
        raise PayloadError(f"(id {qid[:60]}) {exc}") from None


def _sample_fields(payload: Payload, sample: dict[str, Any], where: str, qid: str) -> Sample:
    option_indices = payload.arr(sample.get("options", UNDEFINED), "options")
    if len(option_indices) > MAX_OPTIONS:
        raise PayloadError(f"options: {len(option_indices)} options (at most {MAX_OPTIONS})")
    options: dict[str, str] = {}
    for option_index in option_indices:
        option = payload.obj(option_index, "options")
        option_key = (payload.text(option.get("key", UNDEFINED), "option key") or "").strip()
        if option_key.lower() in options:
            raise PayloadError(f"options: key {option_key!r} appears twice")
        options[option_key.lower()] = payload.text(option.get("text", UNDEFINED),
                                                   f"option {option_key}") or ""
    return Sample(
        where=where, id=qid,
        difficulty=payload.number(sample.get("difficulty", UNDEFINED), "difficulty"),
        body=payload.text(sample.get("body", UNDEFINED), "body") or "",
        options=dict(sorted(options.items())),
        correct=(payload.text(sample.get("correct_key", UNDEFINED), "correct_key") or "")
        .strip().lower(),
        explanation=payload.text(sample.get("explanation", UNDEFINED), "explanation",
                                 optional=True) or "",
    )
