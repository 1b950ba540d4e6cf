"""Daily reminders: reading `/remind` arguments, local times across DST changes, and deciding
which day's reminder goes out when (once, late after downtime, or not at all)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo

from domain.numbers import parse_number

# A reminder found this late (the bot was down, or a huge burst) is skipped for that day.
LATE_LIMIT = timedelta(hours=2)
EVERY_DAY = 0b1111111  # bit 0 = Monday ... bit 6 = Sunday
OFF = "off"

_TIME = re.compile(r"^([0-9]{1,2})[:.]([0-9]{2})$")  # ASCII digits only: see domain.numbers
_OFF_WORDS = {"off", "stop", "none", "kapat", "kapalı", "kapali"}
_ALWAYS_WORDS = {"always", "her-zaman", "herzaman"}
_DAY_NAMES = {
    0: ("mo", "mon", "monday", "pzt", "pts", "pazartesi"),
    1: ("tu", "tue", "tues", "tuesday", "sal", "salı", "sali"),
    2: ("we", "wed", "weds", "wednesday", "çar", "car", "çarşamba", "carsamba"),
    3: ("th", "thu", "thur", "thurs", "thursday", "per", "perşembe", "persembe"),
    4: ("fr", "fri", "friday", "cum", "cuma"),
    5: ("sa", "sat", "saturday", "cmt", "cts", "cumartesi"),
    6: ("su", "sun", "sunday", "paz", "pazar"),
}
_DAYS = {name: day for day, names in _DAY_NAMES.items() for name in names}
_DAY_SETS = {
    "daily": EVERY_DAY, "everyday": EVERY_DAY, "every-day": EVERY_DAY,
    "her-gün": EVERY_DAY, "hergün": EVERY_DAY, "her-gun": EVERY_DAY, "hergun": EVERY_DAY,
    "weekdays": 0b0011111, "workdays": 0b0011111, "hafta-içi": 0b0011111,
    "haftaiçi": 0b0011111, "hafta-ici": 0b0011111, "haftaici": 0b0011111,
    "weekend": 0b1100000, "weekends": 0b1100000, "hafta-sonu": 0b1100000,
    "haftasonu": 0b1100000,
}
# Two-word choices, as the bot prints them ("her gün", "hafta içi"): read as one word.
_PHRASES = re.compile(r"\b(every|her|hafta)\s+(day|gün|gun|zaman|içi|ici|sonu)\b")


def _words(args: list[str]) -> list[str]:
    """Arguments as lower-case words, two-word choices joined and the bot's "–" read as "-"."""
    text = " ".join(args).replace("İ", "i")  # Python lowers "İ" to "i" and a combining dot
    text = _PHRASES.sub(r"\1-\2", text.lower().replace("–", "-"))
    return text.split()


@dataclass(frozen=True)
class Schedule:
    """When a user wants to be reminded, in their own local time."""

    minute: int                 # local time of day, minutes after midnight
    weekdays: int = EVERY_DAY   # bit 0 = Monday
    always: bool = False        # True: remind even on a day the user already practised

    @property
    def hhmm(self) -> str:
        return f"{self.minute // 60:02d}:{self.minute % 60:02d}"

    def on(self, day: date) -> bool:
        return bool(self.weekdays >> day.weekday() & 1)


def parse_time(text: str) -> int | None:
    """`9:30`, `09:30`, `21.05` -> minutes after midnight; None for anything else."""
    match = _TIME.match(text.strip())
    if not match:
        return None
    hours, minutes = parse_number(match.group(1)), parse_number(match.group(2))
    if hours is None or minutes is None or hours > 23 or minutes > 59:
        return None
    return hours * 60 + minutes


def parse_weekdays(text: str) -> int | None:
    """`mon-fri`, `sat,sun`, `weekdays`, `pzt-cum` -> a weekday mask; None if unreadable."""
    mask = 0
    for part in filter(None, re.split(r"[,\s]+", text.strip().lower())):
        if part in _DAY_SETS:
            mask |= _DAY_SETS[part]
            continue
        ends = part.split("-")
        if len(ends) == 1 and part in _DAYS:
            mask |= 1 << _DAYS[part]
        elif len(ends) == 2 and ends[0] in _DAYS and ends[1] in _DAYS:
            day, last = _DAYS[ends[0]], _DAYS[ends[1]]
            mask |= 1 << day
            while day != last:  # ranges may wrap: fri-mon
                day = (day + 1) % 7
                mask |= 1 << day
        else:
            return None
    return mask or None


def parse_request(args: list[str]) -> Schedule | str | None:
    """`/remind` arguments -> a Schedule, OFF, or None when they do not make sense."""
    words = _words(args)
    if len(words) == 1 and words[0] in _OFF_WORDS:
        return OFF
    minute = None
    always = False
    rest = []
    for word in words:
        if minute is None and parse_time(word) is not None:
            minute = parse_time(word)
        elif word in _ALWAYS_WORDS:
            always = True
        else:
            rest.append(word)
    if minute is None:
        return None
    weekdays = parse_weekdays(",".join(rest)) if rest else EVERY_DAY
    if weekdays is None:
        return None
    return Schedule(minute, weekdays, always)


def weekday_runs(mask: int) -> list[tuple[int, int]]:
    """Consecutive runs of set weekdays, Monday first: mon-fri -> [(0, 4)]."""
    runs: list[tuple[int, int]] = []
    for day in range(7):
        if mask >> day & 1:
            if runs and runs[-1][1] == day - 1:
                runs[-1] = (runs[-1][0], day)
            else:
                runs.append((day, day))
    return runs


def local_occurrence(day: date, minute: int, tz: tzinfo) -> datetime:
    """The UTC instant of `minute` on the local `day`.

    A time skipped by a DST change (02:30 when clocks jump 02:00 -> 03:00) moves to the next
    minute that exists; a time that happens twice (clocks go back) is the first of the two.
    """
    wall = datetime.combine(day, time(minute // 60, minute % 60))
    for _ in range(24 * 60):
        moment = wall.replace(tzinfo=tz, fold=0)
        instant = moment.astimezone(UTC)
        if instant.astimezone(tz).replace(tzinfo=None) == wall:
            return instant
        wall += timedelta(minutes=1)
    raise ValueError(f"no valid local time after {day} {minute} in {tz}")  # pragma: no cover


def next_occurrence(after: datetime, schedule: Schedule, tz: tzinfo, *,
                    sent_day: date | None = None) -> tuple[date, datetime]:
    """The first reminder strictly after `after` on an enabled day later than `sent_day`."""
    day = after.astimezone(tz).date() - timedelta(days=1)
    for _ in range(16):
        if schedule.on(day) and (sent_day is None or day > sent_day):
            instant = local_occurrence(day, schedule.minute, tz)
            if instant > after:
                return day, instant
        day += timedelta(days=1)
    raise ValueError(f"no reminder day in {schedule!r}")


@dataclass(frozen=True)
class Decision:
    """What to do with a due reminder, and when the next one is."""

    send: bool
    reason: str          # send | not-yet | sent-already | late | practised
    sent_day: date | None  # the last local day a reminder went out, after this decision
    next_day: date
    next_due: datetime


def settle(schedule: Schedule, tz: tzinfo, *, due_day: date, now: datetime,
           sent_day: date | None, active_day: date | None) -> Decision:
    """Decide the reminder for the local `due_day`, found due at `now`.

    The instant is recomputed from the day in the zone in force now, so a changed zone (or
    changed tz rules) moves it instead of firing at the old hour.
    """
    due = local_occurrence(due_day, schedule.minute, tz)
    if due > now:
        return Decision(False, "not-yet", sent_day, due_day, due)
    if sent_day is not None and sent_day >= due_day:
        reason = "sent-already"
    elif now - due > LATE_LIMIT:
        reason = "late"
    elif not schedule.always and active_day is not None and active_day >= due_day:
        reason = "practised"
    else:
        reason = "send"
    send = reason == "send"
    new_sent = due_day if send else sent_day
    # After a long downtime, skip straight to the first reminder that is not too late.
    next_day, next_due = next_occurrence(max(due, now - LATE_LIMIT), schedule, tz,
                                         sent_day=new_sent)
    return Decision(send, reason, new_sent, next_day, next_due)
