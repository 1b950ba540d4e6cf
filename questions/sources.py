"""Reads import inputs (CSV, the platform's catalog pages, YAML packs) into entries: one language of
one question each, validated and named by where it came from (file and row, sample or question).
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from questions import catalog, csvformat
from questions.loader import MAX_PACK_BYTES, describe, parse_pack, parse_yaml
from questions.model import KEY_PATTERN, LANGUAGES, LEVELS, OPTION_KEYS, Question

MB = 1024 * 1024
FORMATS = ("csv", "catalog", "yaml")
# Per-format size limits: 30,000 spreadsheet rows like the bundled bank's (~1.2 KB each) fit;
# a catalog page or a pack is far smaller.
MAX_BYTES = {"csv": 40 * MB, "catalog": 5 * MB, "yaml": MAX_PACK_BYTES}
MAX_FILE_BYTES = max(MAX_BYTES.values())
# Past this many problems the rest of a broken file adds nothing but time.
MAX_PROBLEMS = 500
LEVEL_OF_DIFFICULTY = {1: "junior", 2: "mid", 3: "senior"}
_KEY = re.compile(KEY_PATTERN)
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True)
class Options:
    """What the command line (or an upload's caption) adds to the files."""

    field: str | None = None  # every question goes to this field
    level: str | None = None  # every question gets this seniority
    format: str | None = None  # csv, catalog or yaml; None: chosen from the content


@dataclass
class Entry:
    """One language of one question, as read from an input."""

    where: str
    id: str
    field: str
    topic: str
    lang: str
    seniority: str
    difficulty: int
    correct: str
    text: dict[str, Any]


@dataclass(frozen=True)
class Detail:
    """A pack-level value (a name, the specialization, keywords) that came with the questions."""

    topic: tuple[str, str]
    kind: str  # field_name, topic_name, specialization, keywords
    lang: str  # "" for specialization
    value: Any
    where: str
    # CSV and YAML say what the pack should be; a catalog page only fills gaps.
    authoritative: bool


@dataclass
class Source:
    name: str
    format: str = "?"
    entries: list[Entry] = dataclasses.field(default_factory=list)
    details: list[Detail] = dataclasses.field(default_factory=list)
    notes: list[str] = dataclasses.field(default_factory=list)
    problems: list[str] = dataclasses.field(default_factory=list)


def decode(data: bytes) -> str:
    """UTF-8 text (a BOM is fine); ValueError saying what the bytes are instead."""
    if data.startswith(b"PK\x03\x04"):
        raise ValueError("a zip file (an Excel workbook?): save the sheet as “CSV UTF-8” first")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise ValueError("UTF-16 text: save it as UTF-8 (in a spreadsheet: “CSV UTF-8”)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ValueError(f"not UTF-8 text (byte 0x{data[exc.start]:02x} on line {line}): save "
                         "it as UTF-8 (in a spreadsheet: “CSV UTF-8”)") from None
    if "\x00" in text:
        raise ValueError("contains NUL characters: not a text file")
    return text.removeprefix("\ufeff")


def detect_format(text: str) -> str:
    """csv, catalog or yaml, from the first characters and the header line."""
    head = text[:65536].lstrip()  # a header row is far shorter; the file may be 40 MB
    if head[:1] in ("[", "<"):
        return "catalog"
    first_line = head.split("\n", 1)[0].lower()
    cells = {c.strip().strip('"') for c in re.split(r"[,;]", first_line)}
    if {"body", "correct"} <= cells:
        return "csv"
    return "yaml"


def read_source(name: str, data: bytes, options: Options = Options()) -> Source:
    """One input file's entries, or the problems that stop it from being imported."""
    source = Source(name)
    try:
        text = decode(data)
    except ValueError as exc:
        source.problems.append(f"{name}: {exc}")
        return source
    source.format = options.format or detect_format(text)
    limit = MAX_BYTES[source.format]
    if len(data) > limit:
        source.problems.append(f"{name}: {len(data) / MB:.1f} MB is over the {limit // MB} MB "
                               f"limit for a {source.format} file; split it")
        return source
    {"csv": _read_csv, "catalog": _read_catalog, "yaml": _read_yaml}[source.format](
        source, text, options)
    return source


def read_path(path: Path, options: Options = Options()) -> list[Source]:
    """A file, or every pack in a folder (to merge one bank into another)."""
    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file())
        if not files:
            return [Source(str(path), problems=[f"{path}: no question packs (*.yaml) found"])]
        return [source for file in files for source in read_path(file, options)]
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            size = path.stat().st_size / MB
            return [Source(str(path), problems=[
                f"{path}: {size:.1f} MB is over the {MAX_FILE_BYTES // MB} MB limit; split it"])]
        with path.open("rb") as handle:  # bounded even for a pipe or a device
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        return [Source(str(path), problems=[f"{path}: cannot read ({exc.strerror})"])]
    if len(data) > MAX_FILE_BYTES:
        return [Source(str(path), problems=[
            f"{path}: over the {MAX_FILE_BYTES // MB} MB limit; split it"])]
    return [read_source(str(path), data, options)]


def derive_id(field_key: str, topic: str, body: str) -> str:
    """A stable id for a row without one: same field, topic and body (spacing aside), same id."""
    digest = hashlib.blake2b(_SPACES.sub(" ", body).strip().lower().encode(),
                             digest_size=5).hexdigest()
    return f"{field_key}-{topic}"[:89] + "-" + digest


def _make_entry(source: Source, where: str, *, qid: str, field_key: str, topic: str, lang: str,
                seniority: str, difficulty: Any, correct: str, body: str,
                options: dict[str, str], explanation: str) -> None:
    problems = []
    if not _KEY.match(field_key):
        problems.append(f"field {field_key[:60]!r} is not a key (a-z, 0-9 and -)")
    if not _KEY.match(topic):
        problems.append(f"topic {topic[:60]!r} is not a key (a-z, 0-9 and -)")
    if lang not in LANGUAGES:
        problems.append(f"locale {lang[:20]!r}: use {' or '.join(LANGUAGES)}")
    if problems:
        source.problems.extend(f"{where}: {p}" for p in problems)
        return
    try:
        question = Question.model_validate({
            "id": qid, "seniority": seniority, "difficulty": difficulty, "correct": correct,
            lang: {"body": body, "options": options, "explanation": explanation},
            "field": field_key, "topic": topic})
    except ValidationError as exc:
        source.problems.extend(f"{where}: {_described(err, lang)}" for err in exc.errors())
        return
    text = question.text(lang)
    source.entries.append(Entry(where, question.id, field_key, topic, lang, question.seniority,
                                question.difficulty, question.correct, text.model_dump()))


def _described(err: Any, lang: str) -> str:
    loc = tuple(err.get("loc", ()))
    if loc[:1] == (lang,):
        err = {**err, "loc": loc[1:]}
    if err.get("type") == "literal_error" and loc == ("seniority",):
        return f"seniority {str(err.get('input'))[:20]!r}: use {', '.join(LEVELS)}"
    return describe(err)


def _read_csv(source: Source, text: str, options: Options) -> None:
    name = source.name
    try:
        table = csvformat.Table(text)
        replaced = {k for k, flag in (("field", options.field), ("seniority", options.level))
                    if flag}
        header_problems = csvformat.header_problems(table.header, replaced)
        if header_problems:
            source.problems.extend(f"{name}: {p}" for p in header_problems)
            return
        for number, row in table.rows():
            _csv_row(source, f"{name}: row {number}", row, options)
            if len(source.problems) >= MAX_PROBLEMS:
                source.problems.append(f"{name}: stopped after {MAX_PROBLEMS} problems")
                return
    except csvformat.CsvError as exc:
        source.problems.append(f"{name}: {exc}")


def _csv_row(source: Source, where: str, row: dict[str, str], options: Options) -> None:
    def key(column: str) -> str:
        return row.get(column, "").strip().lower()

    field_key, topic, lang = options.field or key("field"), key("topic"), key("locale")
    cells = [row.get(k, "") for k in OPTION_KEYS]
    while cells and not cells[-1].strip():
        cells.pop()
    empty = [k for k, cell in zip(OPTION_KEYS, cells, strict=False) if not cell.strip()]
    if empty:
        source.problems.append(f"{where}: option {empty[0]} is empty but a later option is not")
        return
    difficulty: Any = key("difficulty")
    if re.fullmatch(r"\d+(\.0+)?", difficulty):
        difficulty = int(float(difficulty))  # spreadsheets may write 2 as 2.0
    body = row["body"]
    _make_entry(source, where, qid=key("id") or derive_id(field_key, topic, body),
                field_key=field_key, topic=topic, lang=lang,
                seniority=options.level or key("seniority"), difficulty=difficulty,
                correct=key("correct"), body=body,
                options=dict(zip(OPTION_KEYS, cells, strict=False)),
                explanation=row["explanation"])
    topic_key = (field_key, topic)
    for kind in ("field_name", "topic_name", "keywords"):
        value: Any = row.get(kind, "").strip()
        if value:
            if kind == "keywords":
                value = [w.strip() for w in value.split(",") if w.strip()]
            source.details.append(Detail(topic_key, kind, lang, value, where, True))
    if key("specialization"):
        source.details.append(Detail(topic_key, "specialization", "", key("specialization"),
                                     where, True))


def _read_catalog(source: Source, text: str, options: Options) -> None:
    name = source.name
    try:
        topics, problems = catalog.read_catalog(text)
    except catalog.PayloadError as exc:
        source.problems.append(f"{name}: {exc}")
        return
    source.problems.extend(f"{name}: {p}" for p in problems)
    for topic in topics:
        field_key = options.field or topic.field.lower()
        topic_key, lang = topic.topic.lower(), topic.locale.lower()
        if not topic.samples:
            source.notes.append(f"{name}: {topic.key} has no questions")
            continue
        key = (field_key, topic_key)
        for name_lang, value in topic.field_name.items():
            source.details.append(Detail(key, "field_name", name_lang, value, name, False))
        if topic.topic_name:
            source.details.append(Detail(key, "topic_name", lang, topic.topic_name, name, False))
        if topic.specialization:
            source.details.append(Detail(key, "specialization", "", topic.specialization, name,
                                         False))
        for sample in topic.samples:
            where = f"{name}: {sample.where}"
            level = options.level or LEVEL_OF_DIFFICULTY.get(sample.difficulty)
            if level is None:
                source.problems.append(f"{where}: difficulty {sample.difficulty} is not 1, 2 or 3")
                continue
            _make_entry(source, where, qid=sample.id, field_key=field_key, topic=topic_key,
                        lang=lang, seniority=level, difficulty=sample.difficulty,
                        correct=sample.correct, body=sample.body, options=sample.options,
                        explanation=sample.explanation)


def _read_yaml(source: Source, text: str, options: Options) -> None:
    name = source.name
    problems: list[str] = []
    raw = parse_yaml(name, text, problems)
    pack = parse_pack(name, raw, problems) if raw is not None else None
    if problems or pack is None:
        source.problems.extend(problems)
        return
    field_key = options.field or pack.field
    key = (field_key, pack.topic)
    given = pack.model_fields_set
    for kind in ("field_name", "topic_name"):
        names = getattr(pack, kind)
        if kind in given and names is not None:
            for lang in LANGUAGES:
                if getattr(names, lang):
                    source.details.append(Detail(key, kind, lang, getattr(names, lang), name, True))
    if "specialization" in given:
        source.details.append(Detail(key, "specialization", "", pack.specialization, name, True))
    if "keywords" in given:
        for lang in LANGUAGES:
            source.details.append(Detail(key, "keywords", lang, getattr(pack.keywords, lang),
                                         name, True))
    for question in pack.questions:
        for lang in question.languages:
            text_ = question.text(lang)
            _make_entry(source, f"{name}: question {question.id}", qid=question.id,
                        field_key=field_key, topic=pack.topic, lang=lang,
                        seniority=options.level or question.seniority,
                        difficulty=question.difficulty, correct=question.correct,
                        body=text_.body, options=text_.options,
                        explanation=text_.explanation)
