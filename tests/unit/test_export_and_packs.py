"""Export to CSV and back, the YAML pack writer, and the import/export commands."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from questions.cli import BUNDLED
from questions.cli import main as cli
from questions.exporter import export_csv
from questions.importer import import_bytes
from questions.loader import check_bank
from questions.packfile import pack_yaml, text_value
from tests.conftest import TEST_BANK
from tests.question_files import csv_bytes, dump, row, snapshot


def test_bundled_bank_round_trips_through_csv(tmp_path):
    bank, _ = check_bank(BUNDLED)
    exported = export_csv(bank)
    result = import_bytes("bank.csv", exported.encode(), tmp_path / "bank")
    assert result.ok, result.problems[:5]
    again, problems = check_bank(tmp_path / "bank")
    assert problems == []
    assert dump(again) == dump(bank)
    assert export_csv(again) == exported


def test_export_then_import_into_the_same_bank_changes_nothing(tmp_path):
    import shutil

    shutil.copytree(TEST_BANK, tmp_path / "bank")
    bank, _ = check_bank(tmp_path / "bank")
    before = snapshot(tmp_path / "bank")
    result = import_bytes("bank.csv", export_csv(bank).encode(), tmp_path / "bank")
    assert result.ok and result.files == {} and result.count("unchanged") == len(bank)
    assert snapshot(tmp_path / "bank") == before


def test_export_has_the_e_and_f_columns_only_when_needed(tmp_path):
    assert import_bytes("q.csv", csv_bytes([row()]), tmp_path).ok
    header = export_csv(check_bank(tmp_path)[0]).splitlines()[0]
    assert header.endswith(",a,b,c,d,correct,explanation")
    header6 = [*csv_bytes([row()]).decode().splitlines()[0].split(","), "e", "f"]
    assert import_bytes("q.csv", csv_bytes([row("x-1", e="E", f="F")], header6), tmp_path).ok
    assert ",d,e,f,correct," in export_csv(check_bank(tmp_path)[0]).splitlines()[0]


texts = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=40)


@settings(max_examples=300, deadline=None)
@given(text=texts)
def test_any_text_reads_back_unchanged(text):
    document = "k: " + text_value(text, 2) + "\n"
    assert yaml.load(document, Loader=yaml.CSafeLoader)["k"] == text
    assert yaml.load(document, Loader=yaml.SafeLoader)["k"] == text


@settings(max_examples=100, deadline=None)
@given(body=texts, option=texts, explanation=texts, name=texts)
def test_a_written_pack_reads_back_as_the_same_data(body, option, explanation, name):
    pack = {"field": "backend", "field_name": {"en": name}, "topic": "t",
            "topic_name": {"en": name, "tr": name}, "keywords": {"en": [name, "x"]},
            "questions": [{"id": "q-1", "seniority": "mid", "difficulty": 2, "correct": "a",
                           "en": {"body": body, "options": {"a": option, "b": "y"},
                                  "explanation": explanation}}]}
    assert yaml.load(pack_yaml(pack), Loader=yaml.CSafeLoader) == pack


def test_multi_line_text_is_a_literal_block_and_ids_stay_plain():
    pack = {"field": "backend", "topic": "t", "questions": [{
        "id": "backend-t-001", "seniority": "mid", "difficulty": 1, "correct": "a",
        "en": {"body": "Line one\n```sql\nSELECT 1;\n```", "options": {"a": "yes", "b": "1.5"},
               "explanation": "Why."}}]}
    text = pack_yaml(pack)
    assert "  - id: backend-t-001\n" in text
    assert "      body: |-\n        Line one\n        ```sql\n        SELECT 1;\n" in text
    assert '        a: "yes"\n        b: "1.5"\n' in text  # never read back as a bool or number


# -- the command line ------------------------------------------------------------------------


def test_import_and_export_commands(tmp_path, capsys):
    source = tmp_path / "q.csv"
    source.write_bytes(csv_bytes([row(), row(locale="tr")]))
    bank = tmp_path / "bank"
    assert cli(["import", str(source), "--into", str(bank), "--dry-run"]) == 0
    assert "would write 1 file(s) (dry run: nothing written)" in capsys.readouterr().out
    assert not bank.exists()
    assert cli(["import", str(source), "--into", str(bank)]) == 0
    out = capsys.readouterr().out
    assert "backend/caching (backend/caching.yaml, new file): 1 added, 0 updated, 0 unchanged" in out
    assert "Added 1, updated 0, skipped 0 unchanged; wrote 1 file(s)" in out
    assert cli(["import", str(source), "--into", str(bank)]) == 0
    assert "Added 0, updated 0, skipped 1 unchanged; wrote 0 file(s)" in capsys.readouterr().out
    out_csv = tmp_path / "out.csv"
    assert cli(["export", str(bank), "--format", "csv", "--out", str(out_csv)]) == 0
    assert out_csv.read_bytes().startswith(b"\xef\xbb\xbfid,field,")  # BOM for spreadsheets
    assert cli(["validate", str(bank)]) == 0
    assert cli(["stats", str(bank)]) == 0


def test_import_command_lists_problems_and_exits_1(tmp_path, capsys):
    source = tmp_path / "q.csv"
    source.write_bytes(csv_bytes([row(correct="z")]))
    assert cli(["import", str(source), "--into", str(tmp_path / "bank")]) == 1
    captured = capsys.readouterr()
    assert f"{source}: row 2: correct key 'z' is not one of the options" in captured.out
    assert "nothing was written" in captured.err
    assert not (tmp_path / "bank").exists()


def test_import_of_a_missing_file(tmp_path, capsys):
    assert cli(["import", str(tmp_path / "nope.csv"), "--into", str(tmp_path)]) == 1
    assert "nope.csv: cannot read (No such file or directory)" in capsys.readouterr().out


def test_formula_cells_are_exported_as_text_and_read_back_unchanged(tmp_path):
    import csv
    import io

    risky = {"body": "=HYPERLINK(\"http://x\",\"y\")", "a": "+1", "b": "-1", "c": "@SUM(A1)",
             "d": "'=already marked", "explanation": "\tTab first", "topic_name": "''-x"}
    assert import_bytes("q.csv", csv_bytes([row(**risky)]), tmp_path / "one").ok
    bank, _ = check_bank(tmp_path / "one")
    exported = export_csv(bank)
    cells = [cell for line in csv.reader(io.StringIO(exported)) for cell in line]
    assert not any(cell.startswith(("=", "+", "-", "@", "\t", "\r")) for cell in cells)
    assert "'=HYPERLINK(\"http://x\",\"y\")" in cells and "'=already marked" in cells
    assert import_bytes("q.csv", exported.encode(), tmp_path / "two").ok
    again, _ = check_bank(tmp_path / "two")
    assert dump(again) == dump(bank)
    question = again.questions["be-cache-001"].text("en")
    # A mark typed in a spreadsheet is taken off like the one export writes.
    assert question.body.startswith("=HYPERLINK") and question.options["d"] == "=already marked"


@pytest.mark.parametrize("cell", ["=1+1", "'=1+1", "''@x", "-", "'", "plain", "'quoted", "\rx"])
def test_the_formula_guard_is_undone_exactly(cell):
    from questions.csvformat import guard_formula, unguard_formula

    assert unguard_formula(guard_formula(cell)) == cell
    assert not guard_formula(cell).startswith(("=", "+", "-", "@", "\t", "\r"))
