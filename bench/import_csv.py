"""Times `python -m questions import` of a 30,000-row CSV (15,000 bilingual questions) into an
empty bank, then a re-import of the same file (nothing changes). Run: python -m bench.import_csv
"""

from __future__ import annotations

import argparse
import csv
import io
import random
import tempfile
import time
from pathlib import Path

from questions.importer import import_paths

HEADER = ["id", "field", "topic", "topic_name", "seniority", "difficulty", "locale", "body",
          "a", "b", "c", "d", "correct", "explanation"]
LEVELS = ("junior", "mid", "senior")


def sentence(rng: random.Random, words: int) -> str:
    vocabulary = ("cache", "index", "latency", "replica", "thread", "queue", "token", "request",
                  "istek", "önbellek", "değer", "sunucu", "bağlantı", "işlem", "commit", "lock")
    return " ".join(rng.choice(vocabulary) for _ in range(words)).capitalize()


def write_csv(path: Path, rows: int, *, fields: int = 12, topics: int = 10,
              seed: int = 1) -> None:
    """`rows` rows: rows/2 questions, each in en and tr, spread over fields × topics packs;
    sizes like the bundled bank (body ~300 characters, one in five with a code block)."""
    rng = random.Random(seed)
    out = io.StringIO(newline="")
    writer = csv.writer(out)
    writer.writerow(HEADER)
    for number in range(rows // 2):
        field, topic = f"field-{number % fields}", f"topic-{number // fields % topics}"
        level, correct = LEVELS[number % 3], "abcd"[rng.randrange(4)]
        code = "\n```python\nx = cache.get(key)\nif x is None:\n    x = load(key)\n```\n" \
            if number % 5 == 0 else ""
        for locale in ("en", "tr"):
            writer.writerow([
                f"{field}-{topic}-{number:06d}", field, topic, f"Topic {topic} ({locale})",
                level, 1 + number % 3, locale, sentence(rng, 40) + code + sentence(rng, 8) + "?",
                *(sentence(rng, 10) for _ in range(4)), correct, sentence(rng, 60) + ".",
            ])
    path.write_text(out.getvalue(), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=30_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        source, bank = Path(tmp) / "questions.csv", Path(tmp) / "bank"
        write_csv(source, args.rows)
        size = source.stat().st_size / 1024 / 1024
        wall, cpu = time.perf_counter(), time.process_time()
        result = import_paths([source], bank)
        first = time.perf_counter() - wall, time.process_time() - cpu
        assert result.ok, result.problems[:5]
        wall, cpu = time.perf_counter(), time.process_time()
        again = import_paths([source], bank)
        second = time.perf_counter() - wall, time.process_time() - cpu
        assert again.ok and not again.files, "a re-import changed something"
        print(f"{args.rows:,} rows ({size:.1f} MB, {result.count('added'):,} questions, "
              f"{len(result.files)} packs)\n"
              f"  import into an empty bank: {first[0]:.1f} s ({first[1]:.1f} s CPU)\n"
              f"  re-import, nothing changes: {second[0]:.1f} s ({second[1]:.1f} s CPU)")


if __name__ == "__main__":
    main()
