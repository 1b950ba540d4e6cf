"""Reminder schedule arithmetic with an injected clock: zones, DST both ways, weekdays, the
already-practised rule, late delivery after downtime, and never two reminders for one day."""

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from domain import reminders, streaks, timezones
from domain.reminders import EVERY_DAY, OFF, Schedule

NEW_YORK = ZoneInfo("America/New_York")
BERLIN = ZoneInfo("Europe/Berlin")
ISTANBUL = ZoneInfo("Europe/Istanbul")


def utc(*args) -> datetime:
    return datetime(*args, tzinfo=UTC)


# --- reading /remind ---------------------------------------------------------------------

@pytest.mark.parametrize(("text", "minute"), [
    ("09:30", 570), ("9:30", 570), ("21:05", 1265), ("0:00", 0), ("23:59", 1439), ("7.15", 435),
    ("24:00", None), ("9:60", None), ("930", None), ("9:3", None), ("nine", None), ("", None),
])
def test_parse_time(text, minute):
    assert reminders.parse_time(text) == minute


def test_parse_request_reads_time_days_always_and_off():
    assert reminders.parse_request(["09:30"]) == Schedule(570)
    assert reminders.parse_request(["09:30", "mon-fri"]) == Schedule(570, 0b0011111)
    assert reminders.parse_request(["9:30", "always"]) == Schedule(570, EVERY_DAY, True)
    assert reminders.parse_request(["always", "9:30", "SAT,sun"]) == Schedule(570, 0b1100000, True)
    assert reminders.parse_request(["09:30", "sat,", "sun"]) == Schedule(570, 0b1100000)
    assert reminders.parse_request(["09:30", "fri-mon"]) == Schedule(570, 0b1110001)
    assert reminders.parse_request(["09:30", "pzt-cum"]) == Schedule(570, 0b0011111)
    assert reminders.parse_request(["09:30", "weekends"]) == Schedule(570, 0b1100000)
    assert reminders.parse_request(["OFF"]) == OFF
    for bad in (["25:00"], ["mon-fri"], ["09:30", "funday"], ["09:30", "mon-"], ["09:30", "off"],
                ["09:30", "10:30"], []):
        assert reminders.parse_request(bad) is None, bad


def test_weekday_runs_group_consecutive_days():
    assert reminders.weekday_runs(0b0011111) == [(0, 4)]
    assert reminders.weekday_runs(0b1010101) == [(0, 0), (2, 2), (4, 4), (6, 6)]
    assert reminders.weekday_runs(0b1100000) == [(5, 6)]


# --- time zones --------------------------------------------------------------------------

@pytest.mark.parametrize(("typed", "stored"), [
    ("Europe/Istanbul", "Europe/Istanbul"), ("europe/istanbul", "Europe/Istanbul"),
    ("AMERICA/NEW_YORK", "America/New_York"), ("America/New York", "America/New_York"),
    ("istanbul", "Europe/Istanbul"), ("UTC", "UTC"), ("gmt", "UTC"), ("UTC+3", "UTC+03:00"),
    ("+03:00", "UTC+03:00"), ("utc-5", "UTC-05:00"), ("UTC+5:30", "UTC+05:30"),
    ("+0545", "UTC+05:45"), ("UTC+0", "UTC"), ("Etc/GMT+3", "Etc/GMT+3"),
])
def test_zone_names_and_offsets(typed, stored):
    assert timezones.parse(typed) == stored


@pytest.mark.parametrize("typed", ["Europe/Istambul", "Mars/Olympus", "UTC+15", "+03:75", "",
                                   "../../etc/passwd", "x" * 100])
def test_unknown_zones_are_refused(typed):
    assert timezones.parse(typed) is None


def test_suggestions_for_misspelt_zones():
    assert "Europe/Istanbul" in timezones.suggestions("Istambul")
    assert "Europe/Istanbul" in timezones.suggestions("Europe/Istambul")
    assert "America/New_York" in timezones.suggestions("new yrok")
    assert len(timezones.suggestions("Berlinn")) <= 3
    assert timezones.suggestions("qqqqqqqq") == []


@pytest.mark.parametrize("typed", ["Istambul", "istanbul", "Asia/Istambul", "Kiev", "Calcuta",
                                   "US/Easter", "Saigon", "Turkey"])
def test_suggestions_are_canonical_zones_never_aliases(typed):
    links = timezones._links()
    offered = timezones.suggestions(typed)
    assert offered and not [name for name in offered if name in links]
    assert timezones.suggestions("Istambul")[0] == "Europe/Istanbul"
    assert "Asia/Kolkata" in timezones.suggestions("Calcuta")


@pytest.mark.parametrize(("typed", "stored"), [
    ("Asia/Istanbul", "Europe/Istanbul"), ("asia/calcutta", "Asia/Kolkata"),
    ("Kiev", "Europe/Kyiv"), ("US/Eastern", "America/New_York"), ("Turkey", "Europe/Istanbul"),
])
def test_an_alias_is_stored_as_its_canonical_zone(typed, stored):
    assert timezones.parse(typed) == stored


def test_fixed_offsets_and_defaults_resolve():
    assert utc(2026, 3, 10, 12).astimezone(timezones.zone("UTC+03:00")).hour == 15
    assert utc(2026, 3, 10, 12).astimezone(timezones.zone("UTC-05:30")).strftime("%H:%M") == "06:30"
    assert timezones.zone(None, "tr").key == "Europe/Istanbul"
    assert timezones.zone(None, "en").key == "UTC"
    assert timezones.zone("Bogus/Zone").key == "UTC"
    assert timezones.effective_name(None, "tr") == "Europe/Istanbul"
    assert all(timezones.parse(name) == name for name in timezones.COMMON)


# --- local times and DST -----------------------------------------------------------------

def test_local_time_in_the_users_zone():
    assert reminders.local_occurrence(date(2026, 3, 10), 570, ISTANBUL) == utc(2026, 3, 10, 6, 30)
    assert reminders.local_occurrence(date(2026, 3, 10), 570, timezones.zone("UTC")) == utc(
        2026, 3, 10, 9, 30)


def test_0930_stays_0930_local_across_both_dst_changes():
    daily = Schedule(570)
    seen = []
    moment = utc(2026, 3, 6, 15)
    for _ in range(4):  # New York springs forward on Sunday 8 March 2026
        day, moment = reminders.next_occurrence(moment, daily, NEW_YORK)
        seen.append((day, moment.astimezone(NEW_YORK).strftime("%H:%M"), moment.hour))
    assert seen == [(date(2026, 3, 7), "09:30", 14), (date(2026, 3, 8), "09:30", 13),
                    (date(2026, 3, 9), "09:30", 13), (date(2026, 3, 10), "09:30", 13)]
    moment = utc(2026, 10, 23, 12)  # Berlin falls back on Sunday 25 October 2026
    hours = []
    for _ in range(3):
        _, moment = reminders.next_occurrence(moment, daily, BERLIN)
        assert moment.astimezone(BERLIN).strftime("%H:%M") == "09:30"
        hours.append(moment.hour)
    assert hours == [7, 8, 8]  # 09:30 CEST (UTC+2), then 09:30 CET (UTC+1)


def test_a_time_skipped_by_dst_moves_to_the_next_valid_minute():
    # 02:30 does not exist on 8 March 2026 in New York (02:00 -> 03:00) nor 29 March in Berlin.
    ny = reminders.local_occurrence(date(2026, 3, 8), 150, NEW_YORK)
    assert ny.astimezone(NEW_YORK).strftime("%H:%M") == "03:00" and ny == utc(2026, 3, 8, 7)
    berlin = reminders.local_occurrence(date(2026, 3, 29), 2 * 60 + 59, BERLIN)
    assert berlin.astimezone(BERLIN).strftime("%H:%M") == "03:00"
    # Lord Howe Island moves by 30 minutes: 02:10 on 4 October 2026 becomes 02:30.
    howe = ZoneInfo("Australia/Lord_Howe")
    moved = reminders.local_occurrence(date(2026, 10, 4), 130, howe)
    assert moved.astimezone(howe).strftime("%H:%M") == "02:30"
    # The day after, 02:30 exists again and is used as is.
    assert reminders.local_occurrence(date(2026, 3, 9), 150, NEW_YORK).astimezone(
        NEW_YORK).strftime("%H:%M") == "02:30"


def test_a_time_that_happens_twice_is_reminded_once_at_the_first():
    # 01:30 happens twice on 1 November 2026 in New York: EDT (05:30Z) then EST (06:30Z).
    first = reminders.local_occurrence(date(2026, 11, 1), 90, NEW_YORK)
    assert first == utc(2026, 11, 1, 5, 30)
    day, after = reminders.next_occurrence(first, Schedule(90), NEW_YORK)
    assert day == date(2026, 11, 2) and after == utc(2026, 11, 2, 6, 30)


def test_weekdays_skip_to_the_next_enabled_day():
    workdays = Schedule(570, 0b0011111)
    # Friday 13 March 2026, after 09:30 UTC: next is Monday.
    day, due = reminders.next_occurrence(utc(2026, 3, 13, 10), workdays, timezones.zone("UTC"))
    assert day == date(2026, 3, 16) and due == utc(2026, 3, 16, 9, 30)
    # Before 09:30 on a Friday: today.
    day, _ = reminders.next_occurrence(utc(2026, 3, 13, 9), workdays, timezones.zone("UTC"))
    assert day == date(2026, 3, 13)
    # The weekday is the user's local one: 22:30 UTC Friday is already Saturday in Istanbul.
    day, _ = reminders.next_occurrence(utc(2026, 3, 13, 22, 30), Schedule(30, 0b0011111),
                                       ISTANBUL)
    assert day == date(2026, 3, 16)


def test_a_day_already_sent_is_never_scheduled_again():
    # Reminded at 09:30 today, then moved to 18:00: the next one is tomorrow's.
    day, due = reminders.next_occurrence(utc(2026, 3, 10, 10), Schedule(18 * 60),
                                         timezones.zone("UTC"), sent_day=date(2026, 3, 10))
    assert day == date(2026, 3, 11) and due == utc(2026, 3, 11, 18)


# --- deciding a due reminder -------------------------------------------------------------

def settle(now, *, due_day=date(2026, 3, 10), schedule=Schedule(570), tz=ISTANBUL,
           sent_day=None, active_day=None):
    return reminders.settle(schedule, tz, due_day=due_day, now=now, sent_day=sent_day,
                            active_day=active_day)


def test_on_time_reminder_is_sent_and_the_next_is_tomorrow():
    decision = settle(utc(2026, 3, 10, 6, 30, 10))
    assert decision.send and decision.sent_day == date(2026, 3, 10)
    assert decision.next_day == date(2026, 3, 11) and decision.next_due == utc(2026, 3, 11, 6, 30)


def test_no_reminder_after_practising_that_local_day_unless_always():
    now = utc(2026, 3, 10, 6, 31)
    skipped = settle(now, active_day=date(2026, 3, 10))
    assert not skipped.send and skipped.reason == "practised" and skipped.sent_day is None
    assert skipped.next_day == date(2026, 3, 11)
    assert settle(now, active_day=date(2026, 3, 9)).send  # yesterday does not count
    assert settle(now, active_day=date(2026, 3, 10), schedule=Schedule(570, always=True)).send


def test_late_after_downtime_sends_once_within_two_hours_then_skips_the_day():
    assert settle(utc(2026, 3, 10, 8, 29)).send  # 1 h 59 min late
    late = settle(utc(2026, 3, 10, 8, 31))
    assert not late.send and late.reason == "late"
    assert late.next_due == utc(2026, 3, 11, 6, 30)


def test_after_days_of_downtime_only_todays_reminder_goes_out_late():
    # Down from Monday to Thursday 07:00 Istanbul (04:00Z); the stored reminder is Monday's.
    now = utc(2026, 3, 12, 4)
    first = settle(now, due_day=date(2026, 3, 9))
    assert not first.send and first.reason == "late"
    # Skipped straight past Tuesday and Wednesday to Thursday, which is not due yet.
    assert first.next_day == date(2026, 3, 12) and first.next_due > now
    # Down until 10:00 Istanbul instead: Wednesday's is skipped, today's 09:30 goes out late.
    now = utc(2026, 3, 12, 7)
    first = settle(now, due_day=date(2026, 3, 9))
    assert (first.next_day, first.next_due) == (date(2026, 3, 12), utc(2026, 3, 12, 6, 30))
    second = settle(now, due_day=first.next_day)
    assert second.send and second.next_day == date(2026, 3, 13)


def test_a_day_already_sent_is_not_sent_again():
    decision = settle(utc(2026, 3, 10, 6, 31), sent_day=date(2026, 3, 10))
    assert not decision.send and decision.reason == "sent-already"
    assert decision.sent_day == date(2026, 3, 10) and decision.next_day == date(2026, 3, 11)


def test_a_zone_changed_under_a_stored_reminder_moves_it_instead_of_firing():
    # Stored for 09:30 UTC (the default); the user's zone is now New York: 09:30 there is later.
    decision = settle(utc(2026, 3, 10, 9, 30), tz=NEW_YORK)
    assert not decision.send and decision.reason == "not-yet"
    assert decision.next_due == utc(2026, 3, 10, 13, 30)


def run_days(tz, schedule, *, start, days, tick, down=None, practise=lambda day: False):
    """Simulate the job on an injected clock: every `tick`, settle whatever is due."""
    day, due = reminders.next_occurrence(start, schedule, tz)
    sent_day, sent = None, []
    now = start
    while now < start + timedelta(days=days):
        now += tick
        if down and down[0] <= now < down[1]:
            continue
        while due <= now:
            active = day if practise(day) else None
            decision = reminders.settle(schedule, tz, due_day=day, now=now, sent_day=sent_day,
                                        active_day=active)
            if decision.send:
                sent.append((day, now - due))
            sent_day, day, due = decision.sent_day, decision.next_day, decision.next_due
    return sent


@pytest.mark.parametrize("zone", ["America/New_York", "Europe/Berlin", "Australia/Lord_Howe",
                                  "Asia/Kolkata", "Pacific/Chatham", "America/Santiago"])
def test_a_year_of_reminders_is_once_a_day_on_time_through_every_dst_change(zone):
    tz = ZoneInfo(zone)
    sent = run_days(tz, Schedule(150), start=utc(2026, 1, 1), days=365, tick=timedelta(minutes=7))
    days = [d for d, _ in sent]
    assert len(days) == len(set(days)) == 365
    assert all(delay < timedelta(minutes=7) for _, delay in sent)


def test_downtime_gives_one_late_reminder_then_normal_days():
    tz = BERLIN
    down = (utc(2026, 3, 10, 7), utc(2026, 3, 10, 9))  # 09:30 Berlin is 08:30Z: 30 min late
    sent = run_days(tz, Schedule(570), start=utc(2026, 3, 8), days=5, tick=timedelta(minutes=1),
                    down=down)
    assert [d.day for d, _ in sent] == [8, 9, 10, 11, 12]
    assert dict(sent)[date(2026, 3, 10)] == timedelta(minutes=30)
    down = (utc(2026, 3, 10, 7), utc(2026, 3, 10, 11))  # back at 12:00 Berlin: too late
    sent = run_days(tz, Schedule(570), start=utc(2026, 3, 8), days=5, tick=timedelta(minutes=1),
                    down=down)
    assert [d.day for d, _ in sent] == [8, 9, 11, 12]


def test_weekdays_and_practised_days_in_a_simulated_fortnight():
    practised = {date(2026, 3, 11), date(2026, 3, 14)}
    sent = run_days(ISTANBUL, Schedule(570, 0b0011111), start=utc(2026, 3, 8), days=14,
                    tick=timedelta(minutes=5), practise=lambda day: day in practised)
    # Mon 9 .. Fri 13 and Mon 16 .. Fri 20, minus Wednesday 11 (practised first).
    assert [d.day for d, _ in sent] == [9, 10, 12, 13, 16, 17, 18, 19, 20]


# --- streaks (the existing rules, checked against the issue) -------------------------------

def test_streak_milestones_fire_once_on_the_answer_that_reaches_them():
    last, streak, best, fired = None, 0, 0, []
    day = date(2026, 3, 1)
    for offset in range(8):
        for _ in range(2):  # two answers a day: only the first can reach a milestone
            today = day + timedelta(days=offset)
            before = streaks.current(last, streak, today)
            streak, best = streaks.advance(last, streak, best, today)
            last = today
            milestone = streaks.milestone_reached(before, streak)
            if milestone:
                fired.append((offset + 1, milestone))
    assert fired == [(3, 3), (7, 7)] and best == 8


def test_moving_west_does_not_break_a_streak():
    # Answered on 11 March in Istanbul, then moved to Los Angeles where it is still 10 March.
    assert streaks.advance(date(2026, 3, 11), 4, 4, date(2026, 3, 10)) == (4, 4)
    assert streaks.current(date(2026, 3, 11), 4, date(2026, 3, 10)) == 4
