"""What every part reports (one line with its figures and targets) and docs/benchmarks.md."""

from __future__ import annotations

import datetime as dt
import math
import os
import platform
import re
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "benchmarks.md"
PARTS = ("e2e", "storage", "bank", "startup", "charts", "reminders", "instances")
TITLES = {"e2e": "End to end under Telegram's limits", "storage": "Storage at scale",
          "bank": "Bank", "startup": "Start-up and memory at 30,000 questions",
          "charts": "Taps while charts are drawn",
          "reminders": "Reminders",
          "instances": "PostgreSQL and two instances"}


@dataclass(frozen=True)
class Result:
    """One part's outcome. `met` is None when the part could not run (not available yet)."""

    part: str
    figures: str
    targets: str
    met: bool | None
    how: str = ""
    missed: tuple[str, ...] = ()

    @property
    def verdict(self) -> str:
        if self.met is None:
            return "not measured"
        return "all met" if self.met else "MISSED: " + "; ".join(self.missed)

    def line(self) -> str:
        how = f" ({self.how})" if self.how else ""
        return f"[{self.part}] {self.figures} | targets: {self.targets} -> {self.verdict}{how}"


def not_available(part: str, what: str) -> Result:
    return Result(part, f"not available yet: {what}", "-", None)


def percentile(values: Sequence[float], pct: float) -> float:
    """Nearest-rank percentile (p50 = median of an odd count); NaN for no values."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = max(1, math.ceil(pct / 100 * len(ordered)))
    return ordered[rank - 1]


def median(values: Sequence[float]) -> float:
    ordered = sorted(values)
    if not ordered:
        return math.nan
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def ms(seconds: float) -> str:
    """A duration for people: `0.42 ms`, `38 ms`, `1.24 s`."""
    if math.isnan(seconds):
        return "n/a"
    if seconds >= 1:
        return f"{seconds:.2f} s"
    value = seconds * 1000
    return f"{value:.2f} ms" if value < 100 else f"{value:.0f} ms"


def check(missed: list[str], ok: bool, description: str) -> str:
    """`✓`/`✗` after a target, remembering the missed ones."""
    if not ok:
        missed.append(description)
    return "ok" if ok else "missed"


def machine() -> str:
    """CPU model and cores, memory, OS and Python, for the record."""
    cpu = platform.processor() or platform.machine()
    try:
        text = Path("/proc/cpuinfo").read_text()
        found = re.search(r"^model name\s*:\s*(.+)$", text, re.M)
        if found:
            cpu = found.group(1).strip()
    except OSError:
        pass
    memory = ""
    try:
        found = re.search(r"^MemTotal:\s*(\d+) kB", Path("/proc/meminfo").read_text(), re.M)
        if found:
            memory = f", {int(found.group(1)) / 2**20:.0f} GiB RAM"
    except OSError:
        pass
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (f"{cpu}, {cores} cores{memory}; {platform.system()} {platform.release()}; "
            f"Python {platform.python_version()}")


def commit() -> str:
    try:
        head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no", "--",
             ".", ":!docs/benchmarks.md"],  # the table itself changes with every run
            capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + (" (with uncommitted changes)" if dirty else "")


def _escape(cell: str) -> str:
    return cell.replace("|", "\\|").replace("\n", " ")


def _rows(text: str) -> dict[str, str]:
    """The table rows of an earlier docs/benchmarks.md, by part."""
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        if len(cells) == 5 and cells[0] in TITLES.values():
            part = next(k for k, v in TITLES.items() if v == cells[0])
            rows[part] = line
    return rows


def load_average() -> float | None:
    """The 1-minute load average: other work on the machine shares its cores with the bench."""
    try:
        return os.getloadavg()[0]
    except OSError:
        return None


def write_docs(results: Sequence[Result], command: str, path: Path = DOCS,
               load: float | None = None) -> None:
    """Replace the rows of the parts that ran; rows of parts that did not run are kept."""
    when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    rev = commit()
    previous = _rows(path.read_text(encoding="utf-8")) if path.exists() else {}
    for result in results:
        previous[result.part] = "| " + " | ".join(_escape(c) for c in (
            TITLES[result.part], result.figures, result.targets, result.verdict,
            f"{when}, {rev}" + (f"; {result.how}" if result.how else ""))) + " |"
    lines = [
        "# Benchmarks",
        "",
        "Written by `make bench` (the latest run of each part replaces its row); the last command",
        f"was `{command}`. One part: `make bench ARGS=\"--part storage\"`. How each figure is",
        "measured: README.md, section Performance.",
        "",
        f"Machine of the latest run: {machine()}"
        + (f"; load average {load:.1f} when it started." if load is not None else "."),
        "",
        "| part | figures | targets | verdict | measured (when, commit; how) |",
        "|---|---|---|---|---|",
        *(previous[p] for p in PARTS if p in previous),
        "",
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines), encoding="utf-8")
