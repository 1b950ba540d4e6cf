"""The README stays short, and every relative link in it and in docs/ leads somewhere real."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import pytest

from bot.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
README_LIMIT = 15_000  # bytes: what a newcomer reads in five minutes; the rest goes to docs/

FENCE = re.compile(r"^(```|~~~)")
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
CODE_SPAN = re.compile(r"`[^`]*`")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")


def prose_lines(text: str) -> list[str]:
    """The lines outside fenced code blocks, with inline code removed."""
    lines, in_fence = [], False
    for line in text.splitlines():
        if FENCE.match(line.strip()):
            in_fence = not in_fence
            continue
        if not in_fence:
            lines.append(line)
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps only its text
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    found: set[str] = set()
    counts: dict[str, int] = {}
    for line in prose_lines(path.read_text(encoding="utf-8")):
        match = HEADING.match(line)
        if match:
            base = slug(match.group(1))
            n = counts.get(base, 0)
            counts[base] = n + 1
            found.add(base if n == 0 else f"{base}-{n}")
    return found


def relative_links(path: Path) -> list[str]:
    links = []
    for line in prose_lines(path.read_text(encoding="utf-8")):
        for match in LINK.finditer(CODE_SPAN.sub("", line)):
            target = match.group(1)
            if not re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE):  # http:, mailto:...
                links.append(target)
    return links


def test_readme_is_short():
    size = len(README.read_bytes())
    assert size < README_LIMIT, (
        f"README.md is {size} bytes (limit {README_LIMIT}): move detail to docs/ and link it"
    )


@pytest.mark.parametrize("path", [README, *DOCS], ids=lambda p: p.relative_to(ROOT).as_posix())
def test_relative_links_resolve(path: Path):
    broken = []
    for target in relative_links(path):
        file_part, _, anchor = target.partition("#")
        dest = (path.parent / unquote(file_part)).resolve() if file_part else path
        if not dest.exists():
            broken.append(f"{target}: no such file")
        elif anchor and dest.suffix == ".md" and unquote(anchor) not in anchors(dest):
            broken.append(f"{target}: no heading with that anchor in {dest.name}")
    assert not broken, f"{path.name}: " + "; ".join(broken)


def test_readme_links_every_docs_file():
    linked = {(README.parent / t.partition("#")[0]).resolve() for t in relative_links(README)}
    missing = [p.name for p in DOCS if p.resolve() not in linked]
    assert not missing, f"link from the README's Read on list: {missing}"


def test_operations_doc_lists_every_setting():
    text = (ROOT / "docs" / "operations.md").read_text(encoding="utf-8")
    missing = [name.upper() for name in Settings.model_fields if f"`{name.upper()}`" not in text]
    assert not missing, f"add to the settings table in docs/operations.md: {missing}"


def test_slug_matches_github():
    assert (
        slug("Playground: try the bot without Telegram")
        == "playground-try-the-bot-without-telegram"
    )
    assert slug("Job-ad match (`/jd`, `/plan`)") == "job-ad-match-jd-plan"
    assert slug("Measured outside `make bench`") == "measured-outside-make-bench"
