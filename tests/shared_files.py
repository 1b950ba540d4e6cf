"""Finds files in the team's `shared/` folder (beside the clone in CI), the way the emulator finds
the Bot API spec: walking up from the working folder and from this file."""

from __future__ import annotations

from pathlib import Path

import pytest

CATALOG_SAMPLE = Path("shared") / "seed" / "catalog-page.ml-engineer.tr.json"


def find_shared(relative: Path) -> Path | None:
    for start in (Path.cwd(), Path(__file__).resolve().parent):
        for folder in (start, *start.parents):
            for candidate in (folder / relative, folder.parent / relative):
                if candidate.is_file():
                    return candidate.resolve()
    return None


def catalog_sample() -> Path:
    """The platform's sample catalog page, or a visible skip when shared/ is not there."""
    path = find_shared(CATALOG_SAMPLE)
    if path is None:
        pytest.skip(f"{CATALOG_SAMPLE} not found beside or above the clone (CI has it)")
    return path
