"""A tiny run of the scale benchmark, so it keeps working (the full run: see the README)."""

import sqlite3

from bench import storage_scale


def test_scale_benchmark_builds_a_consistent_database_and_times_the_hot_paths(tmp_path):
    path = tmp_path / "scale.sqlite3"
    timings = storage_scale.main(["--answers", "1000", "--users", "20", "--samples", "20",
                                  "--db", str(path)])
    assert [t.name for t in timings] == [
        "choose next question", "choose next (rated user)", "record answer + card", "/stats text",
        "/stats chart data (query)"]
    assert all(len(t.samples) == 20 and t.percentile(99) > 0 for t in timings)
    conn = sqlite3.connect(path)
    try:
        one = lambda sql: conn.execute(sql).fetchone()[0]  # noqa: E731
        timed = 20 + min(50, 20)  # timed calls plus warm-up calls, each one more answer
        assert one("SELECT COUNT(*) FROM answers") == 1000 + timed
        assert one("SELECT SUM(answered) FROM users") == 1000 + timed
        assert one("SELECT COUNT(*) FROM review_logs") == 1000 + timed
        assert one("SELECT COUNT(*) FROM review_cards") == one("SELECT COUNT(*) FROM progress")
        assert one("SELECT SUM(answered) FROM topic_stats") == 1000 + timed
    finally:
        conn.close()
