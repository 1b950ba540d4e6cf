"""Topic bars, the chart's day and week series, its storage query and the PNG itself."""

import struct
from datetime import UTC, date, datetime, timedelta

from bot.charts import ChartLabels, render_progress
from domain import activity, progress
from domain.activity import Tally
from services import answers as recording
from storage import answers, users
from storage.answers import TopicTotal
from storage.history import daily_tallies

TODAY = date(2026, 3, 11)  # a Wednesday


def test_bar_and_weakest_first():
    assert progress.bar(62, 100) == "▰▰▰▱▱"
    assert progress.bar(0, 0) == "▱▱▱▱▱" and progress.bar(5, 5) == "▰▰▰▰▰"
    rows = [TopicTotal("f", "new", 0, 0), TopicTotal("f", "good", 10, 9),
            TopicTotal("f", "weak", 10, 3), TopicTotal("f", "weak-few", 2, 0)]
    assert [t.topic for t in progress.weakest_first(rows)] == ["weak-few", "weak", "good", "new"]


def test_days_and_weeks_fill_the_gaps():
    tallies = {TODAY: Tally(4, 3), TODAY - timedelta(days=2): Tally(2, 0),
               date(2026, 3, 2): Tally(10, 5), date(2025, 1, 1): Tally(9, 9)}
    days = activity.daily(tallies, TODAY)
    assert len(days) == 30 and days[-1] == (TODAY, Tally(4, 3)) and days[0][1] == Tally()
    weeks = activity.weekly(tallies, TODAY)
    assert len(weeks) == 12 and weeks[-1][0] == date(2026, 3, 9)
    assert weeks[-1][1] == Tally(6, 3) and weeks[-2][1] == Tally(10, 5)
    assert weeks[0][1].accuracy is None
    assert activity.first_day(TODAY) == min(TODAY - timedelta(days=29), date(2025, 12, 22))


async def test_daily_tallies_group_by_local_day(db):
    await users.ensure_user(db, user_id=1, first_name="Ada", language="en", now=1)
    moments = [datetime(2026, 3, 10, 22, 30, tzinfo=UTC),  # 01:30 on the 11th in Istanbul
               datetime(2026, 3, 10, 12, 0, tzinfo=UTC), datetime(2026, 1, 1, tzinfo=UTC)]
    for i, moment in enumerate(moments):
        await recording.record(db, answers.NewAnswer(
            user_id=1, question_id=f"q{i}", field="f", topic="t", level="junior", chosen="a",
            is_correct=i == 0, answered_at=int(moment.timestamp()), chat_id=1, message_id=i),
            today=moment.date())
    since = int(datetime(2026, 2, 1, tzinfo=UTC).timestamp())
    tallies = await daily_tallies(db, user_id=1, since=since, utc_offset=3 * 3600)
    assert tallies == {date(2026, 3, 11): Tally(1, 1), date(2026, 3, 10): Tally(1, 0)}
    plan = await db.fetchall(
        "EXPLAIN QUERY PLAN SELECT (answered_at + 0) / 86400 AS day, COUNT(*) FROM answers"
        " WHERE user_id = 1 AND answered_at >= 0 GROUP BY day")
    assert any("answers_user_time" in row["detail"] for row in plan)


def test_chart_is_a_phone_sized_png_in_either_language():
    tallies = {TODAY - timedelta(days=i): Tally(i % 7, i % 5) for i in range(0, 90, 3)}
    for months in ("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec",
                   "Oca Şub Mar Nis May Haz Tem Ağu Eyl Eki Kas Ara"):
        png = render_progress(activity.weekly(tallies, TODAY), activity.daily(tallies, TODAY),
                              ChartLabels("Başarı", "Günlük cevaplar", "doğru", "yanlış",
                                          months.split()))
        assert png.startswith(b"\x89PNG\r\n\x1a\n") and png[12:16] == b"IHDR"
        assert struct.unpack(">II", png[16:24]) == (800, 500)
