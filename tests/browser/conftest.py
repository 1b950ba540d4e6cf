"""Headless Chromium (Debian's chromium + chromium-driver) driving the playground's web chat.
Skipped, with the reason, when the browser, its driver or selenium is missing."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import TEST_BANK
from tests.playground_process import PlaygroundProcess

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
FLAGS = (
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--no-first-run", "--window-size=1280,860", "--lang=en-US",
)


def missing() -> str | None:
    """Why the browser tests can't run here, or None."""
    if not Path(CHROMIUM).is_file():
        return "chromium not found (apt-get install chromium chromium-driver)"
    if not Path(CHROMEDRIVER).is_file():
        return "chromedriver not found (apt-get install chromium-driver)"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium not installed (pip install -e '.[dev]')"
    return None


@pytest.fixture(scope="module")
def playground(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PlaygroundProcess]:
    folder = tmp_path_factory.mktemp("play")
    # Rounds (when that feature is there) accept short timers, so a round fits in a test.
    process = PlaygroundProcess(folder, QUESTIONS_DIR=str(TEST_BANK), ROUND_MIN_SECONDS="3")
    process.wait_url()
    yield process
    assert process.stop() == 0, process.output()[-3000:]


@pytest.fixture(scope="module")
def driver(playground: PlaygroundProcess, tmp_path_factory: pytest.TempPathFactory):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    # Selenium Manager must never download a browser or driver: we name both.
    os.environ["SE_OFFLINE"] = "true"
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    for flag in (*FLAGS, f"--user-data-dir={tmp_path_factory.mktemp('chromium')}"):
        options.add_argument(flag)
    browser = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    browser.set_page_load_timeout(30)
    yield browser
    try:
        errors = [e["message"] for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    finally:
        browser.quit()
    # Failed taps on purpose show as toasts, not console errors: any error here is a bug.
    assert errors == [], errors
