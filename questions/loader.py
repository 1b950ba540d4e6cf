"""Loads a folder of YAML packs into a validated, indexed `Bank`, or lists every problem found."""

from __future__ import annotations

import dataclasses
import gc
import multiprocessing
import os
import random
from collections import defaultdict
from collections.abc import Iterator, Mapping
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from questions import packsplit, yamlfast
from questions.markup import plain_length
from questions.model import LANGUAGES, Keywords, Localized, Pack, Question, humanize
from questions.render import MESSAGE_LIMIT, RESERVED, explanation_html, question_html

MAX_PACK_BYTES = 5 * 1024 * 1024


class BankError(Exception):
    """The bank is invalid; `problems` names each file, question and what is wrong."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__(f"{len(problems)} problem(s) in the question bank")
        self.problems = problems


@dataclass
class Topic:
    field: str
    key: str
    name: Localized
    specialization: str = "general"
    keywords: Keywords = dataclasses.field(default_factory=Keywords)
    question_ids: list[str] = dataclasses.field(default_factory=list)


@dataclass
class FieldInfo:
    key: str
    name: Localized
    topics: dict[str, Topic] = dataclasses.field(default_factory=dict)


class Bank:
    """All questions, indexed by id, short key, field, level and topic."""

    def __init__(self, packs: list[Pack]) -> None:
        self.questions: dict[str, Question] = {}
        self.by_key: dict[str, Question] = {}
        self.fields: dict[str, FieldInfo] = {}
        self._pools: dict[tuple[str | None, str | None, str | None], list[Question]] = {}
        # What the packs were (questions/cache.py sets it for a bank read from a folder): lets
        # what is derived from the bank be cached too. None: not known, nothing is cached.
        self.fingerprint: str | None = None
        for pack in packs:
            info = self.fields.get(pack.field)
            if info is None:
                name = pack.field_name or Localized(en=humanize(pack.field))
                info = self.fields[pack.field] = FieldInfo(pack.field, name)
            elif pack.field_name and info.name.en is None:
                info.name = pack.field_name
            topic = info.topics.get(pack.topic)
            if topic is None:
                topic = info.topics[pack.topic] = Topic(
                    pack.field, pack.topic, pack.topic_name or Localized(en=humanize(pack.topic)),
                    pack.specialization, pack.keywords,
                )
            for question in pack.questions:
                self.questions[question.id] = question
                self.by_key[question.key] = question
                topic.question_ids.append(question.id)

    def __len__(self) -> int:
        return len(self.questions)

    def field_name(self, field_key: str, lang: str) -> str:
        info = self.fields.get(field_key)
        return info.name.get(lang) if info else humanize(field_key)

    def topic(self, field_key: str, topic_key: str) -> Topic | None:
        info = self.fields.get(field_key)
        return info.topics.get(topic_key) if info else None

    def topic_name(self, field_key: str, topic_key: str, lang: str) -> str:
        topic = self.topic(field_key, topic_key)
        return topic.name.get(lang) if topic else humanize(topic_key)

    def pool(self, field: str | None = None, level: str | None = None,
             topic: str | None = None) -> list[Question]:
        """Questions matching the filters (None matches all); cached, in bank order."""
        cache_key = (field, level, topic)
        if cache_key not in self._pools:
            self._pools[cache_key] = [
                q for q in self.questions.values()
                if (field is None or q.field == field)
                and (level is None or q.seniority == level)
                and (topic is None or q.topic == topic)
            ]
        return self._pools[cache_key]

    def sample(self, rng: random.Random, count: int) -> list[Question]:
        return rng.sample(list(self.questions.values()), min(count, len(self)))


def read_pack(path: Path, root: Path, problems: list[str]) -> Pack | None:
    """One pack file, validated; None (and the problems) when it is unusable."""
    name = str(path.relative_to(root)) if path.is_relative_to(root) else str(path)
    try:
        if path.stat().st_size > MAX_PACK_BYTES:
            problems.append(f"{name}: file is larger than {MAX_PACK_BYTES // (1024 * 1024)} MB")
            return None
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        problems.append(f"{name}: not UTF-8 text")
        return None
    raw = parse_yaml(name, text, problems)
    return None if raw is None else parse_pack(name, raw, problems)


def parse_yaml(name: str, text: str, problems: list[str]) -> object | None:
    """YAML text as plain data; None (and a problem) when it does not parse."""
    try:
        raw = yamlfast.load(text)
    except yaml.YAMLError as exc:
        problems.append(f"{name}: not valid YAML ({str(exc).splitlines()[0]})")
        return None
    if _has_shared_nodes(raw):
        # Anchors and aliases let a small file expand into a huge one; packs never need them.
        problems.append(f"{name}: YAML anchors and aliases (&, *) are not allowed in packs")
        return None
    return raw


def _has_shared_nodes(raw: object) -> bool:
    """True when a list or mapping appears twice (an alias); visits each container once."""
    seen: set[int] = set()
    stack = [raw]
    while stack:
        item = stack.pop()
        if isinstance(item, dict | list):
            if id(item) in seen:
                return True
            seen.add(id(item))
            stack.extend(item.values() if isinstance(item, dict) else item)
    return False


def parse_pack(name: str, raw: object, problems: list[str]) -> Pack | None:
    """A pack from parsed YAML; each bad question is named, the good ones still load."""
    if not isinstance(raw, dict):
        problems.append(f"{name}: expected a mapping with field, topic and questions")
        return None
    questions = raw.get("questions")
    if not isinstance(questions, list):
        problems.append(f"{name}: `questions` must be a list")
        return None
    # Validate question by question, so one bad entry names its id and the rest still load.
    good: list[Question] = []
    for index, item in enumerate(questions, start=1):
        qid = item.get("id", f"#{index}") if isinstance(item, dict) else f"#{index}"
        if not isinstance(item, dict):
            problems.append(f"{name}: question {qid}: expected a mapping")
            continue
        item = {**item, "field": raw.get("field", ""), "topic": raw.get("topic", "")}
        try:
            # Validated once here; the Pack below takes the instances as they are.
            good.append(Question.model_validate(item))
        except ValidationError as exc:
            problems.extend(f"{name}: question {qid}: {describe(err)}" for err in exc.errors())
    try:
        return Pack.model_validate({**raw, "questions": good})
    except ValidationError as exc:
        problems.extend(f"{name}: {describe(err)}" for err in exc.errors())
        return None


def describe(err: Mapping[str, Any]) -> str:
    where = ".".join(str(p) for p in err.get("loc", ()) if p != "__root__")
    message = str(err.get("msg", "invalid")).removeprefix("Value error, ")
    return f"{where}: {message}" if where else message


def fits_one_message(question: Question) -> list[str]:
    """Problems with a question that would not fit one Telegram message once rendered."""
    problems = []
    for lang in question.languages:
        text = question.text(lang)
        # Rendering only adds tags and letters; each character is at most 2 UTF-16 units. When
        # even that bound fits, skip the rendering (it is most of a large bank's load time).
        bound = 2 * (len(text.body) + sum(len(o) + 8 for o in text.options.values())) + 16
        if bound + RESERVED <= MESSAGE_LIMIT and 2 * len(text.explanation) + RESERVED <= (
                MESSAGE_LIMIT):
            continue
        size = plain_length(question_html(question, lang)) + RESERVED
        if size > MESSAGE_LIMIT:
            problems.append(f"{lang} question renders to {size} characters (limit {MESSAGE_LIMIT})")
        size = plain_length(explanation_html(question, lang)) + RESERVED
        if size > MESSAGE_LIMIT:
            problems.append(f"{lang} explanation renders to {size} characters")
    return problems


# Blind-review records live beside the packs (`<field>/reviews/`): answers and notes, not packs.
REVIEWS = "reviews"


def pack_paths(root: Path) -> list[Path]:
    """Every pack file under `root`, in a stable order (review folders left out)."""
    return sorted(p for p in root.rglob("*") if p.suffix in {".yaml", ".yml"} and p.is_file()
                  and REVIEWS not in p.relative_to(root).parts)


def check_bank(root: Path) -> tuple[Bank | None, list[str]]:
    """Load every pack under `root` (recursively); the bank, or None and the problems."""
    packs, problems = checked_packs(root)
    return (Bank(packs), []) if packs is not None else (None, problems)


# Above this many bytes of packs, they are parsed and validated in worker processes (one per
# core): a 30,000-question bank (73 MB) is read about twice as fast on two cores. Below it, the
# workers' own start-up would cost more than they save.
PARALLEL_BYTES = 24 * 1024 * 1024


@contextmanager
def paused_gc() -> Iterator[None]:
    """The cyclic garbage collector off while a bank's worth of long-lived objects is built:
    it would run every 700 allocations and walk the growing heap again and again (reading a
    30,000-question cache took 1.4 s with it, 0.5 s without). Reference counting still frees
    everything that is not kept, and packs hold no cycles."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _read_one(job: tuple[Path, Path]) -> tuple[str, Pack | None, list[str]]:
    path, root = job
    problems: list[str] = []
    pack = read_pack(path, root, problems)
    return str(path.relative_to(root)), pack, problems


def _read_one_split(job: tuple[Path, Path]) -> tuple[str, Split | None, list[str]]:
    """In a worker: a pack checked on its own, its questions' rendered sizes too, and split for
    the bank cache (`packsplit`). Short keys are computed first, so they travel (and are cached)
    with it; the texts come back as one pickle, which the parent does not unpickle."""
    with paused_gc():  # as in the parent (`checked_packs`)
        name, pack, problems = _read_one(job)
        if pack is None:
            return name, None, problems
        for question in pack.questions:
            _ = question.key
            problems.extend(f"{name}: question {question.id}: {p}"
                            for p in fits_one_message(question))
        return name, packsplit.split(pack), problems


Split = tuple[packsplit.Skeleton, bytes]
Read = tuple[str, Pack | None, list[str], Split | None]


def _read_all(paths: list[Path], root: Path, parallel_over: int) -> tuple[list[Read], bool]:
    """Each pack read and checked on its own; True when worker processes did it, and with it
    the size checks of `check_packs`."""
    jobs = [(path, root) for path in paths]
    workers = min(os.cpu_count() or 1, 4)
    if workers < 2 or sum(path.stat().st_size for path in paths) <= parallel_over:
        return [(*_read_one(job), None) for job in jobs], False
    # Spawned, not forked: the caller may be a bot with threads running.
    try:
        with ProcessPoolExecutor(max_workers=workers,
                                 mp_context=multiprocessing.get_context("spawn")) as pool:
            done = list(pool.map(_read_one_split, jobs,
                                 chunksize=max(1, len(jobs) // (workers * 8))))
    except (BrokenProcessPool, OSError):  # no workers here: read them in this process
        return [(*_read_one(job), None) for job in jobs], False
    return [(name, packsplit.join(split[0], packsplit.held(split[1])) if split else None,
             problems, split) for name, split, problems in done], True


def checked_packs(root: Path, *, parallel_over: int = PARALLEL_BYTES,
                  splits: list[Split] | None = None) -> tuple[list[Pack] | None, list[str]]:
    """Every pack under `root`, checked alone and together; or None and the problems. When
    worker processes read them, `splits` (if given) receives each returned pack split for the
    bank cache, and the packs' texts stay pickled until used."""
    problems: list[str] = []
    root = Path(root)
    if not root.is_dir():
        return None, [f"{root}: not a folder"]
    paths = pack_paths(root)
    named: list[tuple[str, Pack]] = []
    split_packs: list[Split] = []
    with paused_gc():
        read, in_workers = _read_all(paths, root, parallel_over)
    for name, pack, found, split in read:
        problems.extend(found)
        if pack is not None:
            named.append((name, pack))
            if split is not None:
                split_packs.append(split)
    problems.extend(check_packs(named, fits=not in_workers))
    if not paths:
        problems.append(f"{root}: no question packs (*.yaml) found")
    if problems:
        return None, problems
    if splits is not None and in_workers:
        splits.extend(split_packs)
    return [pack for _, pack in named], []


def check_packs(named: list[tuple[str, Pack]], *, fits: bool = True) -> list[str]:
    """Problems between packs: a topic twice, duplicate ids, short-key collisions, and (with
    `fits`) questions that would not fit one Telegram message."""
    problems: list[str] = []
    where: dict[str, str] = {}
    keys: dict[str, str] = {}
    topics: dict[tuple[str, str], str] = {}
    for name, pack in named:
        if (pack.field, pack.topic) in topics:
            problems.append(f"{name}: topic {pack.field}/{pack.topic} is also in "
                            f"{topics[(pack.field, pack.topic)]}")
        topics[(pack.field, pack.topic)] = name
        for question in pack.questions:
            if question.id in where:
                problems.append(f"{name}: question {question.id}: duplicate id "
                                f"(also in {where[question.id]})")
                continue
            where[question.id] = name
            other = keys.get(question.key)
            if other is not None:
                problems.append(f"{name}: question {question.id}: short key collides with {other}")
            keys[question.key] = question.id
            if fits:
                problems.extend(f"{name}: question {question.id}: {p}"
                                for p in fits_one_message(question))
    return problems


def load_bank(root: Path) -> Bank:
    bank, problems = check_bank(root)
    if bank is None:
        raise BankError(problems)
    return bank


def bank_stats(bank: Bank) -> dict:
    """Counts per field, level, topic and language (for `python -m questions stats`)."""
    per_field: dict[str, dict] = {}
    for q in bank.questions.values():
        entry = per_field.setdefault(q.field, {
            "total": 0, "levels": defaultdict(int), "topics": defaultdict(int),
            "languages": defaultdict(int), "level_language": defaultdict(int),
        })
        entry["total"] += 1
        entry["levels"][q.seniority] += 1
        entry["topics"][q.topic] += 1
        for lang in LANGUAGES:
            if getattr(q, lang) is not None:
                entry["languages"][lang] += 1
                entry["level_language"][(q.seniority, lang)] += 1
    return per_field
