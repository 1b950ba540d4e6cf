"""`make bench [ARGS=...]`: run the benchmarks, print one line per part, update the docs."""

from __future__ import annotations

import argparse
import shlex
import sys
import time
import traceback
from pathlib import Path
from typing import TYPE_CHECKING

from bench.report import DOCS, PARTS, ROOT, Result, load_average, write_docs

if TYPE_CHECKING:
    from bench.e2e import Load


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--part", choices=(*PARTS, "all"), default="all")
    parser.add_argument("--quick", action="store_true",
                        help="tiny sizes, one run: checks that every part works, in seconds")
    parser.add_argument("--runs", type=int, help="measured runs per part (after the warm-up)")
    sizes = parser.add_argument_group("sizes")
    sizes.add_argument("--users", type=int, help="e2e: simulated users (default 40); "
                       "instances: in both halves (default 40 and 60)")
    sizes.add_argument("--answers-per-user", type=int,
                       help="e2e, instances: answers each (default 8)")
    sizes.add_argument("--users-db", type=int, help="storage: users in the database (100,000)")
    sizes.add_argument("--answers", type=int, help="storage: answers in the database (10,000,000)")
    sizes.add_argument("--questions", type=int, help="bank: generated questions (30,000)")
    sizes.add_argument("--reminders", type=int, help="reminders: stored reminders (100,000)")
    parser.add_argument("--docs", type=Path, default=DOCS,
                        help="where to write the table (default docs/benchmarks.md)")
    parser.add_argument("--no-docs", action="store_true", help="print only (--quick never writes)")
    return parser.parse_args(argv)


def pick(value: int | None, quick: int, full: int, is_quick: bool) -> int:
    if value is not None:
        return value
    return quick if is_quick else full


def e2e_load(args: argparse.Namespace, users: int, bank_dir: Path | None) -> Load:
    """The e2e part's load (also the instances part's SQLite-against-PostgreSQL half)."""
    from bench.e2e import Load

    quick = args.quick
    return Load(users=users, answers=pick(args.answers_per_user, 1, 8, quick),
                runs=pick(args.runs, 1, 3, quick), warmup=0 if quick else 5,
                questions_dir=bank_dir)


def run_part(part: str, args: argparse.Namespace) -> Result:
    quick = args.quick
    # Quick runs start the bot on the small test bank: loading the bundled one takes seconds.
    bank_dir = ROOT / "tests" / "data" / "bank" if quick else None
    if part == "e2e":
        from bench import e2e

        return e2e.run(e2e_load(args, pick(args.users, 2, 40, quick), bank_dir))
    if part == "storage":
        from bench import storage

        return storage.run(users=pick(args.users_db, 200, 100_000, quick),
                           answers=pick(args.answers, 2_000, 10_000_000, quick),
                           runs=pick(args.runs, 1, 3, quick), samples=50 if quick else 2000)
    if part == "bank":
        from bench import bank

        return bank.run(count=pick(args.questions, 300, 30_000, quick),
                        runs=pick(args.runs, 1, 3, quick), rank_runs=3 if quick else 20)
    if part == "charts":
        from bench import charts

        return charts.run(answers=pick(args.answers_per_user, 2, 15, quick),
                          bursts=1 if quick else 3, questions_dir=bank_dir)
    if part == "startup":
        from bench import startup

        return startup.run(count=pick(args.questions, 300, 30_000, quick),
                           runs=pick(args.runs, 1, 2, quick), baseline=bank_dir)
    if part == "instances":
        from bench import instances

        users = pick(args.users, 2, 40, quick)
        return instances.run(e2e_load(args, users, bank_dir), pick(args.users, 4, 60, quick))
    from bench import reminders

    return reminders.run(count=pick(args.reminders, 500, 100_000, quick),
                         runs=pick(args.runs, 1, 3, quick), quick=quick, questions_dir=bank_dir)


def main(argv: list[str]) -> int:
    args = parse(argv)
    parts = PARTS if args.part == "all" else (args.part,)
    load = load_average()
    results = []
    for part in parts:
        started = time.monotonic()
        try:
            result = run_part(part, args)
        except Exception as exc:  # one broken part must not cost the others their figures
            traceback.print_exc()
            result = Result(part, f"failed: {type(exc).__name__}: {exc}", "-", None)
        print(result.line(), flush=True)
        print(f"  ({part} took {time.monotonic() - started:.0f} s)", file=sys.stderr, flush=True)
        results.append(result)
    if not (args.no_docs or args.quick):  # quick figures are no benchmark
        command = "make bench" + (f" ARGS={shlex.quote(' '.join(argv))}" if argv else "")
        write_docs(results, command, args.docs, load)
        print(f"wrote {args.docs}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
