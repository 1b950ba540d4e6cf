"""The playground's web chat in headless Chromium: a private quiz, switching users, the group,
a group round (once /round exists), and refused calls shown as red notes."""

from __future__ import annotations

import os
from pathlib import Path

import httpx
import pytest

from tests.browser.conftest import missing

pytestmark = [pytest.mark.browser, pytest.mark.skipif(missing() is not None,
                                                       reason=missing() or "")]

ADA, AYSE, BOB = 1001, 1002, 1003
TIMEOUT = 20


def wait(driver, condition, timeout: float = TIMEOUT, message: str = ""):
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    # The page redraws what changed; an element found a moment ago may be gone: look again.
    return WebDriverWait(driver, timeout, poll_frequency=0.05,
                         ignored_exceptions=[StaleElementReferenceException]).until(
        lambda d: condition(d), message)


def css(driver, selector: str):
    from selenium.webdriver.common.by import By

    return driver.find_elements(By.CSS_SELECTOR, selector)


def bot_texts(driver) -> list[str]:
    return [m.text for m in css(driver, "#messages .msg.from-bot .text")]


def click_button(driver, label: str):
    """Click the newest inline button labelled `label` (else the newest containing it)."""
    def find_and_click(d):
        shown = css(d, "#messages .kb-button")
        buttons = [b for b in shown if b.text == label] or [b for b in shown if label in b.text]
        if buttons:
            buttons[-1].click()
        return bool(buttons)
    wait(driver, find_and_click, message=f"no button {label!r}")


def type_and_send(driver, text: str):
    from selenium.webdriver.common.keys import Keys

    box = wait(driver, lambda d: (b := css(d, "#text")) and b[0].is_displayed() and b[0])
    box.send_keys(text)
    box.send_keys(Keys.ENTER)


def act_as(driver, url: str, user_id: int):
    from selenium.webdriver.support.ui import Select

    if not driver.current_url.startswith(url):
        driver.get(f"{url}#user={user_id}")
    else:
        Select(wait(driver, lambda d: css(d, "#user-select")[0])).select_by_value(str(user_id))
    wait(driver, lambda d: f"user={user_id}" in d.current_url
         and css(d, f'#chat-list li[data-chat-id="{user_id}"]'))


def open_chat(driver, chat_type: str):
    wait(driver, lambda d: css(d, f'#chat-list li[data-type="{chat_type}"]')[0].click() or True)
    wait(driver, lambda d: css(d, f'#chat-list li.active[data-type="{chat_type}"]'))


def screenshot(driver, tmp_path: Path, name: str) -> None:
    """Kept under $PLAYGROUND_SCREENSHOTS when set (docs/playground.png comes from there)."""
    folder = Path(os.environ.get("PLAYGROUND_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(folder / name))


def test_private_quiz_then_switch_user_and_use_the_group(playground, driver, tmp_path):
    url = playground.url
    act_as(driver, url, ADA)
    wait(driver, lambda d: css(d, "#start-button")[0].is_displayed())
    css(driver, "#start-button")[0].click()
    wait(driver, lambda d: any("Hi \u2068Ada\u2069" in t for t in bot_texts(d)))
    click_button(driver, "Backend")
    click_button(driver, "Junior")
    wait(driver, lambda d: any("All set" in t for t in bot_texts(d)))

    # The / suggestions come from setMyCommands; Tab completes, Enter sends.
    from selenium.webdriver.common.keys import Keys

    box = css(driver, "#text")[0]
    box.send_keys("/qu")
    wait(driver, lambda d: any(s.text.startswith("/quiz") for s in css(d, ".suggestion")))
    box.send_keys(Keys.TAB)
    box.send_keys(Keys.ENTER)
    wait(driver, lambda d: [b.text for b in css(d, "#messages .msg:last-child .kb-button")]
         == ["A", "B", "C", "D"])
    click_button(driver, "A")
    toast = wait(driver, lambda d: (t := css(d, "#toast")[0]).is_displayed() and t.text and t)
    assert toast.text[0] in "✅❌"
    wait(driver, lambda d: any(t.startswith(("✅ Right!", "❌ The answer is"))
                               for t in bot_texts(d)))
    # The question was edited in place: the pick is shown and its buttons are gone.
    assert any("Your answer: A" in t for t in bot_texts(driver))
    assert css(driver, "#messages .edited")
    screenshot(driver, tmp_path, "private-quiz.png")

    act_as(driver, url, BOB)
    assert css(driver, "#start-button")[0].is_displayed()  # Bob has not talked to the bot
    assert not bot_texts(driver)
    open_chat(driver, "supergroup")
    type_and_send(driver, "/help")
    wait(driver, lambda d: any("/quiz" in t for t in bot_texts(d)))
    assert css(driver, "#messages .msg.out")  # Bob's own /help on the right

    act_as(driver, url, ADA)
    open_chat(driver, "supergroup")
    wait(driver, lambda d: any(s.text == "Bob" for s in css(d, "#messages .msg.in .sender")))
    screenshot(driver, tmp_path, "group.png")


def test_group_round_when_the_bot_has_rounds(playground, driver, tmp_path):
    url = playground.url
    act_as(driver, url, ADA)
    open_chat(driver, "supergroup")
    css(driver, "#menu-button")[0].click()
    commands = [s.text.split()[0] for s in wait(driver, lambda d: css(d, ".suggestion"))]
    css(driver, "#menu-button")[0].click()
    if "/round" not in commands:
        pytest.skip("no /round in the group's command menu yet: group rounds are not merged")
    before = len(bot_texts(driver))
    type_and_send(driver, "/round 1 5s")
    wait(driver, lambda d: len(css(d, "#messages .msg.from-bot .kb-button")) >= 2)
    click_button(driver, "A")
    act_as(driver, url, BOB)
    open_chat(driver, "supergroup")
    click_button(driver, "B")
    wait(driver, lambda d: len(bot_texts(d)) >= before + 2, timeout=40)
    screenshot(driver, tmp_path, "group-round.png")


def test_refused_calls_show_as_red_notes(playground, driver):
    url = playground.url
    act_as(driver, url, AYSE)
    css(driver, "#start-button")[0].click()
    wait(driver, lambda d: any("Merhaba \u2068Ayşe\u2069" in t for t in bot_texts(d)))
    # Another program using the emulator's Bot API breaks Telegram's length limit.
    api = url.replace("/play/", "/bot123456:TEST-TOKEN-abcdefghijklmnopqrstu/sendMessage")
    refused = httpx.post(api, data={"chat_id": AYSE, "text": "x" * 5000})
    assert refused.status_code == 400
    note = wait(driver, lambda d: (n := css(d, "#messages .note.refused")) and n[0])
    assert "message is too long" in note.text
    assert "1 call Telegram would refuse" in css(driver, "#problems-toggle")[0].text
    # The terminal says it too.
    assert "Telegram would refuse: sendMessage chat 1002: 400" in playground.output()


FORUM = -1001234567891


def test_forum_topics_and_inline_mode(playground, driver, tmp_path):
    """The forum among the playground's chats shows one topic at a time and sends into it; typing
    `@bot` offers questions to share, and a shared one is answered with a private toast."""
    url = playground.url
    act_as(driver, url, BOB)
    wait(driver, lambda d: css(d, f'#chat-list li[data-chat-id="{FORUM}"]')[0].click() or True)
    tabs = wait(driver, lambda d: [t.text for t in css(d, "#topics .topic")] or None)
    assert tabs == ["# General", "# Backend", "# Frontend"]
    wait(driver, lambda d: [t for t in css(d, "#topics .topic") if t.text == "# Backend"][0].click()
         or True)
    type_and_send(driver, "/leaderboard")
    wait(driver, lambda d: any("No rounds played here yet" in t for t in bot_texts(d)))
    # The answer went to the Backend topic: General does not show it.
    wait(driver, lambda d: [t for t in css(d, "#topics .topic") if t.text == "# General"][0].click()
         or True)
    wait(driver, lambda d: not any("No rounds played" in t for t in bot_texts(d)))

    box = css(driver, "#text")[0]
    box.send_keys("@interview_coach_bot ")
    results = wait(driver, lambda d: (r := css(d, "#inline-results .inline-result")) and r)
    assert results[0].text.startswith("🎲")
    wait(driver, lambda d: css(d, "#inline-results .inline-result")[0].click() or True)
    wait(driver, lambda d: css(d, "#messages .via"))
    click_button(driver, "A")
    toast = wait(driver, lambda d: (t := css(d, "#toast")[0]).is_displayed() and t.text and t)
    assert toast.text[0] in "✅❌"
    wait(driver, lambda d: any("1 answered" in m.text for m in css(d, "#messages .text")))
    screenshot(driver, tmp_path, "forum-inline.png")
