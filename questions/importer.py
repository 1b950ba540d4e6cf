"""Imports questions into a bank folder: entries from `questions.sources` merge into its packs.

Entries merge by question id: a new id is added, a known id is updated only when its content
differs, a language the bank lacks is added to the same question. One pack per field and topic:
an existing topic is updated in its own file, wherever it lives; a new topic gets
`<field>/<topic>.yaml`. Nothing is written when anything is invalid, and files are replaced
atomically.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from questions.loader import (
    MAX_PACK_BYTES,
    check_packs,
    describe,
    fits_one_message,
    pack_paths,
    read_pack,
)
from questions.model import LANGUAGES, Pack, Question, QuestionText
from questions.packfile import pack_yaml, write_files_atomically
from questions.sources import (
    FORMATS,
    MAX_PROBLEMS,
    MB,
    Detail,
    Entry,
    Options,
    Source,
    read_path,
    read_source,
)

__all__ = ["FORMATS", "ImportResult", "Options", "import_bytes", "import_paths", "plan_import",
           "summary_lines"]
# More new topics than this in one import is a wrong column, not a real bank.
MAX_NEW_PACKS = 1_000
NO_QUESTIONS = "holds no questions (an empty file, or a header row only)"


@dataclass
class TopicReport:
    field: str
    topic: str
    path: str
    new_file: bool = False
    added: list[str] = dataclasses.field(default_factory=list)
    updated: list[str] = dataclasses.field(default_factory=list)
    unchanged: list[str] = dataclasses.field(default_factory=list)
    details_changed: bool = False

    @property
    def changed(self) -> bool:
        return bool(self.added or self.updated or self.details_changed or self.new_file)


@dataclass
class ImportResult:
    into: Path
    sources: list[Source] = dataclasses.field(default_factory=list)
    topics: list[TopicReport] = dataclasses.field(default_factory=list)
    problems: list[str] = dataclasses.field(default_factory=list)
    files: dict[Path, str] = dataclasses.field(default_factory=dict)
    written: bool = False

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def holds_no_questions(self) -> bool:
        """Every input read cleanly but none had a question (empty, or a header row only)."""
        return bool(self.sources) and not any(source.entries or source.problems
                                              for source in self.sources)

    def count(self, what: str) -> int:
        return sum(len(getattr(t, what)) for t in self.topics)


@dataclass
class _PackState:
    path: Path
    meta: dict[str, Any]
    questions: list[dict[str, Any]]
    exists: bool
    report: TopicReport
    positions: dict[str, int] = dataclasses.field(default_factory=dict)
    pack: Pack | None = None  # as read, while nothing in it changes
    models: dict[str, Question] = dataclasses.field(default_factory=dict)  # added and updated questions


def _read_bank(into: Path, problems: list[str]) -> dict[tuple[str, str], _PackState]:
    """The packs already in the target folder (none if it does not exist yet)."""
    packs: dict[tuple[str, str], _PackState] = {}
    if not into.exists():
        return packs
    if not into.is_dir():
        problems.append(f"{into}: not a folder")
        return packs
    bank_problems: list[str] = []
    for path in pack_paths(into):
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
    # `shuffle` is written only when a question opts out (true is the default).
    left_out = {"field", "topic"} | ({"shuffle"} if question.shuffle else set())
    return question.model_dump(mode="json", exclude_none=True, exclude=left_out)


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
        if not source.problems and not source.entries:
            result.problems.append(f"{source.name}: {NO_QUESTIONS}")
    if result.problems:
        return result
    packs = _read_bank(into, result.problems)
    if result.problems:
        return result
    located = {qid: key for key, state in packs.items() for qid in state.positions}
    field_names: dict[str, object] = {}
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
        **{lang: QuestionText.model_construct(**text) for lang, text in texts.items()},  # type: ignore[arg-type]
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
        current = values.get(lang)
        if not detail.value or current == detail.value or (current and not detail.authoritative):
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
            # New and updated questions were checked as they merged; the rest of a pack that
            # is rewritten is checked here, so every written pack passes `validate`.
            for question in state.pack.questions:
                if question.id not in state.models:
                    result.problems.extend(f"{report.path}: question {question.id}: {p}"
                                           for p in fits_one_message(question))
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
