"""`python -m storage.backup DEST [--db PATH]`: a consistent copy of a live database.

Uses SQLite's online backup API, which is safe while the bot writes (a plain file copy of a
WAL database can miss committed pages or catch a half-written one).
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
from pathlib import Path


def backup(source: Path, destination: Path) -> int:
    """Copy `source` to `destination` (owner-only), returning the number of pages."""
    destination.parent.mkdir(parents=True, exist_ok=True)
    tmp = destination.with_name(destination.name + ".part")
    tmp.unlink(missing_ok=True)
    with sqlite3.connect(f"file:{source}?mode=ro", uri=True) as src, sqlite3.connect(tmp) as dst:
        src.backup(dst)
        pages = dst.execute("PRAGMA page_count").fetchone()[0]
    os.chmod(tmp, 0o600)
    tmp.replace(destination)
    return pages


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m storage.backup", description=__doc__)
    parser.add_argument("destination", type=Path)
    parser.add_argument("--db", type=Path,
                        default=Path(os.environ.get("DATABASE_PATH", "data/coach.sqlite3")))
    args = parser.parse_args(argv)
    if os.environ.get("DATABASE_URL") and "--db" not in (argv or sys.argv[1:]):
        # The bot keeps its data in PostgreSQL: the SQLite file here is not it.
        print("DATABASE_URL is set: back PostgreSQL up with its own tools (pg_dump), or pass "
              "--db to copy a SQLite file", file=sys.stderr)
        return 2
    if not args.db.exists():
        print(f"{args.db} does not exist", file=sys.stderr)
        return 1
    pages = backup(args.db, args.destination)
    print(f"backed up {args.db} to {args.destination} ({pages} pages)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
