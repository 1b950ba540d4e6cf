"""Answers over time for the progress chart: tallies per local day, grouped into weeks.

Storage counts answers per local day (one indexed range query); this fills in the empty days
and weeks, so the chart has a bar for every day and a point for every week.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, timedelta

EPOCH = date(1970, 1, 1)
DAYS = 30
WEEKS = 12


@dataclass(frozen=True)
class Tally:
    answered: int = 0
    correct: int = 0

    def __add__(self, other: Tally) -> Tally:
        return Tally(self.answered + other.answered, self.correct + other.correct)

    @property
    def accuracy(self) -> float | None:
        return self.correct / self.answered if self.answered else None


def day_number(day: date) -> int:
    """Days since 1970-01-01, the unit SQLite groups local days by."""
    return (day - EPOCH).days


def from_day_number(number: int) -> date:
    return EPOCH + timedelta(days=number)


def week_start(day: date) -> date:
    return day - timedelta(days=day.weekday())  # Monday


def first_day(today: date, *, days: int = DAYS, weeks: int = WEEKS) -> date:
    """The earliest local day either chart needs."""
    return min(today - timedelta(days=days - 1), week_start(today) - timedelta(weeks=weeks - 1))


def daily(tallies: Mapping[date, Tally], today: date, count: int = DAYS) -> list[tuple[date, Tally]]:
    """The last `count` days, oldest first, empty days included."""
    start = today - timedelta(days=count - 1)
    return [(start + timedelta(days=i), tallies.get(start + timedelta(days=i), Tally()))
            for i in range(count)]


def weekly(tallies: Mapping[date, Tally], today: date,
           count: int = WEEKS) -> list[tuple[date, Tally]]:
    """The last `count` weeks (Monday to Sunday, this week last), by their Monday."""
    first = week_start(today) - timedelta(weeks=count - 1)
    weeks = {first + timedelta(weeks=i): Tally() for i in range(count)}
    for day, tally in tallies.items():
        monday = week_start(day)
        if monday in weeks:
            weeks[monday] = weeks[monday] + tally
    return list(weeks.items())
