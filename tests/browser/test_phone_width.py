"""The web chat at phone width (390 px): only the message list scrolls, it opens on the newest
message, the message box stays in view; a message over 4096 characters stays in the box with a
note in the chat, as Telegram's apps do."""

from __future__ import annotations

import pytest

from tests.browser.conftest import missing
from tests.browser.test_playground_page import ADA, act_as, bot_texts, css, type_and_send, wait

pytestmark = [pytest.mark.browser, pytest.mark.skipif(missing() is not None,
                                                       reason=missing() or "")]
PHONE = {"width": 390, "height": 700, "deviceScaleFactor": 1, "mobile": True}
LAYOUT = """
const box = document.getElementById("messages");
const text = document.getElementById("text").getBoundingClientRect();
return {page: document.scrollingElement.scrollHeight, view: window.innerHeight,
        list: box.scrollHeight, shown: box.clientHeight, top: box.scrollTop,
        boxTop: text.top, boxBottom: text.bottom};
"""


@pytest.fixture
def phone(driver):
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", PHONE)
    yield driver
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def on_newest(layout: dict) -> bool:
    return layout["list"] - layout["top"] - layout["shown"] < 4


def test_the_message_list_scrolls_and_the_box_stays_in_view(playground, phone):
    act_as(phone, playground.url, ADA)
    wait(phone, lambda d: css(d, "#start-button")[0].is_displayed())
    css(phone, "#start-button")[0].click()
    wait(phone, lambda d: any("Hi \u2068Ada\u2069" in t for t in bot_texts(d)))
    for count in range(1, 5):  # long replies: far more than one screen
        type_and_send(phone, "/help")
        wait(phone, lambda d, n=count: sum("/quiz" in t for t in bot_texts(d)) >= n)
    layout = wait(phone, lambda d: (lay := d.execute_script(LAYOUT)) and on_newest(lay) and lay)
    assert layout["page"] <= layout["view"], layout  # the page itself does not scroll
    assert layout["list"] > layout["shown"] > 100, layout  # the list scrolls on its own
    assert layout["boxTop"] >= 0 and layout["boxBottom"] <= layout["view"], layout

    phone.refresh()  # opening the chat again: on the newest message, the box in view
    wait(phone, lambda d: sum("/quiz" in t for t in bot_texts(d)) >= 4)
    layout = wait(phone, lambda d: (lay := d.execute_script(LAYOUT)) and on_newest(lay) and lay)
    assert layout["boxBottom"] <= layout["view"] and layout["page"] <= layout["view"], layout


def test_a_message_over_4096_characters_is_kept_with_a_note(playground, phone):
    from selenium.webdriver.common.keys import Keys

    act_as(phone, playground.url, ADA)
    sent = len(css(phone, "#messages .msg.out"))
    box = wait(phone, lambda d: (b := css(d, "#text")) and b[0].is_displayed() and b[0])
    phone.execute_script("arguments[0].value = 'x'.repeat(4100);", box)
    box.send_keys(Keys.END + "y")
    box.send_keys(Keys.ENTER)
    note = wait(phone, lambda d: (n := css(d, "#messages .note.too-long")) and n[-1])
    assert "4,101 characters" in note.text and "4,096" in note.text
    assert "Telegram would refuse" not in note.text and css(phone, "#toast")[0].is_displayed() is False
    assert len(box.get_attribute("value")) == 4101  # kept, to shorten
    assert len(css(phone, "#messages .msg.out")) == sent
    assert len(playground.output().split("Telegram would refuse")) == 1
