"""The spreadsheet format of the bank: one row per question and language, shared by import and export.

Columns: id, field, topic, seniority, difficulty, locale, body, a..f, correct, explanation, plus the
optional pack columns field_name, topic_name, specialization and keywords (comma-separated words).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator

from questions.model import OPTION_KEYS

# The order export writes; import accepts any order and leaves optional columns out.
COLUMNS = ("id", "field", "field_name", "topic", "topic_name", "specialization", "keywords",
           "seniority", "difficulty", "locale", "body", *OPTION_KEYS, "correct", "explanation")
REQUIRED = ("topic", "seniority", "difficulty", "locale", "body", "a", "b", "correct",
            "explanation", "field")
# Columns a flag can stand in for: --field KEY, --level LEVEL.
REPLACEABLE = {"field": "--field", "seniority": "--level"}
MAX_ROWS = 50_000
# One cell may hold a long explanation with code, not a whole file.
MAX_CELL = 100_000  # under the csv module's own 131,072 limit


# A spreadsheet runs a cell that starts with one of these as a formula (CSV injection). Export
# writes such a cell with a leading `'`, which spreadsheets show as text; import takes it off.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
TEXT_MARK = "'"


def guard_formula(cell: str) -> str:
    """`cell` as a spreadsheet will not run it; a cell already starting with marks before a
    formula character gets one more, so that `unguard_formula` gives back exactly `cell`."""
    return TEXT_MARK + cell if cell.lstrip(TEXT_MARK).startswith(FORMULA_STARTS) else cell


def unguard_formula(cell: str) -> str:
    """The reverse of `guard_formula`; a cell without the mark is left as it is."""
    guarded = cell.startswith(TEXT_MARK) and cell.lstrip(TEXT_MARK).startswith(FORMULA_STARTS)
    return cell[1:] if guarded else cell


class CsvError(ValueError):
    """The file as a whole cannot be read as CSV (the message says why and where)."""


def header_problems(header: list[str], replaced: set[str]) -> list[str]:
    problems = []
    seen: set[str] = set()
    for name in header:
        if name in seen:
            problems.append(f"column {name!r} appears twice")
        seen.add(name)
        if name not in COLUMNS:
            problems.append(f"unknown column {name!r} (columns: {', '.join(COLUMNS)})")
    missing = [name for name in REQUIRED if name not in seen and name not in replaced]
    for name in missing:
        flag = f" (or give {REPLACEABLE[name]})" if name in REPLACEABLE else ""
        problems.append(f"missing column {name!r}{flag}")
    return problems


def delimiter_of(first_line: str) -> str:
    """Comma or semicolon (spreadsheets in Turkish and other locales export `;`)."""
    return ";" if first_line.count(";") > first_line.count(",") else ","


class Table:
    """A CSV text as its header and its rows; rows are read lazily and may raise CsvError."""

    def __init__(self, text: str) -> None:
        text = text.removeprefix("\ufeff")
        first_line = text.split("\n", 1)[0]
        self._reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter_of(first_line))
        self.row_number = 1
        cells = self._next()
        if cells is None:
            raise CsvError("the file is empty (expected a header row)")
        self.header = [cell.strip().lower() for cell in cells]

    def _next(self) -> list[str] | None:
        try:
            return next(self._reader, None)
        except csv.Error as exc:
            if "field limit" in str(exc):
                raise CsvError(f"row {self.row_number + 1}: a cell is longer than "
                               f"{MAX_CELL:,} characters (an unclosed quote?)") from None
            raise CsvError(f"row {self.row_number + 1}: not valid CSV ({exc})") from None

    def rows(self) -> Iterator[tuple[int, dict[str, str]]]:
        """(spreadsheet row number, {column: cell}) for each non-blank row.

        The header is row 1, as in a spreadsheet, so a row number finds the row even when cells
        span several lines. CRLF inside cells becomes LF; text is otherwise kept as it is.
        """
        header = self.header
        while (cells := self._next()) is not None:
            self.row_number += 1
            number = self.row_number
            if number - 1 > MAX_ROWS:
                raise CsvError(f"more than {MAX_ROWS:,} rows: split the file")
            if not any(cell.strip() for cell in cells):
                continue
            if any(c.strip() for c in cells[len(header):]):
                raise CsvError(f"row {number}: {len(cells)} cells but the header has "
                               f"{len(header)} (a separator inside an unquoted cell?)")
            if any(len(cell) > MAX_CELL for cell in cells):
                raise CsvError(f"row {number}: a cell is longer than {MAX_CELL:,} characters")
            yield number, {name: _clean(unguard_formula(cells[i])) if i < len(cells) else ""
                           for i, name in enumerate(header)}


def _clean(cell: str) -> str:
    return cell.replace("\r\n", "\n").replace("\r", "\n")


def write_rows(rows: list[dict[str, str]], columns: list[str]) -> str:
    """CSV text (RFC 4180: CRLF line ends, quotes where needed) with a header row; a cell a
    spreadsheet would run as a formula is written with a leading `'`."""
    out = io.StringIO(newline="")
    writer = csv.DictWriter(out, fieldnames=columns, extrasaction="ignore")
    writer.writeheader()
    writer.writerows({name: guard_formula(value) if isinstance(value, str) else value
                      for name, value in row.items()} for row in rows)
    return out.getvalue()
