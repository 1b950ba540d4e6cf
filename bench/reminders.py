"""Part 4: 100,000 reminders due in the same minute: due query, memory, drain rate."""

from __future__ import annotations

import importlib.util

from bench.report import Result, not_available


def run(count: int, runs: int, quick: bool = False) -> Result:
    if importlib.util.find_spec("storage.reminders") is None:
        return not_available("reminders", "reminders (storage/reminders.py) are not on main")
    raise NotImplementedError
