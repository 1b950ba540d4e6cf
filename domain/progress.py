"""Progress arithmetic: percentages and the weakest topics."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Protocol, TypeVar


class Total(Protocol):
    @property
    def answered(self) -> int: ...

    @property
    def correct(self) -> int: ...


def percent(part: int, whole: int) -> int:
    return round(100 * part / whole) if whole else 0


T = TypeVar("T", bound=Total)


def weakest(totals: Iterable[T], *, known: Callable[[T], bool] = lambda t: True,
                      limit: int = 3, min_answered: int = 2) -> list[T]:
    """Topics with enough answers, lowest accuracy first (more answers break ties)."""
    rows = [t for t in totals if t.answered >= min_answered and t.correct < t.answered and known(t)]
    rows.sort(key=lambda t: (t.correct / t.answered, -t.answered))
    return rows[:limit]


def bar(part: int, whole: int, width: int = 5) -> str:
    """A small text bar for a share, e.g. `▰▰▰▱▱` for 62%."""
    filled = int(width * part / whole + 0.5) if whole else 0  # half up: 50% is ▰▰▰▱▱
    return "▰" * filled + "▱" * (width - filled)


def weakest_first(totals: Iterable[T]) -> list[T]:
    """Every topic, lowest accuracy first (more answers break ties); unanswered topics last."""
    return sorted(totals, key=lambda t: (t.answered == 0,
                                         t.correct / t.answered if t.answered else 0.0,
                                         -t.answered))
