"""Time zones as users type them (IANA names in any case, UTC offsets), close suggestions, defaults.

A stored zone is an IANA name (`Europe/Istanbul`) or a fixed offset written `UTC+03:00`.
"""

from __future__ import annotations

import difflib
import re
from datetime import timedelta, timezone, tzinfo
from functools import lru_cache
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

import yaml

from domain.numbers import parse_number

# The /timezone keyboard: one or two zones for each region most users live in.
COMMON = ("UTC", "Europe/London", "Europe/Berlin", "Europe/Istanbul", "Europe/Moscow",
          "Asia/Dubai", "Asia/Kolkata", "Asia/Singapore", "Asia/Tokyo", "Australia/Sydney",
          "America/New_York", "America/Chicago", "America/Los_Angeles", "America/Sao_Paulo")

_OFFSET = re.compile(r"^(?:utc|gmt)?\s*([+-])\s*([0-9]{1,2})(?::?([0-9]{2}))?$")
_NOT_ZONES = {"localtime", "posixrules", "factory"}


@lru_cache(maxsize=1)
def _names() -> dict[str, str]:
    """Every IANA name tzdata knows, by its lower-case form."""
    return {name.lower(): name for name in available_timezones()
            if name.lower() not in _NOT_ZONES}


@lru_cache(maxsize=1)
def _links() -> dict[str, str]:
    """Alias -> canonical name (`Asia/Istanbul` -> `Europe/Istanbul`), from tzdata's links."""
    path = Path(__file__).with_name("timezone_links.yaml")
    return yaml.safe_load(path.read_text(encoding="utf-8")) or {}


def canonical(name: str) -> str:
    """The canonical IANA name for a zone name that is only a link (an old or alias name)."""
    return _links().get(name, name)


def default_timezone(language: str | None) -> str:
    """Until a user sets one: Turkish speakers get Istanbul, everyone else UTC."""
    return "Europe/Istanbul" if language == "tr" else "UTC"


def offset_name(minutes: int) -> str:
    if minutes == 0:
        return "UTC"
    sign = "+" if minutes > 0 else "-"
    hours, mins = divmod(abs(minutes), 60)
    return f"UTC{sign}{hours:02d}:{mins:02d}"


def _offset_minutes(text: str) -> int | None:
    match = _OFFSET.match(text)
    if not match:
        return None
    sign = match.group(1)
    hours, mins = parse_number(match.group(2)), parse_number(match.group(3) or "0")
    if hours is None or mins is None:
        return None
    total = hours * 60 + mins
    if mins >= 60 or total > 14 * 60:
        return None
    return total if sign == "+" else -total


def parse(text: str) -> str | None:
    """The stored form of what the user typed, or None when it is no zone we know.

    `europe/istanbul`, `New York`, `istanbul` (a city that names one zone), `UTC+3`, `+03:00`.
    """
    cleaned = text.strip()
    lowered = re.sub(r"\s+", "_", cleaned.lower())
    if not lowered or len(lowered) > 64:
        return None
    if lowered in ("utc", "gmt", "z"):
        return "UTC"
    minutes = _offset_minutes(lowered.replace("_", ""))
    if minutes is not None:
        return offset_name(minutes)
    names = _names()
    if lowered in names:
        return canonical(names[lowered])
    # A city an alias names (Kiev, Calcutta) stands for its canonical zone.
    cities = list(dict.fromkeys(canonical(name) for key, name in names.items()
                                if key.rsplit("/", 1)[-1] == lowered
                                and "/" in key and not key.startswith("etc/")))
    common = [name for name in cities if name in COMMON]  # Istanbul is in Europe and in Asia
    if len(common) == 1:
        return common[0]
    return cities[0] if len(cities) == 1 else None


def suggestions(text: str, limit: int = 3) -> list[str]:
    """A few canonical zone names close to a misspelt one (`Istambul` -> `Europe/Istanbul`,
    never its alias `Asia/Istanbul`)."""
    lowered = re.sub(r"\s+", "_", text.strip().lower())[:64]
    if not lowered:
        return []
    names, links = _names(), _links()
    regional = {key: name for key, name in names.items() if "/" in key and name not in links
                and not key.startswith(("etc/", "systemv/"))}
    by_city: dict[str, list[str]] = {}
    for key, name in names.items():  # an alias's city (Calcutta) suggests its canonical zone
        if "/" in key and not key.startswith(("etc/", "systemv/")):
            by_city.setdefault(key.rsplit("/", 1)[-1], []).append(canonical(name))
    found: list[str] = []
    for key in difflib.get_close_matches(lowered, list(regional), n=limit, cutoff=0.6):
        found.append(regional[key])
    city = lowered.rsplit("/", 1)[-1]
    for key in difflib.get_close_matches(city, list(by_city), n=limit, cutoff=0.6):
        found.extend(sorted(set(by_city[key])))
    unique = list(dict.fromkeys(found))
    return unique[:limit]


def zone(name: str | None, language: str | None = None) -> tzinfo:
    """The tzinfo for a stored zone, the language's default when unset, UTC when unreadable."""
    name = name or default_timezone(language)
    if name.startswith("UTC") and len(name) > 3:
        minutes = _offset_minutes(name.lower())
        if minutes is not None:
            return timezone(timedelta(minutes=minutes), name)
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def effective_name(name: str | None, language: str | None) -> str:
    """The zone that is in force: the user's, else the default for their language."""
    return name or default_timezone(language)
