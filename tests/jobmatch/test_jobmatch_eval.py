"""The job-ad matcher against the labelled ads: accuracy floors, the set's make-up, its speed."""

from __future__ import annotations

from collections import Counter

import pytest

from domain.jobmatch import Matcher, matcher_for
from questions.model import LEVELS
from tests.jobmatch.evaluate import REPORTS, evaluate, load_ads


@pytest.fixture
def matcher(bundled_bank) -> Matcher:
    return matcher_for(bundled_bank)


def test_accuracy_on_the_labelled_ads(matcher):
    report = evaluate(matcher, load_ads())
    REPORTS.append(report.summary())
    assert report.field_accuracy >= 0.90, report.summary()
    assert report.level_accuracy >= 0.80, report.summary()
    assert report.rejection == 1.0, report.summary()


def test_the_labelled_set_covers_what_the_issue_asks(bundled_bank):
    ads = load_ads()
    assert len(ads) >= 40
    assert len({ad["id"] for ad in ads}) == len(ads)
    languages = Counter(ad["lang"] for ad in ads)
    assert languages["en"] == languages["tr"] == len(ads) // 2
    fields = Counter(ad["field"] for ad in ads if ad["field"])
    bank_fields = set(bundled_bank.fields)
    assert set(fields) == bank_fields and min(fields.values()) >= 3, fields
    assert {ad["level"] for ad in ads if ad["field"]} == set(LEVELS)
    off_topic = [ad for ad in ads if ad["field"] is None]
    assert len(off_topic) >= 3 and all(ad["level"] is None for ad in off_topic)
    assert {ad["lang"] for ad in off_topic} == {"en", "tr"}


@pytest.mark.slow
def test_ranking_one_ad_takes_under_50_ms(matcher):
    report = evaluate(matcher, load_ads(), repeat=20)
    REPORTS.append(report.summary())
    assert report.percentile(0.99) < 50, report.summary()
