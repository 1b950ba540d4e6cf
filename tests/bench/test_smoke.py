"""Each benchmark part runs at a tiny size and prints its one line; no timing is asserted."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from bench.report import ROOT, Result, write_docs

LINE = re.compile(r"^\[(e2e|storage|bank|reminders)\] .+ \| targets: .+ -> "
                  r"(all met|MISSED: .+|not measured)( \(.+\))?$")


def run_bench(*args: str) -> str:
    out = subprocess.run([sys.executable, "-m", "bench", *args], cwd=ROOT, capture_output=True,
                         text=True, timeout=120, check=False)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


@pytest.mark.parametrize("part", ["e2e", "storage", "bank", "reminders"])
def test_each_part_prints_one_line_with_its_figures_and_targets(part, tmp_path):
    output = run_bench("--part", part, "--quick", "--docs", str(tmp_path / "b.md"))
    lines = output.strip().splitlines()
    assert len(lines) == 1, output
    assert LINE.match(lines[0]), lines[0]
    assert lines[0].startswith(f"[{part}]")
    assert not (tmp_path / "b.md").exists()  # quick figures never reach the docs


def test_the_docs_keep_one_row_per_part_and_replace_the_rerun_ones(tmp_path):
    docs = tmp_path / "benchmarks.md"
    write_docs([Result("bank", "1.0 s", "< 3 s (ok)", True),
                Result("e2e", "9 answers/s", ">= 0.8x (ok)", True)], "make bench", docs)
    write_docs([Result("bank", "4.0 s", "< 3 s (missed)", False, missed=("load 4.0 s",))],
               "make bench ARGS='--part bank'", docs)
    text = docs.read_text()
    assert "9 answers/s" in text and "4.0 s" in text and "1.0 s" not in text
    assert "MISSED: load 4.0 s" in text and "cores" in text
    rows = [line for line in text.splitlines() if line.startswith("| ") and "---" not in line]
    assert [r.split("|")[1].strip() for r in rows[1:]] == [
        "End to end under Telegram's limits", "Bank"]
