"""Random and hostile updates through the real Application: no crash, every tap answered,
nobody's data touched by someone else."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.flood_guard import FloodGuard
from fake_telegram import FakeTelegram
from tests.e2e.harness import BotRunner
from tests.shared_files import API_SPEC

USERS = [(7001, "en"), (7002, "tr"), (7003, "de"), (7004, None)]
GROUP = -1007000
COMMANDS = ["/start", "/quiz", "/stats", "/help", "/language", "/field", "/level", "/nope",
            "/round", "/stop", "/leaderboard", "/remind", "/timezone", "/review", "/interview",
            "/topics", "/jd", "/plan", "/reload", "/deleteme", "/start@coach_test_bot"]
weird_text = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=0, max_size=80)
edge_text = st.sampled_from([
    "", " ", "\u200b", "\u202eevil", "🧨" * 50, "<b>bold</b>", "&amp;", "a" * 5000, "\x00",
    "junior", "mid", "senior", "en", "tr", "backend", "-1", "99999999999999999999", "09:30",
])
argument = st.one_of(weird_text, edge_text)


@st.composite
def actions(draw):
    kind = draw(st.sampled_from(["command", "command", "text", "tap", "tap", "tap", "edit",
                                 "channel", "sticker", "photo", "document", "forward",
                                 "anonymous"]))
    user = draw(st.sampled_from(USERS))
    in_group = draw(st.booleans())
    return kind, user, in_group, draw(st.sampled_from(COMMANDS)), draw(argument), draw(
        st.one_of(st.text(max_size=64), st.binary(max_size=64).map(lambda b: b.decode("latin-1")),
                  st.sampled_from(["v1:a:0000000000:a", "v1:a:0000000000:z:1", "v1:n:",
                                   "v1:n:../../etc", "v1:l:xx", "v1:f:nosuch", "v1:v:guru",
                                   "v1:g:1:a", "v1:i:1:a", "v1:d:yes", "v1:x"]))), draw(
        st.booleans())


def message_payload(fake: FakeTelegram, user, chat: dict, text: str) -> dict:
    return {"message_id": 10_000 + len(fake.calls), "date": 1_700_000_000, "chat": chat,
            "from": {"id": user.id, "is_bot": False, "first_name": user.first_name},
            "text": text}


async def run_batch(batch) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        fake = FakeTelegram(spec_path=API_SPEC)
        await fake.start()
        runner = BotRunner(fake, Path(tmp))
        errors: list[logging.LogRecord] = []
        handler = logging.Handler()
        handler.emit = errors.append  # type: ignore[method-assign]
        handler.setLevel(logging.ERROR)
        logging.getLogger("bot.errors").addHandler(handler)
        try:
            await runner.start()
            # Fuzzing wants volume; the flood guard has its own test.
            runner.app.bot_data["flood_guard"] = FloodGuard(limit=10_000)
            t0 = asyncio.get_running_loop().time()
            users = {uid: fake.user(uid, f"U{uid}", language_code=lang) for uid, lang in USERS}
            group = fake.group(GROUP, "Fuzz group", members={
                users[7001]: "creator", users[7002]: "member", users[7003]: "member",
                users[7004]: "administrator"})
            taps = []
            for kind, (uid, _), in_group, command, arg, data, flag in batch:
                user = users[uid]
                chat_id = GROUP if in_group else uid
                if kind == "command":
                    fake.send_message(user, f"{command} {arg}"[:4096].strip(), chat_id=chat_id)
                elif kind == "text":
                    fake.send_message(user, arg[:4096].strip() or ".", chat_id=chat_id)
                elif kind == "tap":
                    bot_messages = fake.bot_messages(chat_id)
                    if bot_messages:
                        target = bot_messages[len(arg) % len(bot_messages)]
                        buttons = [d for row in fake.buttons(target) for _, d in row]
                        # Real buttons (maybe someone else's) or forged data.
                        chosen = buttons[len(data) % len(buttons)] if buttons and flag else data
                        taps.append(fake.tap(user, target, chosen, chat_id=chat_id))
                elif kind == "edit":
                    fake.enqueue_update({"edited_message": {
                        **message_payload(fake, user, group if in_group else
                                          {"id": uid, "type": "private"}, command),
                        "edit_date": 1_700_000_100}})
                elif kind == "channel":
                    fake.enqueue_update({"channel_post": {
                        "message_id": 1, "date": 1_700_000_000, "text": command,
                        "chat": {"id": -1009999, "type": "channel", "title": "News"}}})
                elif kind in ("sticker", "photo", "document", "forward", "anonymous"):
                    payload = message_payload(fake, user, {"id": uid, "type": "private"}, "")
                    payload.pop("text")
                    if kind == "sticker":
                        payload["sticker"] = {"file_id": "s1", "file_unique_id": "s1",
                                              "type": "regular", "width": 512, "height": 512,
                                              "is_animated": False, "is_video": False}
                    elif kind == "photo":
                        payload["photo"] = [{"file_id": "p1", "file_unique_id": "p1",
                                             "width": 10, "height": 10}]
                    elif kind == "document":
                        payload["document"] = {"file_id": "d1", "file_unique_id": "d1",
                                               "file_name": "x.pdf", "file_size": 10 ** 8}
                    elif kind == "forward":
                        payload["text"] = command
                        payload["forward_origin"] = {"type": "hidden_user", "date": 1,
                                                     "sender_user_name": "Someone"}
                    else:
                        payload = {**payload, "chat": group, "text": command}
                        payload.pop("from")
                        payload["sender_chat"] = group
                    fake.enqueue_update({"message": payload})
                # Let the bot answer now and then, so later taps find its buttons.
                await asyncio.sleep(0.01)
            t1 = asyncio.get_running_loop().time()
            for tap_id in taps:
                await fake.wait_answer(tap_id, timeout=15)
            t2 = asyncio.get_running_loop().time()
            await fake.wait_until(lambda: not fake.updates, timeout=15)
            print(f"timing: send {t1 - t0:.1f} taps {t2 - t1:.1f} drain "
                  f"{asyncio.get_running_loop().time() - t2:.1f}")
            await asyncio.sleep(0.3)
        finally:
            await runner.stop()
            logging.getLogger("bot.errors").removeHandler(handler)
            await fake.stop()
        assert not errors, [r.getMessage() for r in errors][:3]
        print(f"fuzz: {len(batch)} updates, {len(taps)} taps, {len(fake.calls)} API calls")
        assert fake.violations == [], fake.violations[:5]
        with sqlite3.connect(Path(tmp) / "coach.sqlite3") as conn:
            rows = conn.execute("SELECT user_id, chat_id FROM answers").fetchall()
        # In a private chat only its owner can answer; nobody writes another user's data.
        assert all(user_id == chat_id for user_id, chat_id in rows if chat_id > 0)


# Four batches of 80-150 updates: every kind of action, in both chats, by every user, several
# times over in each batch. The long run below has 40 batches of 200-400.
@settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(actions(), min_size=80, max_size=150))
def test_random_updates_never_break_the_bot(batch):
    asyncio.run(run_batch(batch))


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(actions(), min_size=200, max_size=400))
def test_random_updates_never_break_the_bot_long(batch):
    asyncio.run(run_batch(batch))
