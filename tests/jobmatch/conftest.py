"""Shows the job-ad matcher's evaluation figures at the end of the test run."""

from __future__ import annotations


def pytest_terminal_summary(terminalreporter) -> None:
    from tests.jobmatch.evaluate import REPORTS

    for report in REPORTS:
        terminalreporter.section("job-ad matcher evaluation")
        terminalreporter.write_line(report)
