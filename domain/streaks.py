"""Daily streaks: consecutive local days with at least one answer, in the user's time zone."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

MILESTONES = (3, 7, 30, 100)


def default_timezone(language: str | None) -> str:
    """Until a user sets one: Turkish speakers get Istanbul, everyone else UTC."""
    return "Europe/Istanbul" if language == "tr" else "UTC"


def zone(name: str | None, language: str | None = None) -> ZoneInfo:
    try:
        return ZoneInfo(name or default_timezone(language))
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def local_day(moment: datetime, tz: ZoneInfo) -> date:
    return moment.astimezone(tz).date()


def advance(last_day: date | None, current: int, best: int, today: date) -> tuple[int, int]:
    """The streak after an answer on `today` (answers on the same day do not add)."""
    if last_day == today:
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
