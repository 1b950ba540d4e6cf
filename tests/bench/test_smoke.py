"""Each benchmark part runs at a tiny size and prints its one line; no timing is asserted."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.report import ROOT, Result, write_docs

LINE = re.compile(r"^\[(e2e|storage|bank|startup|charts|reminders|instances)\] .+ \| "
                  r"targets: .+ -> "
                  r"(all met|MISSED: .+|not measured)( \(.+\))?$")


PARTS = ["e2e", "storage", "bank", "startup", "charts", "reminders", "instances"]


@pytest.fixture(scope="module")
def bench_runs(tmp_path_factory) -> Iterator[dict[str, tuple[subprocess.Popen, Path]]]:
    """Every part's quick run, all started at once (the reminders part mostly waits out its
    drain, and each process pays for its own start-up), each with a docs path of its own."""
    runs = {}
    for part in PARTS:
        docs = tmp_path_factory.mktemp(part) / "b.md"
        runs[part] = (subprocess.Popen(
            [sys.executable, "-m", "bench", "--part", part, "--quick", "--docs", str(docs)],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True), docs)
    yield runs
    for process, _ in runs.values():
        if process.poll() is None:
            process.kill()
            process.wait()


@pytest.mark.parametrize("part", PARTS)
def test_each_part_prints_one_line_with_its_figures_and_targets(part, bench_runs):
    process, docs = bench_runs[part]
    output, errors = process.communicate(timeout=120)
    assert process.returncode == 0, errors[-3000:]
    lines = output.strip().splitlines()
    assert len(lines) == 1, output
    assert LINE.match(lines[0]), lines[0]
    assert lines[0].startswith(f"[{part}]")
    assert not docs.exists()  # quick figures never reach the docs


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
