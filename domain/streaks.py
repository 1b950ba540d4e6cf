"""Daily streaks: consecutive local days with at least one answer, in the user's time zone."""

from __future__ import annotations

from datetime import date, datetime, timedelta, tzinfo

# Time zones live in domain.timezones; re-exported because streak callers use them.
from domain.timezones import default_timezone, zone

__all__ = ["MILESTONES", "advance", "current", "default_timezone", "local_day",
           "milestone_reached", "zone"]

MILESTONES = (3, 7, 30, 100)


def local_day(moment: datetime, tz: tzinfo) -> date:
    return moment.astimezone(tz).date()


def advance(last_day: date | None, current: int, best: int, today: date) -> tuple[int, int]:
    """The streak after an answer on `today` (answers on the same day do not add).

    A last day after `today` means the user moved to a zone behind the old one: still the
    same stretch of practice, so it counts as today rather than breaking the streak.
    """
    if last_day is not None and last_day >= today:
        new = max(current, 1)
    elif last_day == today - timedelta(days=1):
        new = current + 1
    else:
        new = 1
    return new, max(best, new)


def current(last_day: date | None, streak: int, today: date) -> int:
    """The streak as of `today`: still alive if the last answer was today or yesterday."""
    if last_day is None:
        return 0
    return streak if last_day >= today - timedelta(days=1) else 0


def milestone_reached(before: int, after: int) -> int | None:
    """The milestone crossed by this answer, if any (once: only when the count changed)."""
    if after != before and after in MILESTONES:
        return after
    return None
