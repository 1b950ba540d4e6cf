"""The platform's catalog page payload: the shared sample, payloads built here, hostile ones."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from questions.catalog import PayloadError, read_catalog
from questions.cli import BUNDLED
from questions.importer import Options, import_bytes, import_paths
from questions.loader import check_bank
from tests.question_files import snapshot
from tests.shared_files import catalog_sample

SAMPLE_KEYS = ["c", "b", "a", "d", "d", "c"]
SAMPLE_LEVELS = ["senior", "junior", "mid", "senior", "mid", "mid"]


class Wrap:
    """`["ShallowReactive", i]` around a value, as Nuxt writes reactive state."""

    def __init__(self, value: Any, kind: str = "ShallowReactive") -> None:
        self.value, self.kind = value, kind


UNDEFINED = object()


def flatten(root: Any) -> list[Any]:
    """Nuxt's devalue form: one array, element 0 the root, numbers inside are indices."""
    table: list[Any] = []

    def add(value: Any) -> int:
        if value is UNDEFINED:
            return -1
        index = len(table)
        table.append(None)
        if isinstance(value, Wrap):
            table[index] = [value.kind, add(value.value)]
        elif isinstance(value, dict):
            table[index] = {k: add(v) for k, v in value.items()}
        elif isinstance(value, list):
            table[index] = [add(v) for v in value]
        else:
            table[index] = value
        return index

    add(root)
    return table


def question(qid: str, difficulty: int, correct: str, lang: str = "en") -> dict[str, Any]:
    word = "Which" if lang == "en" else "Hangisi"
    return {"id": qid, "topic": "Caching", "difficulty": difficulty,
            "body": f"{word} cache header {qid}?",
            "options": [{"key": k, "text": f"{lang} option {k}"} for k in "abcd"],
            "correct_key": correct, "explanation": f"{lang} because {correct}."}


def page(locale: str, samples: list[dict[str, Any]] | None, *, field: str = "backend",
         topic: str = "http-caching", topic_name: str = "Http Caching") -> list[Any]:
    entry: dict[str, Any] = {
        "field_key": field, "field_name": "Backend", "seniority": "", "topic_key": topic,
        "topic_name": topic_name, "spec_key": "", "locale": locale, "cell_total": 3}
    if samples is not None:
        entry["samples"] = samples
    config = {"fields": [{"key": field, "name_tr": "Arka uç", "name_en": "Backend"}]}
    return flatten({"data": Wrap({"me": None, f"catalog:{locale}:{field}/{topic}": entry,
                                  "config": config}), "prerenderedAt": UNDEFINED})


def as_bytes(table: list[Any]) -> bytes:
    return json.dumps(table, ensure_ascii=False).encode()


# -- the shared sample ---------------------------------------------------------------------


def test_the_shared_sample_reads_with_the_right_keys_and_levels():
    topics, problems = read_catalog(catalog_sample().read_text(encoding="utf-8"))
    assert problems == []
    [topic] = topics
    assert (topic.locale, topic.field, topic.topic) == ("tr", "ml-engineer",
                                                        "ti-distributed-strategies-sync")
    assert [s.correct for s in topic.samples] == SAMPLE_KEYS
    assert all(list(s.options) == ["a", "b", "c", "d"] for s in topic.samples)


def test_the_sample_imports_into_a_new_bank(tmp_path):
    result = import_paths([catalog_sample()], tmp_path / "bank")
    assert result.ok, result.problems
    bank, problems = check_bank(tmp_path / "bank")
    assert problems == []
    questions = list(bank.questions.values())
    assert [q.correct for q in questions] == SAMPLE_KEYS
    assert [q.seniority for q in questions] == SAMPLE_LEVELS
    assert all(q.tr is not None and q.en is None for q in questions)
    assert questions[0].id == "01a05d13-8d21-739a-baa2-7dab67be4093"
    assert bank.field_name("ml-engineer", "en") == "ML Engineer"
    # The body with a code block is written as a literal block, readable in the pack.
    text = (tmp_path / "bank" / "ml-engineer" / "ti-distributed-strategies-sync.yaml").read_text()
    assert "body: |-\n        İki rank, gloo backend'iyle" in text


def test_the_sample_merges_into_the_bundled_topic_of_the_same_key(tmp_path):
    """The bundled bank has this topic with other ids: the sample joins the same pack file."""
    import shutil

    bank_dir = tmp_path / "bank"
    shutil.copytree(BUNDLED, bank_dir)
    before, _ = check_bank(bank_dir)
    topic_before = before.topic("ml-engineer", "ti-distributed-strategies-sync")
    result = import_paths([catalog_sample()], bank_dir)
    assert result.ok, result.problems
    [report] = result.topics
    assert report.path == "ml-engineer/ti-distributed-strategies-sync.yaml" and not report.new_file
    assert len(report.added) == 6
    after, problems = check_bank(bank_dir)
    assert problems == []
    topic = after.topic("ml-engineer", "ti-distributed-strategies-sync")
    assert topic.question_ids == topic_before.question_ids + report.added
    # The curated names, specialization and keywords stay; the page's generated name is unused.
    assert topic.name == topic_before.name and topic.keywords == topic_before.keywords
    assert topic.specialization == "training-infrastructure"
    again = import_paths([catalog_sample()], bank_dir)
    assert again.ok and again.files == {} and again.count("unchanged") == 6


def test_level_flag_overrides_the_difficulty_mapping(tmp_path):
    result = import_paths([catalog_sample()], tmp_path, Options(level="mid"))
    bank, _ = check_bank(tmp_path)
    assert result.ok and {q.seniority for q in bank.questions.values()} == {"mid"}
    assert [q.difficulty for q in bank.questions.values()] == [3, 1, 2, 3, 2, 2]


# -- payloads built here -------------------------------------------------------------------


def test_an_english_page_then_a_turkish_one_make_bilingual_questions(tmp_path):
    en = page("en", [question("q-1", 1, "b"), question("q-2", 3, "d")])
    tr = page("tr", [question("q-1", 1, "b", "tr"), question("q-2", 3, "d", "tr")])
    first = import_bytes("en.json", as_bytes(en), tmp_path)
    assert first.ok and first.count("added") == 2
    second = import_bytes("tr.json", as_bytes(tr), tmp_path)
    assert second.ok and second.count("updated") == 2 and second.count("added") == 0
    bank, problems = check_bank(tmp_path)
    assert problems == []
    q = bank.questions["q-1"]
    assert q.en.body == "Which cache header q-1?" and q.tr.body == "Hangisi cache header q-1?"
    assert q.seniority == "junior" and bank.questions["q-2"].seniority == "senior"
    # Names from the page config in both languages; the topic name of each page fills its gap.
    assert bank.field_name("backend", "tr") == "Arka uç"
    assert bank.topic_name("backend", "http-caching", "tr") == "Http Caching"


def test_a_turkish_page_with_another_answer_key_is_refused(tmp_path):
    import_bytes("en.json", as_bytes(page("en", [question("q-1", 1, "b")])), tmp_path)
    before = snapshot(tmp_path)
    result = import_bytes("tr.json", as_bytes(page("tr", [question("q-1", 1, "c", "tr")])),
                          tmp_path)
    assert not result.ok and "the answer is c here but b in the bank's en text" in result.problems[0]
    assert snapshot(tmp_path) == before


def test_a_topic_without_samples_imports_nothing_and_says_so(tmp_path):
    for samples in (None, []):
        result = import_bytes("empty.json", as_bytes(page("en", samples)), tmp_path)
        # Like an empty file: not a success with 0 added (issue 17, item 9).
        assert result.holds_no_questions and not result.ok and result.files == {}
        assert result.sources[0].notes == ["empty.json: catalog:en:backend/http-caching has "
                                           "no questions"]
    assert not tmp_path.joinpath("backend").exists()


def test_a_saved_html_page_works_too(tmp_path):
    payload = json.dumps(page("en", [question("q-1", 2, "a")]))
    html = f'<html><body><script type="application/json" id="__NUXT_DATA__">{payload}</script>'
    result = import_bytes("page.html", html.encode(), tmp_path)
    assert result.ok and result.count("added") == 1


# -- broken and hostile payloads -----------------------------------------------------------


def broken(mutate) -> bytes:
    table = page("en", [question("q-1", 2, "a")])
    mutate(table)
    return as_bytes(table)


def find(table: list[Any], predicate) -> int:
    return next(i for i, v in enumerate(table) if predicate(v))


def sample_index(table):
    return find(table, lambda v: isinstance(v, dict) and "correct_key" in v)


def set_sample_field(name: str, index: Any):
    def mutate(table):
        table[sample_index(table)][name] = index
    return mutate


def set_sample_value(name: str, value: Any):
    def mutate(table):
        table.append(value)
        table[sample_index(table)][name] = len(table) - 1
    return mutate


def wrapper_loop(table):
    # data -> ["ShallowReactive", i] -> ["Reactive", data]: a loop of wrappers
    data = table[0]["data"]
    table.append(["Reactive", data])
    table[data] = ["ShallowReactive", len(table) - 1]


def options_point_to_themselves(table):
    sample = table[sample_index(table)]
    table[sample["options"]] = [sample["options"]]


@pytest.mark.parametrize("mutate, expected", [
    (set_sample_field("body", 99999), "body: index 99999 is outside the payload"),
    (set_sample_field("body", -7), "body: index -7 is outside the payload"),
    (set_sample_field("body", True), "body: true is not an index"),
    (set_sample_field("body", "text"), 'body: "text" is not an index'),
    (set_sample_field("options", 0), "options: expected an array, found an object"),
    (wrapper_loop, "index loop at entry"),
    (options_point_to_themselves, "options: expected an object, found an array"),
    (set_sample_value("difficulty", 4), "difficulty 4 is not 1, 2 or 3"),
    (set_sample_value("difficulty", 2.5), "difficulty: expected a whole number, found a number"),
    (set_sample_value("correct_key", "z"), "correct key 'z' is not one of the options"),
    (set_sample_value("explanation", ""), "explanation: String should have at least 1 character"),
    (set_sample_value("body", {"not": 1}), "body: expected text, found an object"),
])
def test_malformed_payloads_are_refused_naming_the_sample(tmp_path, mutate, expected):
    result = import_bytes("bad.json", broken(mutate), tmp_path)
    assert not result.ok
    assert any(expected in p for p in result.problems), result.problems
    assert all(p.startswith("bad.json: ") for p in result.problems)
    assert snapshot(tmp_path) == {}


@pytest.mark.parametrize("data, expected", [
    (b"[]", "expected a JSON array whose first element is the root object"),
    (b'[{"data": 1}, {"other": 2}, 3]', "no catalog:<locale>:<field>/<topic> entry"),
    (b"[" * 100_000, "nested too deeply"),
    (b'[{"data": 1}, ', "not valid JSON (line 1, column 15"),
    (b"[1" + b"0" * 5000 + b"]", "not valid JSON"),
    (b"<html><body>no payload</body></html>", "without the __NUXT_DATA__ payload"),
    ("[{\"data\": \"ç\"}]".encode("latin-1"), "not UTF-8 text (byte 0xe7 on line 1)"),
])
def test_unreadable_payloads_get_one_clear_error(tmp_path, data, expected):
    result = import_bytes("page.json", data, tmp_path, Options(format="catalog"))
    assert not result.ok and any(expected in p for p in result.problems), result.problems


def test_reference_fan_out_is_cut_short():
    """Thousands of catalog keys naming one big sample list would be billions of reads."""
    samples = [question(f"q-{i}", 1, "a") for i in range(2000)]
    table = page("en", samples)
    data = table[table[0]["data"]][1]
    entry = table[data]["catalog:en:backend/http-caching"]
    # Many distinct entries that all share the same samples array.
    for n in range(3000):
        table.append({**table[entry]})
        table[data][f"catalog:en:backend/t{n}"] = len(table) - 1
    started = time.perf_counter()
    with pytest.raises(PayloadError, match="too many times"):
        read_catalog(json.dumps(table))
    assert time.perf_counter() - started < 5


def test_a_page_that_is_too_big_is_refused_before_parsing(tmp_path):
    data = b"[" + b"0," * (3 * 1024 * 1024) + b"0]"
    result = import_bytes("huge.json", data, tmp_path)
    assert not result.ok and "over the 5 MB limit for a catalog file" in result.problems[0]


def test_shared_sample_is_found_from_the_tests(tmp_path):
    assert isinstance(catalog_sample(), Path)
