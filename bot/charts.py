"""The /stats progress chart as a PNG: accuracy per week and answers per day, sized for a phone.

Matplotlib's object API (no pyplot, no global state) with the Agg canvas, so charts can render
in worker threads side by side; `render_in_thread` keeps them off the event loop. Matplotlib is
imported by the first chart, in its worker thread, not when the bot starts (it takes a second).
"""

from __future__ import annotations

import asyncio
import io
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import date

from domain.activity import Tally

WIDTH_PX, HEIGHT_PX, DPI = 800, 500, 100
RIGHT, WRONG, GRID = "#2e9d5b", "#d9534f", "#dddddd"
# Rendering is CPU-bound: at most two at once, so a burst of /stats cannot starve the machine.
_RENDERERS = ThreadPoolExecutor(max_workers=2, thread_name_prefix="chart")
_FIRST_IMPORT = threading.Lock()


@dataclass(frozen=True)
class ChartLabels:
    """Every word on the chart, in the user's language."""

    accuracy_title: str
    answers_title: str
    right: str
    wrong: str
    months: list[str]  # twelve short month names, January first


def _short(day: date, labels: ChartLabels) -> str:
    return f"{day.day} {labels.months[day.month - 1]}"


def render_progress(weeks: list[tuple[date, Tally]], days: list[tuple[date, Tally]],
                    labels: ChartLabels) -> bytes:
    """The chart as PNG bytes (800x500)."""
    with _FIRST_IMPORT:  # two first charts at once: one imports matplotlib, the other waits
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

    figure = Figure(figsize=(WIDTH_PX / DPI, HEIGHT_PX / DPI), dpi=DPI, layout="constrained")
    FigureCanvasAgg(figure)
    top, bottom = figure.subplots(2, 1, height_ratios=(1, 1))

    accuracy = [t.accuracy * 100 if t.accuracy is not None else None for _, t in weeks]
    xs = range(len(weeks))
    top.bar(xs, [a or 0 for a in accuracy], color=RIGHT, width=0.7)
    for x, value in zip(xs, accuracy, strict=True):
        if value is not None:
            top.annotate(f"{value:.0f}%", (x, value), ha="center", va="bottom", fontsize=10,
                         xytext=(0, 2), textcoords="offset points")
    top.set_ylim(0, 115)
    top.set_yticks([0, 50, 100], ["0%", "50%", "100%"])
    # Every other week is labelled (by its Monday), ending with this week.
    top.set_xticks(list(xs), [_short(d, labels) if i % 2 == (len(weeks) - 1) % 2 else ""
                              for i, (d, _) in enumerate(weeks)], fontsize=9)
    top.set_title(labels.accuracy_title, fontsize=13, loc="left")

    xd = range(len(days))
    right = [t.correct for _, t in days]
    wrong = [t.answered - t.correct for _, t in days]
    bottom.bar(xd, right, color=RIGHT, width=0.8, label=labels.right)
    bottom.bar(xd, wrong, bottom=right, color=WRONG, width=0.8, label=labels.wrong)
    bottom.set_xticks([i for i in xd if i % 5 == (len(days) - 1) % 5],
                      [_short(d, labels) for i, (d, _) in enumerate(days)
                       if i % 5 == (len(days) - 1) % 5], fontsize=9)
    bottom.yaxis.get_major_locator().set_params(integer=True)
    bottom.set_title(labels.answers_title, fontsize=13, loc="left")
    bottom.legend(loc="upper left", fontsize=9, frameon=False)

    for axes in (top, bottom):
        axes.spines[["top", "right"]].set_visible(False)
        axes.grid(axis="y", color=GRID, linewidth=0.8)
        axes.set_axisbelow(True)
        axes.tick_params(labelsize=10)
    out = io.BytesIO()
    figure.savefig(out, format="png", dpi=DPI)
    return out.getvalue()


async def render_in_thread(weeks: list[tuple[date, Tally]], days: list[tuple[date, Tally]],
                           labels: ChartLabels) -> bytes:
    """render_progress in a worker thread, so other users' taps never wait for a chart."""
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(_RENDERERS, render_progress, weeks, days, labels)
