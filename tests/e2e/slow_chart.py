"""A chart renderer that takes 1.5 s, importable by the chart process (which cannot see a test's
monkeypatch or its objects): it marks a file when it starts drawing."""

from __future__ import annotations

import os
import time
from pathlib import Path

from bot import charts


def slow_render(*args):
    marker = os.environ.get("SLOW_CHART_MARKER")
    if marker:
        Path(marker).touch()
    time.sleep(1.5)
    return charts.render_progress(*args)
