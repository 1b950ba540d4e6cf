"""Finds files in the team's `shared/` folder (beside the clone in CI, or above a worktree) by
walking up from the working folder and from this file, for the tests only: fake_telegram itself
never searches, so the tests hand it the Bot API spec they found (API_SPEC)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

CATALOG_SAMPLE = Path("shared") / "seed" / "catalog-page.ml-engineer.tr.json"
SPEC = Path("shared") / "telegram-bot-api" / "api.json"


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


def _api_spec() -> Path | None:
    env = os.environ.get("TELEGRAM_API_SPEC")
    if env:
        return Path(env).expanduser().resolve() if Path(env).expanduser().is_file() else None
    return find_shared(SPEC)


# The Bot API spec for FakeTelegram(spec_path=API_SPEC): $TELEGRAM_API_SPEC, else
# shared/telegram-bot-api/api.json beside or above the clone; None without it.
API_SPEC = _api_spec()
