"""Imports questions from CSV, the platform's catalog pages and YAML packs into a bank folder.

Each input becomes entries (one language of one question). Entries merge into the packs under the
target folder by question id: a new id is added, a known id is updated only when its content
differs, a language the bank lacks is added to the same question. One pack per field and topic:
an existing topic is updated in its own file, wherever it lives; a new topic gets
`<field>/<topic>.yaml`. Nothing is written when anything is invalid, and files are replaced
atomically.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from questions import catalog, csvformat
from questions.loader import (
    MAX_PACK_BYTES,
    check_packs,
    describe,
    fits_one_message,
    parse_pack,
    parse_yaml,
    read_pack,
)
from questions.model import (
    KEY_PATTERN,
    LANGUAGES,
    LEVELS,
    OPTION_KEYS,
    Pack,
    Question,
    QuestionText,
)
from questions.packfile import pack_yaml, write_files_atomically

MB = 1024 * 1024
FORMATS = ("csv", "catalog", "yaml")
# Per-format size limits: 30,000 spreadsheet rows like the bundled bank's (~1.2 KB each) fit;
# a catalog page or a pack is far smaller.
MAX_BYTES = {"csv": 40 * MB, "catalog": 5 * MB, "yaml": MAX_PACK_BYTES}
MAX_FILE_BYTES = max(MAX_BYTES.values())
# Past this many problems the rest of a broken file adds nothing but time.
MAX_PROBLEMS = 500
# More new topics than this in one import is a wrong column, not a real bank.
MAX_NEW_PACKS = 1_000
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
    entries: list[Entry] = field(default_factory=list)
    details: list[Detail] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


@dataclass
class TopicReport:
    field: str
    topic: str
    path: str
    new_file: bool = False
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    details_changed: bool = False

    @property
    def changed(self) -> bool:
        return bool(self.added or self.updated or self.details_changed or self.new_file)


@dataclass
class ImportResult:
    into: Path
    sources: list[Source] = field(default_factory=list)
    topics: list[TopicReport] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    files: dict[Path, str] = field(default_factory=dict)
    written: bool = False

    @property
    def ok(self) -> bool:
        return not self.problems

    def count(self, what: str) -> int:
        return sum(len(getattr(t, what)) for t in self.topics)


# -- reading inputs -------------------------------------------------------------------------


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
    start = text.lstrip()[:1]
    if start in ("[", "<"):
        return "catalog"
    first_line = text.lstrip().split("\n", 1)[0].lower()
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


# -- merging into the bank ------------------------------------------------------------------


@dataclass
class _PackState:
    path: Path
    meta: dict[str, Any]
    questions: list[dict[str, Any]]
    exists: bool
    report: TopicReport
    positions: dict[str, int] = field(default_factory=dict)
    pack: Pack | None = None  # as read, while nothing in it changes
    models: dict[str, Question] = field(default_factory=dict)  # added and updated questions


def _read_bank(into: Path, problems: list[str]) -> dict[tuple[str, str], _PackState]:
    """The packs already in the target folder (none if it does not exist yet)."""
    packs: dict[tuple[str, str], _PackState] = {}
    if not into.exists():
        return packs
    if not into.is_dir():
        problems.append(f"{into}: not a folder")
        return packs
    bank_problems: list[str] = []
    for path in sorted(p for p in into.rglob("*") if p.suffix in (".yaml", ".yml")
                       and p.is_file()):
        pack = read_pack(path, into, bank_problems)
        if pack is None:
            continue
        rel = str(path.relative_to(into))
        key = (pack.field, pack.topic)
        if key in packs:
            bank_problems.append(f"{rel}: topic {pack.field}/{pack.topic} is also in "
                                 f"{packs[key].report.path}")
            continue
        meta = pack.model_dump(mode="json", exclude_unset=True, exclude_none=True,
                               exclude={"questions"})
        questions = [_question_dict(q) for q in pack.questions]
        packs[key] = _PackState(path, meta, questions, True, TopicReport(*key, rel),
                                {q["id"]: i for i, q in enumerate(questions)}, pack)
    if bank_problems:
        problems.append(f"{into}: the bank there has problems; fix them first "
                        f"(python -m questions validate {into}):")
        problems.extend(f"  {p}" for p in bank_problems)
    return packs


def _question_dict(question: Question) -> dict[str, Any]:
    return question.model_dump(mode="json", exclude_none=True, exclude={"field", "topic"})


def _stripped(question: dict[str, Any]) -> dict[str, Any]:
    """For comparing: surrounding white space and CRLF are not a change."""
    out = dict(question)
    for lang in LANGUAGES:
        text = question.get(lang)
        if text:
            out[lang] = {
                "body": _norm(text["body"]),
                "options": {k: _norm(v) for k, v in text["options"].items()},
                "explanation": _norm(text["explanation"]),
            }
    return out


def _norm(text: str) -> str:
    return text.replace("\r\n", "\n").strip()


def plan_import(sources: list[Source], into: Path) -> ImportResult:
    """Everything the import would change, as file contents; problems if it must not happen."""
    into = Path(into)
    result = ImportResult(into, sources)
    for source in sources:
        result.problems.extend(source.problems)
    if result.problems:
        return result
    packs = _read_bank(into, result.problems)
    if result.problems:
        return result
    located = {qid: key for key, state in packs.items() for qid in state.positions}
    field_names = {}
    for (field_key, _), state in packs.items():
        if "field_name" in state.meta:
            field_names.setdefault(field_key, state.meta["field_name"])
    details = _collect_details(sources, result.problems)
    groups: dict[str, list[Entry]] = {}
    for source in sources:
        for entry in source.entries:
            groups.setdefault(entry.id, []).append(entry)
    for qid, group in groups.items():
        _merge(qid, group, packs, located, details, field_names, into, result)
        if len(result.problems) >= MAX_PROBLEMS:
            result.problems.append(f"stopped after {MAX_PROBLEMS} problems")
            break
    new_packs = sum(1 for state in packs.values() if not state.exists)
    if new_packs > MAX_NEW_PACKS:
        result.problems.append(f"{new_packs:,} new topics in one import (at most "
                               f"{MAX_NEW_PACKS:,}): is the topic column right?")
    if result.problems:
        return result
    for key, state in packs.items():
        if _apply_details(state, details.get(key, {})):
            state.report.details_changed = True
    _render(packs, result)
    return result


def _collect_details(sources: list[Source], problems: list[str]
                     ) -> dict[tuple[str, str], dict[tuple[str, str], Detail]]:
    """Pack-level values per topic; two different values from CSV or YAML are a problem."""
    book: dict[tuple[str, str], dict[tuple[str, str], Detail]] = {}
    for source in sources:
        for detail in source.details:
            slot = book.setdefault(detail.topic, {})
            known = slot.get((detail.kind, detail.lang))
            if known is None or (detail.authoritative and not known.authoritative):
                slot[(detail.kind, detail.lang)] = detail
            elif detail.authoritative and known.value != detail.value:
                lang = f" ({detail.lang})" if detail.lang else ""
                problems.append(f"{detail.where}: {detail.kind}{lang} {detail.value!r} differs "
                                f"from {known.value!r} at {known.where}")
    return book


def _merge(qid: str, group: list[Entry], packs: dict[tuple[str, str], _PackState],
           located: dict[str, tuple[str, str]], details: dict, field_names: dict,
           into: Path, result: ImportResult) -> None:
    """One question id: its languages from the inputs merged with what the bank has."""
    problems = result.problems
    first = group[0]
    key = (first.field, first.topic)
    by_lang: dict[str, Entry] = {}
    for entry in group:
        if entry.lang in by_lang:
            problems.append(f"{entry.where}: id {qid}: its {entry.lang} text is also at "
                            f"{by_lang[entry.lang].where}")
            return
        if (entry.field, entry.topic) != key:
            problems.append(f"{entry.where}: id {qid} is in {entry.field}/{entry.topic} here but "
                            f"in {first.field}/{first.topic} at {first.where}")
            return
        for attr in ("seniority", "difficulty", "correct"):
            if getattr(entry, attr) != getattr(first, attr):
                problems.append(f"{entry.where}: id {qid}: {attr} {getattr(entry, attr)} differs "
                                f"from {getattr(first, attr)} at {first.where}")
                return
        by_lang[entry.lang] = entry
    where = " and ".join(e.where for e in group[:2])
    home = located.get(qid)
    if home is not None and home != key:
        problems.append(f"{where}: id {qid} is already in {home[0]}/{home[1]} "
                        f"({packs[home].report.path}); a question keeps its topic, so change "
                        "the id or the topic")
        return
    state = packs.get(key)
    if state is None:
        state = packs[key] = _new_pack(key, packs, details.get(key, {}), field_names, into)
    position = state.positions.get(qid)
    old = state.questions[position] if position is not None else None
    merged: dict[str, Any] = {"id": qid, "seniority": first.seniority,
                              "difficulty": first.difficulty, "correct": first.correct}
    kept = []
    for lang in LANGUAGES:
        if lang in by_lang:
            merged[lang] = by_lang[lang].text
        elif old and old.get(lang):
            merged[lang] = old[lang]
            kept.append(lang)
    if kept and old and old["correct"] != first.correct:
        problems.append(f"{where}: id {qid}: the answer is {first.correct} here but "
                        f"{old['correct']} in the bank's {kept[0]} text; import both languages "
                        "together to change it")
        return
    report = state.report
    if old is not None and _stripped(old) == _stripped(merged):
        report.unchanged.append(qid)  # both sides are valid already: nothing to check
        return
    texts = {lang: merged[lang] for lang in LANGUAGES if lang in merged}
    if len({tuple(text["options"]) for text in texts.values()}) > 1:
        keys = " / ".join(f"{lang}: {', '.join(t['options'])}" for lang, t in texts.items())
        problems.append(f"{where}: id {qid}: options differ between en and tr ({keys})")
        return
    # Each text was validated when it was read (its row, or the pack it is kept from) and the
    # answer key is the same for all: the merged question needs no second validation.
    question = Question.model_construct(
        **{k: merged[k] for k in ("id", "seniority", "difficulty", "correct")},
        **{lang: QuestionText.model_construct(**text) for lang, text in texts.items()},
        field=key[0], topic=key[1])
    problems.extend(f"{where}: id {qid}: {p}" for p in fits_one_message(question))
    state.models[qid] = question
    if old is None:
        state.positions[qid] = len(state.questions)
        state.questions.append(merged)
        located[qid] = key
        report.added.append(qid)
    else:
        state.questions[position] = merged  # type: ignore[index]
        report.updated.append(qid)


def _new_pack(key: tuple[str, str], packs: dict[tuple[str, str], _PackState],
              details: dict[tuple[str, str], Detail], field_names: dict, into: Path) -> _PackState:
    field_key, topic = key
    taken = {state.path for state in packs.values()}
    path = into / field_key / f"{topic}.yaml"
    number = 2
    while path in taken or path.exists():  # a file of that name holding another topic
        path = into / field_key / f"{topic}-{number}.yaml"
        number += 1
    meta: dict[str, Any] = {"field": field_key}
    names = field_names.get(field_key) or {
        lang: d.value for (kind, lang), d in details.items() if kind == "field_name"}
    if names:
        meta["field_name"] = names
    meta["topic"] = topic
    report = TopicReport(field_key, topic, str(path.relative_to(into)), new_file=True)
    return _PackState(path, meta, [], False, report)


def _apply_details(state: _PackState, details: dict[tuple[str, str], Detail]) -> bool:
    """Names, specialization and keywords: CSV and YAML set them, catalog pages fill gaps."""
    meta = state.meta
    changed = False
    for (kind, lang), detail in details.items():
        if kind == "field_name":
            continue  # a field's name is shared by its packs: only new packs take it
        if kind == "specialization":
            current = meta.get(kind, Pack.model_fields["specialization"].default)
            if (detail.authoritative or not state.exists) and current != detail.value:
                meta[kind] = detail.value
                changed = True
            continue
        values = dict(meta.get(kind) or {})
        if not detail.value or values.get(lang) == detail.value or (values.get(lang) and not detail.authoritative):
            continue
        values[lang] = detail.value
        meta[kind] = {k: values[k] for k in LANGUAGES if values.get(k)}
        changed = True
    return changed and state.exists


def _render(packs: dict[tuple[str, str], _PackState], result: ImportResult) -> None:
    """YAML for every changed pack, checked with the loader's own rules before anything is written."""
    named: list[tuple[str, Pack]] = []
    for state in packs.values():
        report = state.report
        if report.changed or state.pack is None:
            kept = {q.id: q for q in state.pack.questions} if state.pack else {}
            try:
                state.pack = Pack.model_validate({**state.meta, "questions": [
                    state.models.get(q["id"]) or kept[q["id"]] for q in state.questions]})
            except ValidationError as exc:
                result.problems.extend(f"{report.path}: {describe(err)}" for err in exc.errors())
                continue
        named.append((report.path, state.pack))
        if report.changed:
            result.topics.append(report)
            text = pack_yaml({**state.meta, "questions": state.questions})
            if len(text.encode()) > MAX_PACK_BYTES:
                result.problems.append(
                    f"{report.path}: the pack would be {len(text.encode()) / MB:.1f} MB, over "
                    f"the {MAX_PACK_BYTES // MB} MB limit for one pack; split the topic")
            result.files[state.path] = text
        elif report.unchanged:
            result.topics.append(report)
    result.problems.extend(check_packs(named, fits=False))


def apply_import(result: ImportResult) -> None:
    """Write the planned files (all or none); only for a result without problems."""
    if not result.ok:
        raise ValueError("the import has problems; nothing to write")
    write_files_atomically(result.files)
    result.written = True


def import_paths(paths: Iterable[Path], into: Path, options: Options = Options(), *,
                 dry_run: bool = False) -> ImportResult:
    sources = [source for path in paths for source in read_path(Path(path), options)]
    result = plan_import(sources, into)
    if result.ok and not dry_run:
        apply_import(result)
    return result


def import_bytes(name: str, data: bytes, into: Path, options: Options = Options(), *,
                 dry_run: bool = False) -> ImportResult:
    result = plan_import([read_source(name, data, options)], into)
    if result.ok and not dry_run:
        apply_import(result)
    return result


def summary_lines(result: ImportResult, *, dry_run: bool = False) -> list[str]:
    """What the import added, updated and skipped, per topic, for the command line."""
    lines = []
    for source in result.sources:
        lines.append(f"{source.name} ({source.format}): {len(source.entries)} question text(s)")
        lines.extend(f"  note: {note}" for note in source.notes)
    for report in result.topics:
        new = ", new file" if report.new_file else ""
        names = ", names/keywords updated" if report.details_changed else ""
        lines.append(f"{report.field}/{report.topic} ({report.path}{new}): "
                     f"{len(report.added)} added, {len(report.updated)} updated, "
                     f"{len(report.unchanged)} unchanged{names}")
        if report.updated:
            shown = ", ".join(report.updated[:10])
            more = f" and {len(report.updated) - 10} more" if len(report.updated) > 10 else ""
            lines.append(f"  updated: {shown}{more}")
    verb = "would write" if dry_run else "wrote"
    lines.append(f"Added {result.count('added')}, updated {result.count('updated')}, skipped "
                 f"{result.count('unchanged')} unchanged; {verb} {len(result.files)} file(s)"
                 + (" (dry run: nothing written)" if dry_run else ""))
    return lines
