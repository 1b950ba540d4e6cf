"""services/answers.py: the one place an answer is described and timed."""

from datetime import UTC, datetime, timedelta

from services.answers import elapsed_ms


def test_elapsed_time_from_the_message_date():
    now = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)
    assert elapsed_ms(now - timedelta(seconds=12.5), now) == 12_500
    assert elapsed_ms(now + timedelta(seconds=3), now) == 0  # clocks disagree: never negative


def test_an_inaccessible_message_has_no_start_time():
    # Telegram sends date 0 for a message the bot can no longer see: not 57 years of thinking.
    now = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)
    assert elapsed_ms(datetime.fromtimestamp(0, UTC), now) is None
    assert elapsed_ms(None, now) is None
