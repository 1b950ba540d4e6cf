"""Blind review of question packs: a keyless sheet for the reviewer, and a comparison of their
answers with the keys (shared/question-authoring.md, "Checking").

    python -m questions.review sheet questions/bank/backend/caching.yaml > sheet.md
    python -m questions.review compare questions/bank/backend/caching.yaml --answers a.yaml
    python -m questions.review balance questions/bank/backend

The sheet holds each question's body and options in English and Turkish, with its level and
difficulty, and no key and no explanation. The answers file maps question ids to the option the
reviewer picked: `backend-caching-001: c` (or `{answer: c, note: "..."}`).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import yaml

from questions.loader import read_pack
from questions.model import Question, names_an_option_letter


def _questions(paths: list[Path]) -> list[Question]:
    found: list[Question] = []
    for path in paths:
        files = sorted(path.glob("*.yaml")) if path.is_dir() else [path]
        for file in files:
            problems: list[str] = []
            pack = read_pack(file, file.parent, problems)
            if problems or pack is None:
                raise SystemExit("\n".join(problems) or f"{file}: unreadable")
            found.extend(pack.questions)
    return found


def sheet(questions: list[Question], languages: tuple[str, ...] = ("en", "tr")) -> str:
    """Markdown with every question and its options, and neither key nor explanation."""
    lines: list[str] = []
    for q in questions:
        lines.append(f"## {q.id} ({q.seniority}, difficulty {q.difficulty})")
        for lang in languages:
            text = getattr(q, lang)
            if text is None:
                continue
            lines.append(f"[{lang}] {text.body}")
            lines.extend(f"  {key}) {option}" for key, option in text.options.items())
        lines.append("")
    return "\n".join(lines)


def compare(questions: list[Question], answers: dict[str, object]) -> tuple[list[str], list[str]]:
    """(disagreements, ids the reviewer did not answer)."""
    disagreements, missing = [], []
    for q in questions:
        given = answers.get(q.id)
        if isinstance(given, dict):
            given = given.get("answer")
        if given is None:
            missing.append(q.id)
        elif str(given).strip().lower() != q.correct:
            disagreements.append(f"{q.id}: reviewer {given}, key {q.correct}")
    return disagreements, missing


def balance(questions: list[Question]) -> list[str]:
    """The authoring guide's spread checks for a set of packs, as lines to print."""
    total = len(questions) or 1
    lines = [f"{len(questions)} questions"]
    levels = Counter(q.seniority for q in questions)
    lines.append("levels: " + ", ".join(f"{lv} {levels[lv]}" for lv in ("junior", "mid", "senior")))
    topics = Counter(q.topic for q in questions)
    lines.append("topics: " + ", ".join(f"{t} {n}" for t, n in sorted(topics.items())))
    keys = Counter(q.correct for q in questions)
    lines.append("keys: " + ", ".join(f"{k} {keys[k] / total:.0%}" for k in "abcd"))
    for lang in ("en", "tr"):
        longest = sum(_right_is_longest(q, lang) for q in questions)
        lines.append(f"right option strictly longest ({lang}): {longest / total:.0%}")
    for q in questions:
        for lang in ("en", "tr"):
            text = getattr(q, lang)
            if text is not None and names_an_option_letter(text.explanation):
                lines.append(f"{q.id} {lang}: explanation names an option by its letter")
    return lines


def _right_is_longest(q: Question, lang: str) -> bool:
    text = getattr(q, lang)
    if text is None:
        return False
    lengths = {k: len(v) for k, v in text.options.items()}
    top = max(lengths.values())
    return lengths[q.correct] == top and list(lengths.values()).count(top) == 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m questions.review", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p_sheet = sub.add_parser("sheet", help="print a keyless review sheet")
    p_sheet.add_argument("packs", nargs="+", help="pack files or folders of packs")
    p_sheet.add_argument("--lang", choices=("en", "tr"), help="one language only")
    p_bal = sub.add_parser("balance", help="key spread, longest-right share, letter references")
    p_bal.add_argument("packs", nargs="+", help="pack files or folders of packs")
    p_cmp = sub.add_parser("compare", help="compare a reviewer's answers with the keys")
    p_cmp.add_argument("packs", nargs="+", help="pack files or folders of packs")
    p_cmp.add_argument("--answers", required=True, help="YAML: question id -> chosen option")
    args = parser.parse_args(argv)
    questions = _questions([Path(p) for p in args.packs])
    if args.command == "balance":
        print("\n".join(balance(questions)))
        return 0
    if args.command == "sheet":
        print(sheet(questions, (args.lang,) if args.lang else ("en", "tr")))
        return 0
    answers = yaml.safe_load(Path(args.answers).read_text(encoding="utf-8")) or {}
    disagreements, missing = compare(questions, answers)
    for line in disagreements:
        print(line)
    for qid in missing:
        print(f"{qid}: not answered")
    agreed = len(questions) - len(disagreements) - len(missing)
    print(f"{agreed}/{len(questions)} agree, {len(disagreements)} disagree, "
          f"{len(missing)} unanswered", file=sys.stderr)
    return 1 if disagreements or missing else 0


if __name__ == "__main__":
    raise SystemExit(main())
