"""The /stats progress chart as a PNG: accuracy per week and answers per day, sized for a phone.

Matplotlib's object API (no pyplot, no global state) with the Agg canvas. `render_in_process`
draws charts in a separate process: drawing is CPU-bound Python and C that holds the GIL, and in
worker threads 20 users' /stats at once pushed other users' taps to 400 ms (`make bench ARGS=
"--part charts"`). The process starts with the first chart (spawned, not forked from a bot with
threads) and imports matplotlib there, so the bot itself never loads it; one process leaves the
other core to the event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import multiprocessing
import os
import threading
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from datetime import date

from domain.activity import Tally

WIDTH_PX, HEIGHT_PX, DPI = 800, 500, 100
RIGHT, WRONG, GRID = "#2e9d5b", "#d9534f", "#dddddd"
log = logging.getLogger(__name__)
# Where charts are drawn if the process cannot be used (it died, or processes are not allowed).
_RENDERERS = ThreadPoolExecutor(max_workers=1, thread_name_prefix="chart")
_FIRST_IMPORT = threading.Lock()
_PROCESS: list[ProcessPoolExecutor] = []  # the chart process, once the first chart is asked for


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


def _background_priority() -> None:
    """In the chart process: a chart can wait; a tap's answer should not (a lower CPU priority
    lets the bot's own process run first when they compete for a core)."""
    with contextlib.suppress(OSError, AttributeError):  # not allowed, or not on this system
        os.nice(10)


def _chart_process() -> ProcessPoolExecutor:
    if not _PROCESS:
        _PROCESS.append(ProcessPoolExecutor(
            max_workers=1, mp_context=multiprocessing.get_context("spawn"),
            initializer=_background_priority))
    return _PROCESS[0]


async def render_in_process(weeks: list[tuple[date, Tally]], days: list[tuple[date, Tally]],
                            labels: ChartLabels) -> bytes:
    """render_progress in the chart process, so other users' taps never wait for a chart; in a
    worker thread if that process cannot run."""
    loop = asyncio.get_running_loop()
    try:
        return await loop.run_in_executor(_chart_process(), render_progress, weeks, days, labels)
    except (BrokenProcessPool, OSError) as exc:
        log.warning("chart process unavailable (%s): drawing in a thread", exc)
        stop_chart_process()
        return await loop.run_in_executor(_RENDERERS, render_progress, weeks, days, labels)


def stop_chart_process() -> None:
    """At shutdown (and after the process died): the next chart starts a new one."""
    while _PROCESS:
        _PROCESS.pop().shutdown(wait=False, cancel_futures=True)
