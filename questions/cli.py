"""`python -m questions`: validate a bank, show its counts, import questions into it, export it."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from questions import importer
from questions.exporter import export_csv
from questions.loader import bank_stats, check_bank
from questions.model import LEVELS
from questions.packfile import write_files_atomically

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


def cmd_import(args: argparse.Namespace) -> int:
    options = importer.Options(field=args.field, level=args.level, format=args.format)
    result = importer.import_paths([Path(f) for f in args.files], Path(args.into), options,
                                   dry_run=args.dry_run)
    if not result.ok:
        for problem in result.problems:
            print(problem)
        print(f"\n{len(result.problems)} problem(s); nothing was written to {args.into}",
              file=sys.stderr)
        return 1
    for line in importer.summary_lines(result, dry_run=args.dry_run):
        print(line)
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    bank, problems = check_bank(Path(args.dir))
    if bank is None:
        for problem in problems:
            print(problem, file=sys.stderr)
        return 1
    text = export_csv(bank)
    if args.out == "-":
        sys.stdout.write(text)
    else:
        # With a BOM, spreadsheets open the file as UTF-8 (Turkish letters intact); import skips it.
        write_files_atomically({Path(args.out): "\ufeff" + text})
        rows = sum(len(q.languages) for q in bank.questions.values())
        print(f"exported {len(bank)} questions ({rows} rows) to {args.out}", file=sys.stderr)
    return 0


def cmd_flags(args: argparse.Namespace) -> int:
    """The open reports on questions (/flags), for the pack's author; reads the bot's database."""
    import asyncio

    from storage import flags
    from storage.db import Database

    path = Path(args.db)
    if not path.is_file():
        print(f"no database at {path}", file=sys.stderr)
        return 1

    async def read() -> list[flags.FlaggedQuestion]:
        db = await Database.open(path)
        try:
            return await flags.open_flags(db)
        finally:
            await db.close()

    flagged = asyncio.run(read())
    for item in flagged:
        reasons = ", ".join(f"{reason} x{count}" for reason, count in sorted(item.reasons.items()))
        print(f"{item.question_id}\t{item.reports} open\t{reasons}")
        for comment in item.comments:
            print(f"    - {comment}")
    print(f"{sum(f.reports for f in flagged)} open report(s) on {len(flagged)} question(s)",
          file=sys.stderr)
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
    imp = sub.add_parser(
        "import", help="add or update questions from CSV, catalog pages or YAML packs",
        description="Reads each FILE (format chosen from its content) and writes or updates one "
                    "YAML pack per field and topic under DIR. Idempotent; nothing is written "
                    "when any input is invalid.")
    imp.add_argument("files", nargs="+", metavar="FILE", help="a .csv, a catalog page .json "
                     "(or saved .html), a .yaml pack, or a folder of packs")
    imp.add_argument("--into", required=True, metavar="DIR", help="the bank folder to update")
    imp.add_argument("--field", metavar="KEY", type=str.lower,
                     help="put every question in this field (overrides the files)")
    imp.add_argument("--level", choices=LEVELS, help="give every question this level "
                     "(catalog pages otherwise map difficulty 1/2/3 to junior/mid/senior)")
    imp.add_argument("--format", choices=importer.FORMATS, help="skip the format detection")
    imp.add_argument("--dry-run", action="store_true", help="report, write nothing")
    imp.set_defaults(func=cmd_import)
    exp = sub.add_parser("export", help="write the bank as CSV (the import format)")
    exp.add_argument("dir", nargs="?", default=str(BUNDLED))
    exp.add_argument("--format", choices=["csv"], default="csv")
    exp.add_argument("--out", required=True, metavar="FILE", help="the CSV file, or - for stdout")
    exp.set_defaults(func=cmd_export)
    flg = sub.add_parser("flags", help="list the open reports on questions from a bot database")
    flg.add_argument("--db", required=True, metavar="PATH", help="the bot's SQLite database")
    flg.set_defaults(func=cmd_flags)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    return args.func(args)
