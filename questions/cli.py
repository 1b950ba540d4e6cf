"""`python -m questions`: validate a bank and show its counts (import and export live beside)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from questions.loader import bank_stats, check_bank
from questions.model import LEVELS

BUNDLED = Path(__file__).resolve().parent / "bank"


def cmd_validate(args: argparse.Namespace) -> int:
    bank, problems = check_bank(Path(args.dir))
    if problems:
        for problem in problems:
            print(problem)
        print(f"\n{len(problems)} problem(s) in {args.dir}", file=sys.stderr)
        return 1
    assert bank is not None
    print(f"OK: {len(bank)} questions in {len(bank.fields)} fields, "
          f"{sum(len(f.topics) for f in bank.fields.values())} topics")
    return 0


def cmd_stats(args: argparse.Namespace) -> int:
    bank, problems = check_bank(Path(args.dir))
    if bank is None:
        for problem in problems:
            print(problem)
        return 1
    stats = bank_stats(bank)
    header = f"{'field':<22}{'total':>6}" + "".join(
        f"{level + ' en/tr':>16}" for level in LEVELS) + f"{'topics':>8}"
    print(header)
    print("-" * len(header))
    for field_key in sorted(stats):
        entry = stats[field_key]
        cells = "".join(
            f"{entry['level_language'][(level, 'en')]:>11}/{entry['level_language'][(level, 'tr')]:<4}"
            for level in LEVELS)
        print(f"{field_key:<22}{entry['total']:>6}{cells}{len(entry['topics']):>8}")
    print("-" * len(header))
    print(f"{'all':<22}{len(bank):>6}")
    if args.topics:
        for field_key in sorted(stats):
            print(f"\n{field_key}:")
            for topic, count in sorted(stats[field_key]["topics"].items()):
                print(f"  {topic:<44}{count:>4}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m questions",
                                     description="Question bank tools")
    sub = parser.add_subparsers(dest="command", required=True)
    validate = sub.add_parser("validate", help="check every pack; exit 1 on any problem")
    validate.add_argument("dir", nargs="?", default=str(BUNDLED))
    validate.set_defaults(func=cmd_validate)
    stats = sub.add_parser("stats", help="counts per field, level, topic and language")
    stats.add_argument("dir", nargs="?", default=str(BUNDLED))
    stats.add_argument("--topics", action="store_true", help="also list the topics")
    stats.set_defaults(func=cmd_stats)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    return args.func(args)
