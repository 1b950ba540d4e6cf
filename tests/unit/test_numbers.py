"""The one parser for numbers users type (issue 17, item 2)."""

from __future__ import annotations

import pytest

from domain.numbers import parse_number
from domain.reminders import parse_time
from domain.rounds import BadRoundArgs, parse_round_args
from domain.timezones import parse as parse_zone


@pytest.mark.parametrize(("text", "value"), [("0", 0), ("7", 7), ("045", 45), ("20", 20)])
def test_ascii_digits_are_numbers(text, value):
    assert parse_number(text) == value


@pytest.mark.parametrize("text", ["", "²", "1²", "٣", "３", "-1", "+1", " 1", "1.5", "1e3",
                                  "1" * 13])
def test_anything_else_is_not_a_number(text):
    assert parse_number(text) is None


@pytest.mark.parametrize("args", [["²"], ["3", "²"], ["²s"], ["٣"], ["3", "٣٠"]])
def test_round_arguments_with_other_digits_are_refused(args):
    with pytest.raises(BadRoundArgs):
        parse_round_args(args, min_seconds=10)


def test_times_and_offsets_take_ascii_digits_only():
    assert parse_time("9:30") == 570 and parse_time("٩:٣٠") is None
    assert parse_zone("+3") == "UTC+03:00" and parse_zone("+٣") is None
