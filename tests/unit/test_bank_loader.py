"""The pack loader and validator: good banks load, every kind of mistake is named."""

from pathlib import Path

import pytest

from questions.cli import main as cli
from questions.loader import BankError, check_bank, load_bank
from tests.conftest import TEST_BANK


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


GOOD = """
field: backend
topic: t1
questions:
  - id: q-001
    seniority: mid
    difficulty: 2
    correct: b
    en: {body: "Body", options: {a: "x", b: "y"}, explanation: "Why"}
"""


def test_test_bank_loads(test_bank):
    assert len(test_bank) == 5
    assert set(test_bank.fields) == {"backend", "frontend"}
    q = test_bank.questions["test-cache-001"]
    assert q.field == "backend" and q.topic == "http-caching"
    assert test_bank.by_key[q.key] is q
    assert test_bank.field_name("frontend", "tr") == "Ön yüz"
    assert [x.id for x in test_bank.pool("backend", "junior")] == [
        "test-cache-001", "test-cache-002", "test-queue-001"]


def test_text_falls_back_to_the_other_language(tmp_path):
    write(tmp_path, "a.yaml", GOOD)
    bank = load_bank(tmp_path)
    assert bank.questions["q-001"].text("tr").body == "Body"


@pytest.mark.parametrize("old, new, expected", [
    ("seniority: mid", "seniority: expert", "seniority"),
    ("correct: b", "correct: z", "correct key 'z' is not one of the options"),
    ('options: {a: "x", b: "y"}', 'options: {a: "x"}', "needs 2 to 6 options"),
    ('options: {a: "x", b: "y"}', 'options: {a: "x", c: "y"}', "option keys must be a, b, c"),
    ("difficulty: 2", "difficulty: 7", "difficulty"),
])
def test_schema_problems_name_file_and_question(tmp_path, old, new, expected):
    write(tmp_path, "a.yaml", GOOD.replace(old, new))
    bank, problems = check_bank(tmp_path)
    assert bank is None
    assert problems and all(p.startswith("a.yaml: question q-001") for p in problems)
    assert expected in " ".join(problems)


def test_duplicate_ids_across_files(tmp_path):
    write(tmp_path, "a.yaml", GOOD)
    write(tmp_path, "sub/b.yaml", GOOD.replace("topic: t1", "topic: t2"))
    _, problems = check_bank(tmp_path)
    assert any("duplicate id" in p and "sub/b.yaml" in p for p in problems)


def test_options_must_match_between_languages(tmp_path):
    text = GOOD + '    tr: {body: "Gövde", options: {a: "x", b: "y", c: "z"}, explanation: "Neden"}\n'
    write(tmp_path, "a.yaml", text)
    _, problems = check_bank(tmp_path)
    assert any("options differ between en and tr" in p for p in problems)


def test_question_too_long_for_one_message(tmp_path):
    write(tmp_path, "a.yaml", GOOD.replace('body: "Body"', 'body: "' + "x" * 4000 + '"'))
    _, problems = check_bank(tmp_path)
    assert any("renders to" in p for p in problems)


def test_broken_yaml_and_empty_folder(tmp_path):
    write(tmp_path, "a.yaml", "field: [unclosed")
    _, problems = check_bank(tmp_path)
    assert problems[0].startswith("a.yaml: not valid YAML")
    _, problems = check_bank(tmp_path / "missing")
    assert "not a folder" in problems[0]


def test_load_bank_raises_with_problems(tmp_path):
    write(tmp_path, "a.yaml", GOOD.replace("correct: b", "correct: q"))
    with pytest.raises(BankError) as err:
        load_bank(tmp_path)
    assert err.value.problems


def test_cli_validate_and_stats(tmp_path, capsys):
    assert cli(["validate", str(TEST_BANK)]) == 0
    assert "OK: 5 questions" in capsys.readouterr().out
    assert cli(["stats", str(TEST_BANK)]) == 0
    out = capsys.readouterr().out
    assert "backend" in out and "frontend" in out
    write(tmp_path, "a.yaml", GOOD.replace("correct: b", "correct: q"))
    assert cli(["validate", str(tmp_path)]) == 1
    assert "a.yaml: question q-001" in capsys.readouterr().out


def test_question_too_long_is_found_by_worker_processes_too(tmp_path):
    from questions.loader import checked_packs

    write(tmp_path, "a.yaml", GOOD.replace('body: "Body"', 'body: "' + "x" * 4000 + '"'))
    packs, problems = checked_packs(tmp_path, parallel_over=0)
    assert packs is None and any("a.yaml: question" in p and "renders to" in p for p in problems)
