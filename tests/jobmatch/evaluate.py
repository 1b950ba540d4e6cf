"""Evaluates the job-ad matcher on the labelled ads in ads.yaml, with the full bundled bank.

`python -m tests.jobmatch.evaluate [--repeat N] [-v]` prints the accuracy figures, the ranking time
(p50/p99 over every ad, N times) and, with -v, every ad's answer. The test beside it holds the figures.
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from domain.jobmatch import Matcher, build_matcher
from questions.cli import BUNDLED
from questions.loader import load_bank

ADS = Path(__file__).with_name("ads.yaml")
# Summaries of the evaluations run by the tests, shown at the end of the run (conftest.py).
REPORTS: list[str] = []


def load_ads(path: Path = ADS) -> list[dict]:
    return yaml.safe_load(path.read_text(encoding="utf-8"))["ads"]


@dataclass
class Report:
    ads: int = 0
    on_topic: int = 0
    field_right: int = 0
    level_right: int = 0
    off_topic: int = 0
    rejected: int = 0
    misses: list[str] = field(default_factory=list)
    timings_ms: list[float] = field(default_factory=list)

    @property
    def field_accuracy(self) -> float:
        return self.field_right / self.on_topic if self.on_topic else 0.0

    @property
    def level_accuracy(self) -> float:
        return self.level_right / self.on_topic if self.on_topic else 0.0

    @property
    def rejection(self) -> float:
        return self.rejected / self.off_topic if self.off_topic else 0.0

    def percentile(self, share: float) -> float:
        ordered = sorted(self.timings_ms)
        return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0

    def summary(self) -> str:
        lines = [
            f"{self.ads} ads ({self.on_topic} on topic, {self.off_topic} off topic)",
            f"top-1 field accuracy: {self.field_right}/{self.on_topic} = "
            f"{100 * self.field_accuracy:.1f}%",
            f"level accuracy:       {self.level_right}/{self.on_topic} = "
            f"{100 * self.level_accuracy:.1f}%",
            f"off-topic rejection:  {self.rejected}/{self.off_topic} = "
            f"{100 * self.rejection:.1f}%",
        ]
        if self.timings_ms:
            lines.append(f"ranking time: p50 {self.percentile(0.5):.1f} ms, p99 "
                         f"{self.percentile(0.99):.1f} ms, mean "
                         f"{statistics.fmean(self.timings_ms):.1f} ms "
                         f"({len(self.timings_ms)} rankings)")
        lines += [f"miss: {m}" for m in self.misses]
        return "\n".join(lines)


def evaluate(matcher: Matcher, ads: list[dict], *, repeat: int = 1,
             verbose: bool = False) -> Report:
    report = Report(ads=len(ads))
    for ad in ads:
        for _ in range(repeat):
            started = time.perf_counter()
            result = matcher.match(ad["text"])
            report.timings_ms.append((time.perf_counter() - started) * 1000)
        best = result.best.field if result.best else None
        if verbose:
            top = result.fields[0]
            print(f"{ad['id']:34} {best or '(no match)':20} {round(100 * top.confidence):3}% "
                  f"{result.level.level:7} {', '.join(t.topic for t in top.topics)}")
        if ad["field"] is None:
            report.off_topic += 1
            report.rejected += best is None
            if best is not None:
                report.misses.append(f"{ad['id']}: matched {best}, expected no match")
            continue
        report.on_topic += 1
        report.field_right += best == ad["field"]
        report.level_right += result.level.level == ad["level"]
        if best != ad["field"]:
            report.misses.append(f"{ad['id']}: field {best}, expected {ad['field']}")
        if result.level.level != ad["level"]:
            report.misses.append(f"{ad['id']}: level {result.level.level}, expected {ad['level']}")
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20, help="rankings per ad for the timing")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    bank = load_bank(BUNDLED)
    loaded = time.perf_counter()
    matcher = build_matcher(bank)
    built = time.perf_counter()
    print(f"bank: {len(bank)} questions, {len(bank.fields)} fields; loaded in "
          f"{loaded - started:.2f} s, matcher built in {built - loaded:.2f} s")
    ads = load_ads()
    print(evaluate(matcher, ads, repeat=args.repeat, verbose=args.verbose).summary())
    # The largest input the bot accepts: a 100 KB .txt file.
    largest = ("\n".join(ad["text"] for ad in ads) * 10).encode()[: 100 * 1024].decode(
        errors="ignore")
    started = time.perf_counter()
    matcher.match(largest)
    print(f"a 100 KB text: {(time.perf_counter() - started) * 1000:.0f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
