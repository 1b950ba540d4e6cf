"""Importing CSV and YAML packs into a bank: merge rules, idempotence, and every rejection path."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from questions import csvformat, importer, sources
from questions.importer import Options, import_bytes, import_paths
from questions.loader import check_bank
from questions.sources import derive_id
from tests.conftest import TEST_BANK
from tests.question_files import HEADER, csv_bytes, dump, row, snapshot


def run(tmp_path: Path, rows, name="questions.csv", **kwargs):
    return import_bytes(name, csv_bytes(rows, **kwargs), tmp_path / "bank")


# -- what an import does ---------------------------------------------------------------------


def test_csv_import_writes_one_pack_per_field_and_topic(tmp_path):
    rows = [row(), row(locale="tr"), row("be-queue-001", topic="queues", topic_name="Queues"),
            row("fe-css-001", field="frontend", topic="css", topic_name="CSS")]
    result = run(tmp_path, rows)
    assert result.ok, result.problems
    assert (result.count("added"), result.count("updated"), result.count("unchanged")) == (3, 0, 0)
    bank, problems = check_bank(tmp_path / "bank")
    assert problems == []
    assert sorted(snapshot(tmp_path / "bank")) == [
        "backend/caching.yaml", "backend/queues.yaml", "frontend/css.yaml"]
    q = bank.questions["be-cache-001"]
    assert q.en.body.startswith("[en]") and q.tr.body.startswith("[tr]")
    assert q.correct == "b" and q.seniority == "mid" and q.difficulty == 2
    assert bank.topic_name("backend", "caching", "tr") == "Caching"


def test_reimporting_the_same_file_changes_nothing(tmp_path):
    rows = [row(), row(locale="tr"), row("be-cache-002", body="Second?")]
    assert run(tmp_path, rows).ok
    before = snapshot(tmp_path / "bank")
    mtimes = [p.stat().st_mtime_ns for p in (tmp_path / "bank").rglob("*.yaml")]
    again = run(tmp_path, rows)
    assert again.ok and again.files == {}
    assert (again.count("added"), again.count("updated"), again.count("unchanged")) == (0, 0, 2)
    assert snapshot(tmp_path / "bank") == before
    assert [p.stat().st_mtime_ns for p in (tmp_path / "bank").rglob("*.yaml")] == mtimes


def test_a_question_is_updated_only_when_its_content_differs(tmp_path):
    assert run(tmp_path, [row(), row("be-cache-002", body="Second?")]).ok
    result = run(tmp_path, [row(explanation="A better explanation."),
                            row("be-cache-002", body="Second?  ")])  # trailing spaces: same
    assert result.ok
    [report] = result.topics
    assert report.updated == ["be-cache-001"] and report.unchanged == ["be-cache-002"]
    bank, _ = check_bank(tmp_path / "bank")
    assert bank.questions["be-cache-001"].en.explanation == "A better explanation."
    assert [q.id for q in bank.pool("backend")] == ["be-cache-001", "be-cache-002"]


def test_the_second_language_merges_into_the_same_question(tmp_path):
    assert run(tmp_path, [row()]).ok
    result = run(tmp_path, [row(locale="tr", topic_name="Önbellek")])
    assert result.ok and result.topics[0].updated == ["be-cache-001"]
    bank, _ = check_bank(tmp_path / "bank")
    q = bank.questions["be-cache-001"]
    assert q.en.body.startswith("[en]") and q.tr.body.startswith("[tr]")
    assert bank.topic_name("backend", "caching", "tr") == "Önbellek"
    assert bank.topic_name("backend", "caching", "en") == "Caching"


def test_rows_without_id_get_a_stable_derived_id(tmp_path):
    rows = [row(qid="", body="What does  ETag\r\ndo?"), row(qid="", body="Another one?")]
    result = run(tmp_path, rows)
    assert result.ok
    derived = derive_id("backend", "caching", "What does ETag do?")
    assert derived.startswith("backend-caching-") and derived in result.topics[0].added
    # Re-spaced text keeps the id: the question is updated, not duplicated.
    again = run(tmp_path, [row(qid="", body="What does ETag\ndo?")])
    assert again.ok and again.topics[0].updated == [derived] and not again.topics[0].added
    assert len(derive_id("f" * 48, "t" * 48, "x")) <= 100


def test_spreadsheet_exports_work_bom_semicolons_crlf_and_multiline_cells(tmp_path):
    body = "Given this code:\r\n```python\r\nx = [1, 2]\r\nprint(x[5])\r\n```\r\nWhat happens?"
    data = csv_bytes([row(body=body, explanation="It raises; \"IndexError\".")],
                     delimiter=";", bom=True)
    result = import_bytes("export.csv", data, tmp_path / "bank")
    assert result.ok, result.problems
    bank, _ = check_bank(tmp_path / "bank")
    q = bank.questions["be-cache-001"]
    assert q.en.body == body.replace("\r\n", "\n")
    assert q.en.explanation == 'It raises; "IndexError".'
    text = (tmp_path / "bank" / "backend" / "caching.yaml").read_text()
    assert "body: |-\n        Given this code:\n        ```python\n" in text


def test_field_and_level_flags_stand_in_for_missing_columns(tmp_path):
    header = [h for h in HEADER if h not in ("field", "seniority")]
    data = csv_bytes([row()], header)
    refused = import_bytes("q.csv", data, tmp_path)
    assert not refused.ok and refused.problems == [
        "q.csv: missing column 'seniority' (or give --level)",
        "q.csv: missing column 'field' (or give --field)"]
    result = import_bytes("q.csv", data, tmp_path, Options(field="backend", level="senior"))
    assert result.ok
    bank, _ = check_bank(tmp_path)
    assert bank.questions["be-cache-001"].seniority == "senior"
    assert bank.questions["be-cache-001"].field == "backend"


def test_two_to_six_options_and_upper_case_keys(tmp_path):
    header = [*HEADER, "e", "f"]
    rows = [row(c="", d="", correct="A"), row("be-cache-002", e="Age", f="Date", correct="F")]
    result = import_bytes("q.csv", csv_bytes(rows, header), tmp_path)
    assert result.ok, result.problems
    bank, _ = check_bank(tmp_path)
    assert bank.questions["be-cache-001"].option_keys == ["a", "b"]
    assert bank.questions["be-cache-002"].option_keys == list("abcdef")
    assert bank.questions["be-cache-002"].correct == "f"


def test_dry_run_reports_but_writes_nothing(tmp_path):
    result = import_bytes("q.csv", csv_bytes([row()]), tmp_path / "bank", dry_run=True)
    assert result.ok and result.count("added") == 1 and not result.written
    assert not (tmp_path / "bank").exists()


def test_a_yaml_pack_merges_like_any_other_input(tmp_path):
    result = import_paths([TEST_BANK], tmp_path / "bank")
    assert result.ok
    before, _ = check_bank(TEST_BANK)
    after, _ = check_bank(tmp_path / "bank")
    assert dump(after) == dump(before)
    assert import_paths([TEST_BANK], tmp_path / "bank").files == {}


# -- rejections: nothing is written, the error names the file, the row and the problem ------


@pytest.mark.parametrize("rows, expected", [
    ([row(seniority="expert")],
     "questions.csv: row 2: seniority 'expert': use junior, mid, senior"),
    ([row(locale="de")], "questions.csv: row 2: locale 'de': use en or tr"),
    ([row(correct="e")], "questions.csv: row 2: correct key 'e' is not one of the options"),
    ([row(c="")], "questions.csv: row 2: option c is empty but a later option is not"),
    ([row(b="", c="", d="")], "questions.csv: row 2: options: needs 2 to 6 options, has 1"),
    ([row(difficulty="hard")], "questions.csv: row 2: difficulty: Input should be a valid integer"),
    ([row(difficulty="5")], "questions.csv: row 2: difficulty: Input should be less than or equal to 3"),
    ([row(field="Back End")], "questions.csv: row 2: field 'back end' is not a key"),
    ([row(qid="Not An Id!")], "questions.csv: row 2: id: String should match pattern"),
    ([row(body="")], "questions.csv: row 2: body: String should have at least 1 character"),
    ([row(), row()], "questions.csv: row 3: id be-cache-001: its en text is also at "
                     "questions.csv: row 2"),
    ([row(), row(locale="tr", correct="c")], "questions.csv: row 3: id be-cache-001: correct c "
                                             "differs from b at questions.csv: row 2"),
    ([row(), row(locale="tr", topic="other")], "questions.csv: row 3: id be-cache-001 is in "
                                               "backend/other here but in backend/caching"),
    ([row(), row("be-cache-002", topic_name="Other name")],
     "questions.csv: row 3: topic_name (en) 'Other name' differs from 'Caching' at "
     "questions.csv: row 2"),
    ([row(body="x" * 4000)], "questions.csv: row 2: id be-cache-001: en question renders to"),
    ([row(), row(locale="tr", d="")], "questions.csv: row 2 and questions.csv: row 3: id "
                                      "be-cache-001: options differ between en and tr (en: a, b, "
                                      "c, d / tr: a, b, c)"),
])
def test_invalid_rows_are_refused_and_nothing_is_written(tmp_path, rows, expected):
    result = run(tmp_path, rows)
    assert not result.ok
    assert any(p.startswith(expected) for p in result.problems), result.problems
    assert snapshot(tmp_path / "bank") == {}


def test_one_bad_row_among_good_ones_writes_nothing(tmp_path):
    rows = [row(f"be-cache-{n:03d}", body=f"Q{n}?") for n in range(50)]
    rows[37]["correct"] = "x"
    result = run(tmp_path, rows)
    assert not result.ok and result.problems == [
        "questions.csv: row 39: correct key 'x' is not one of the options"]
    assert snapshot(tmp_path / "bank") == {}


@pytest.mark.parametrize("header, expected", [
    ([*HEADER, "notes"], "unknown column 'notes'"),
    ([h for h in HEADER if h != "explanation"], "missing column 'explanation'"),
    ([*HEADER, "body"], "column 'body' appears twice"),
])
def test_header_problems(tmp_path, header, expected):
    text = ",".join(header) + "\r\n"
    result = import_bytes("q.csv", text.encode(), tmp_path, Options(format="csv"))
    assert not result.ok and any(expected in p for p in result.problems), result.problems


@pytest.mark.parametrize("data, expected", [
    ("id,body,correct\r\nä,b,c".encode("latin-1"),
     "q.csv: not UTF-8 text (byte 0xe4 on line 2): save it as UTF-8"),
    ("id,body,correct\r\n".encode("utf-16"), "q.csv: UTF-16 text: save it as UTF-8"),
    (b"PK\x03\x04\x14\x00\x06\x00", "q.csv: a zip file (an Excel workbook?)"),
    (b"id,body,correct\x00\r\n", "q.csv: contains NUL characters"),
    (b"", "q.csv: the file is empty"),
])
def test_unreadable_files_get_one_clear_error(tmp_path, data, expected):
    result = import_bytes("q.csv", data, tmp_path, Options(format="csv"))
    assert not result.ok and result.problems[0].startswith(expected), result.problems


def test_a_row_with_more_cells_than_the_header(tmp_path):
    data = csv_bytes([row()]) + b"x,backend,caching,C,mid,2,en,body,a,b,c,d,b,why,extra\r\n"
    result = import_bytes("q.csv", data, tmp_path)
    assert result.problems == ["q.csv: row 3: 15 cells but the header has 14 (a separator "
                               "inside an unquoted cell?)"]


def test_an_unclosed_quote_is_caught_at_its_row(tmp_path):
    data = csv_bytes([row()]) + b'x,backend,caching,C,mid,2,en,"never closed' + b"y" * 200_000
    result = import_bytes("q.csv", data, tmp_path)
    assert not result.ok and result.problems[0].startswith(
        "q.csv: row 3: a cell is longer than 100,000 characters"), result.problems


def test_too_many_rows(tmp_path, monkeypatch):
    monkeypatch.setattr(csvformat, "MAX_ROWS", 10)
    rows = [row(f"be-cache-{n:03d}", body=f"Q{n}?") for n in range(11)]
    result = run(tmp_path, rows)
    assert result.problems == ["questions.csv: more than 10 rows: split the file"]


def test_a_50_mb_csv_is_refused_at_once_in_bounded_memory(tmp_path):
    import tracemalloc

    big = tmp_path / "big.csv"
    with big.open("wb") as handle:
        handle.write(",".join(HEADER).encode() + b"\r\n")
        handle.truncate(50 * 1024 * 1024)  # sparse: 50 MB on paper, nothing to write
    tracemalloc.start()
    started = time.perf_counter()
    result = import_paths([big], tmp_path / "bank")
    elapsed = time.perf_counter() - started
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert result.problems == [f"{big}: 50.0 MB is over the 40 MB limit; split it"]
    assert elapsed < 2 and peak < 5 * 1024 * 1024


def test_an_over_limit_stream_is_cut_off_while_reading(tmp_path, monkeypatch):
    monkeypatch.setattr(sources, "MAX_FILE_BYTES", 1000)
    result = import_paths([Path("/dev/zero")], tmp_path / "bank")
    assert result.problems == ["/dev/zero: over the 0 MB limit; split it"]


def test_too_many_problems_stop_the_reading(tmp_path):
    rows = [row(f"be-cache-{n:04d}", seniority="expert") for n in range(2000)]
    result = run(tmp_path, rows)
    assert len(result.problems) == sources.MAX_PROBLEMS + 1
    assert result.problems[-1] == f"questions.csv: stopped after {sources.MAX_PROBLEMS} problems"


def test_an_id_already_used_by_another_topic_is_refused(tmp_path):
    assert run(tmp_path, [row()]).ok
    before = snapshot(tmp_path / "bank")
    result = run(tmp_path, [row(topic="queues")])
    assert result.problems == [
        "questions.csv: row 2: id be-cache-001 is already in backend/caching "
        "(backend/caching.yaml); a question keeps its topic, so change the id or the topic"]
    assert snapshot(tmp_path / "bank") == before


def test_a_second_language_with_other_option_keys_is_refused(tmp_path):
    assert run(tmp_path, [row()]).ok
    before = snapshot(tmp_path / "bank")
    result = run(tmp_path, [row(locale="tr", c="", d="")])
    assert result.problems == ["questions.csv: row 2: id be-cache-001: options differ between "
                               "en and tr (en: a, b, c, d / tr: a, b)"]
    assert snapshot(tmp_path / "bank") == before


def test_an_invalid_target_bank_is_refused(tmp_path):
    bank = tmp_path / "bank"
    assert run(tmp_path, [row()]).ok
    (bank / "broken.yaml").write_text("field: x\ntopic: y\nquestions: [{id: 1}]\n")
    before = snapshot(bank)
    result = run(tmp_path, [row("be-cache-002")])
    assert not result.ok and result.problems[0].startswith(f"{bank}: the bank there has problems")
    assert any("broken.yaml: question 1" in p for p in result.problems)
    assert snapshot(bank) == before


@pytest.mark.parametrize("text, expected", [
    ("field: b\ntopic: t\nquestions:\n  - &q {id: q-1}\n  - *q\n", "anchors and aliases"),
    ("a: " + "[" * 5000 + "]" * 5000, "not valid YAML"),
    ("field: b\ntopic: t\nquestions:\n  - {id: q-1, seniority: mid}\n", "question q-1: difficulty"),
    ("- just\n- a list\n", "expected a mapping with field, topic and questions"),
    ("field: b\ntopic: t\nquestions: 5\n", "`questions` must be a list"),
])
def test_broken_yaml_packs_are_refused(tmp_path, text, expected):
    result = import_bytes("pack.yaml", text.encode(), tmp_path)
    assert not result.ok and any(expected in p for p in result.problems), result.problems
    assert all(p.startswith("pack.yaml: ") for p in result.problems)


def test_a_failed_write_leaves_every_file_as_it_was(tmp_path, monkeypatch):
    assert run(tmp_path, [row(), row("be-queue-001", topic="queues")]).ok
    before = snapshot(tmp_path / "bank")
    calls = {"n": 0}
    real_fsync = os.fsync

    def failing_fsync(fd):
        calls["n"] += 1
        if calls["n"] == 3:
            raise OSError(28, "No space left on device")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", failing_fsync)
    rows = [row(explanation="New."), row("be-queue-001", topic="queues", explanation="New."),
            row("fe-css-001", field="frontend", topic="css")]
    with pytest.raises(OSError):
        run(tmp_path, rows)
    after = snapshot(tmp_path / "bank")
    assert after == before  # no pack replaced, no temporary file left behind


def test_detect_format():
    assert sources.detect_format("id;field;body;correct\n") == "csv"
    assert sources.detect_format('"body","correct"\n') == "csv"
    assert sources.detect_format("  [0, 1]") == "catalog"
    assert sources.detect_format("<!doctype html>") == "catalog"
    assert sources.detect_format("field: backend\n") == "yaml"
    assert sources.detect_format('{"field": "x"}') == "yaml"


def test_2000_rows_import(tmp_path):
    """The bench's generator at a small size (the 30,000-row timing is a slow test)."""
    from bench.import_csv import write_csv

    source = tmp_path / "q.csv"
    write_csv(source, 2000)
    result = import_paths([source], tmp_path / "bank")
    assert result.ok and result.count("added") == 1000
    assert check_bank(tmp_path / "bank")[1] == []


@pytest.mark.slow
def test_30000_rows_import_in_under_10_seconds(tmp_path):
    """CPU time, so a busy machine (parallel test runs) does not fail it; wall time is printed."""
    from bench.import_csv import write_csv

    source = tmp_path / "q.csv"
    write_csv(source, 30_000)
    wall, cpu = time.perf_counter(), time.process_time()
    result = import_paths([source], tmp_path / "bank")
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(f"30,000 rows: {wall:.1f} s wall, {cpu:.1f} s CPU")
    assert result.ok and result.count("added") == 15_000
    assert cpu < 10


def test_too_many_new_topics(tmp_path, monkeypatch):
    monkeypatch.setattr(importer, "MAX_NEW_PACKS", 3)
    rows = [row(f"be-{n}", topic=f"t{n}") for n in range(4)]
    result = run(tmp_path, rows)
    assert result.problems == ["4 new topics in one import (at most 3): is the topic column right?"]


def test_an_empty_or_header_only_file_holds_no_questions(tmp_path):
    from questions.importer import import_bytes
    from tests.question_files import csv_bytes

    for name, data in (("a.csv", b""), ("b.csv", csv_bytes([])), ("c.yaml", b"")):
        result = import_bytes(name, data, tmp_path / "bank")
        assert not result.ok and result.holds_no_questions and result.files == {}
        assert result.problems == [f"{name}: holds no questions (an empty file, or a header "
                                   "row only)"]


def test_field_and_topic_names_are_one_short_line(tmp_path):
    from questions.importer import import_bytes
    from tests.question_files import csv_bytes, row

    result = import_bytes("long.csv", csv_bytes([row(topic_name="T" * 5000)]), tmp_path / "bank")
    assert not result.ok and "at most 64 characters" in result.problems[0]
    assert import_bytes("ok.csv", csv_bytes([row(topic_name="T" * 64)]), tmp_path / "bank").ok


def test_the_validator_refuses_a_long_or_multi_line_name(tmp_path):
    from questions.loader import check_bank

    pack = tmp_path / "bank" / "f.yaml"
    pack.parent.mkdir()
    question = ("questions:\n  - {id: q-1, seniority: mid, difficulty: 1, correct: a,\n"
                "     en: {body: B, options: {a: x, b: y}, explanation: E}}\n")
    for name in ("x" * 5000, '"two\\nlines"'):
        pack.write_text(f"field: f\ntopic: t\ntopic_name: {name}\n{question}")
        bank, problems = check_bank(tmp_path / "bank")
        assert bank is None and "topic_name" in problems[0], problems
