"""The web chat's own behaviour in headless Chromium, with a scripted bot (plain Bot API calls)
instead of the real one: formatting, edits in place, alerts, replies, adding a user."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator

import httpx
import pytest

from fake_telegram import FakeTelegram, playground
from tests.browser.conftest import missing
from tests.browser.test_playground_page import act_as, click_button, css, type_and_send, wait
from tests.shared_files import API_SPEC

pytestmark = [pytest.mark.browser, pytest.mark.skipif(missing() is not None,
                                                       reason=missing() or "")]
ADA = 1001


class ScriptedBot:
    """The emulator on its own event loop in a thread; the test plays the bot over HTTP."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.fake: FakeTelegram = self._run(self._start())
        self.url = f"http://{self.fake.host}:{self.fake.port}/play/"
        self.http = httpx.Client(timeout=10)
        self.offset = 0

    def _run(self, coroutine):
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(10)

    async def _start(self) -> FakeTelegram:
        fake = FakeTelegram(spec_path=API_SPEC)
        playground.cast(fake)
        return await fake.start()

    def call(self, method: str, **params) -> dict:
        form = {k: v if isinstance(v, str) else json.dumps(v) for k, v in params.items()}
        body = self.http.post(self.fake.api_url(method), data=form).json()
        assert body["ok"], body
        return body["result"]

    def next_update(self, kind: str) -> dict:
        for _ in range(50):
            for update in self.call("getUpdates", offset=self.offset, timeout=1):
                self.offset = update["update_id"] + 1
                if kind in update:
                    return update[kind]
        raise AssertionError(f"no {kind} update")

    def stop(self) -> None:
        self.http.close()
        self._run(self.fake.stop())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)


@pytest.fixture(scope="module")
def scripted() -> Iterator[ScriptedBot]:
    bot = ScriptedBot()
    yield bot
    bot.stop()
    assert bot.fake.violations == []


def test_formatting_edits_alerts_and_replies(scripted, driver):
    act_as(driver, scripted.url, ADA)
    css(driver, "#start-button")[0].click()
    assert scripted.next_update("message")["text"] == "/start"
    keyboard = {"inline_keyboard": [[{"text": "Check", "callback_data": "v1:check"},
                                     {"text": "Docs", "url": "https://example.org/docs"}]]}
    sent = scripted.call(
        "sendMessage", chat_id=ADA, parse_mode="HTML", reply_markup=keyboard,
        text='<b>Bold</b> <tg-spoiler>secret</tg-spoiler> <a href="https://example.org">link</a>'
             ' &lt;tag&gt;\n<pre><code class="language-python">print(1 &lt; 2)</code></pre>'
             "\nSend /help")
    bubble = wait(driver, lambda d: (t := css(d, "#messages .from-bot .text")) and t[-1])
    assert bubble.find_element("css selector", "strong").text == "Bold"
    assert bubble.find_element("css selector", "a[href^='https://example.org']").text == "link"
    assert bubble.find_element("css selector", "pre").get_attribute("data-language") == "python"
    assert "print(1 < 2)" in bubble.find_element("css selector", "pre code").text
    assert "<tag>" in bubble.text  # shown as text, never parsed as markup
    assert css(driver, "#messages .spoiler")
    # A /command in plain text is tappable, like in Telegram's apps.
    assert [a.text for a in css(driver, "#messages .from-bot a.command")] == ["/help"]
    docs = [b for b in css(driver, "#messages a.kb-button") if "Docs" in b.text][0]
    assert docs.get_attribute("href") == "https://example.org/docs"

    click_button(driver, "Check")
    query = scripted.next_update("callback_query")
    assert query["data"] == "v1:check" and query["from"]["id"] == ADA
    wait(driver, lambda d: css(d, "#messages .kb-button.loading"))  # a spinner until answered
    scripted.call("answerCallbackQuery", callback_query_id=query["id"],
                  text="Checked ✅\nAll good", show_alert=True)
    dialog = wait(driver, lambda d: (a := css(d, "#alert-dialog")[0]).is_displayed() and a)
    assert "Checked ✅" in dialog.text
    dialog.find_element("css selector", "button").click()
    assert not css(driver, "#messages .kb-button.loading")

    scripted.call("editMessageText", chat_id=ADA, message_id=sent["message_id"],
                  text="Checked.", reply_markup={"inline_keyboard": []})
    wait(driver, lambda d: any(t.text == "Checked." for t in css(d, "#messages .text")))
    assert len(css(driver, "#messages .msg.from-bot")) == 1  # edited in place
    assert not css(driver, "#messages .kb-button")

    # Reply to the bot's message: the update carries reply_to_message.
    driver.execute_script("arguments[0].click()", css(driver, "#messages .reply-action")[-1])
    assert "Checked." in css(driver, "#reply-bar")[0].text
    type_and_send(driver, "my answer")
    message = scripted.next_update("message")
    assert message["text"] == "my answer"
    assert message["reply_to_message"]["message_id"] == sent["message_id"]


def test_adding_a_pretend_user(scripted, driver):
    act_as(driver, scripted.url, ADA)
    css(driver, "#add-user")[0].click()
    wait(driver, lambda d: css(d, "#add-user-dialog")[0].is_displayed())
    css(driver, "#new-user-name")[0].send_keys("Cem")
    from selenium.webdriver.support.ui import Select

    Select(css(driver, "#new-user-language")[0]).select_by_value("tr")
    css(driver, "#new-user-add")[0].click()
    wait(driver, lambda d: "user=1004" in d.current_url)
    selected = Select(css(driver, "#user-select")[0]).first_selected_option.text
    assert selected == "Cem · TR"
    assert "active" in css(driver, '#language-switch button[data-lang="tr"]')[0].get_attribute(
        "class")
    group = wait(driver, lambda d: css(d, '#chat-list li[data-type="supergroup"]'))[0]
    assert "5 members" in group.text
