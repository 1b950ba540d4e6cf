"""Part 2: storage at 100,000 users and 10,000,000 answers (the coach branch's scale script)."""

from __future__ import annotations

import importlib.util

from bench.report import Result, not_available


def run(users: int, answers: int, runs: int) -> Result:
    if importlib.util.find_spec("bench.storage_scale") is None:
        return not_available("storage", "the storage-scale script (bench/storage_scale.py, "
                                        "from the coach work) is not on main")
    raise NotImplementedError
