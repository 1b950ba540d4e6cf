"""Which topic `/quiz <words>` means: key, name in either language, near miss, else none."""

from __future__ import annotations

import pytest

from questions.cli import BUNDLED
from questions.loader import Bank, load_bank
from questions.topic_match import find_topic


@pytest.fixture(scope="module")
def bank() -> Bank:
    return load_bank(BUNDLED)


@pytest.mark.parametrize(("field", "words", "topic"), [
    ("database", "indexing", "indexing"),
    ("database", "INDEXES", "indexing"),  # a near miss
    ("database", "İndeksleme", "indexing"),  # the Turkish name, Turkish capital I
    ("database", "indexing and query plans", "indexing"),  # the whole English name
    ("database", "locks", "locking"),
    ("backend", "cache", "caching"),
    ("backend", "observabilty", "observability"),  # a typo
])
def test_a_topic_is_found_by_key_name_or_near_miss(bank, field, words, topic):
    assert find_topic(bank, field, words) == topic


@pytest.mark.parametrize("words", ["", "xyz", "ve", "and", "<b>"])
def test_nothing_close_finds_nothing(bank, words):
    assert find_topic(bank, "database", words) is None


def test_an_unknown_field_finds_nothing(bank):
    assert find_topic(bank, "no-such-field", "indexing") is None
