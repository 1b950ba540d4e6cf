"""Question files for import tests: CSV rows and bytes, and a folder snapshot to prove that
nothing changed."""

from __future__ import annotations

import csv
import io
from pathlib import Path

HEADER = ["id", "field", "topic", "topic_name", "seniority", "difficulty", "locale", "body",
          "a", "b", "c", "d", "correct", "explanation"]


def row(qid="be-cache-001", locale="en", **cells) -> dict[str, str]:
    values = {"id": qid, "field": "backend", "topic": "caching", "topic_name": "Caching",
              "seniority": "mid", "difficulty": "2", "locale": locale,
              "body": f"[{locale}] Which header lets a CDN serve a stale copy?",
              "a": "ETag", "b": "stale-while-revalidate", "c": "Vary", "d": "Expires",
              "correct": "b", "explanation": f"[{locale}] It allows serving stale content."}
    values.update(cells)
    return values


def csv_bytes(rows: list[dict[str, str]], header: list[str] = HEADER, *, delimiter=",",
              lineterminator="\r\n", bom=False) -> bytes:
    out = io.StringIO(newline="")
    writer = csv.DictWriter(out, fieldnames=header, delimiter=delimiter,
                            lineterminator=lineterminator, extrasaction="ignore")
    writer.writeheader()
    writer.writerows(rows)
    return (("\ufeff" if bom else "") + out.getvalue()).encode()


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` with its content (temporary files included)."""
    if not folder.exists():
        return {}
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


def dump(bank) -> dict:
    """A bank as plain data, to compare two banks."""
    return {
        "questions": {qid: q.model_dump() for qid, q in bank.questions.items()},
        "fields": {k: (f.name, {t: (v.name, v.specialization, v.keywords, v.question_ids)
                                for t, v in f.topics.items()}) for k, f in bank.fields.items()},
    }
