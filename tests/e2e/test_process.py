"""The real `python -m bot` process against the fake Telegram: start, a whole session, SIGTERM."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

from tests.conftest import TEST_BANK
from tests.e2e.conftest import button, say, tap

ROOT = Path(__file__).resolve().parents[2]


async def start_bot_process(fake, tmp_path: Path, *, log_file: Path | None = None,
                            **env: str) -> asyncio.subprocess.Process:
    """The bot as a process; its log in a pipe (read it, or the bot blocks once the pipe is
    full) or, with `log_file`, in that file."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("BOT_", "WEBHOOK_"))}
    environment.update({
        "BOT_TOKEN": fake.token, "BOT_API_BASE_URL": fake.base_url,
        "BOT_API_BASE_FILE_URL": fake.base_file_url, "QUESTIONS_DIR": str(TEST_BANK),
        "DATABASE_PATH": str(tmp_path / "coach.sqlite3"), "PYTHONPATH": str(ROOT),
        "LOG_LEVEL": "DEBUG", **env,
    })
    if log_file is None:
        return await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", cwd=tmp_path, env=environment,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    with log_file.open("wb") as log:
        return await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", cwd=tmp_path, env=environment, stdout=log,
            stderr=asyncio.subprocess.STDOUT)


async def wait_polling(fake, after: int = 0) -> None:
    """Until the bot's next long poll has begun (a getUpdates call is recorded only when it
    returns, after its whole timeout when nothing is waiting)."""
    await fake.wait_until(lambda: fake.poll_generation > after, timeout=30)


async def test_a_whole_session_with_the_real_process(fake, tmp_path):
    process = await start_bot_process(fake, tmp_path)
    try:
        await wait_polling(fake)
        ada = fake.user(2001, "Ada")
        _, _, field_msg = await say(fake, ada, "/start", expect=3)
        _, [level_msg] = await tap(fake, ada, field_msg, button(fake, field_msg, "Backend"), expect=1)
        await tap(fake, ada, level_msg, button(fake, level_msg, "Mid"), expect=1)
        [question] = await say(fake, ada, "/quiz")
        answer, _ = await tap(fake, ada, question, fake.buttons(question)[0][0][1], expect=1)
        assert answer["text"][0] in "✅❌"
        [stats] = await say(fake, ada, "/stats")
        assert "Answered: 1" in stats["text"]
        fake.send_message(ada, "my private note zq4711xv about a job at Acme")
        await say(fake, ada, "/field <b>nosuch-field-9931</b>")
    finally:
        process.send_signal(signal.SIGTERM)
        output, _ = await asyncio.wait_for(process.communicate(), timeout=10)
    log = output.decode()
    assert process.returncode == 0, log[-2000:]
    # Even at DEBUG, neither the token nor what the user typed reaches the log.
    assert fake.token not in log
    assert fake.token.split(":")[1] not in log
    assert "zq4711xv" not in log and "nosuch-field-9931" not in log
    assert "route=/quiz user_id=2001" in log  # one line per update, ids only
    assert fake.violations == []


async def run_to_end(fake, tmp_path, *args: str, **env: str) -> tuple[int, str]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("BOT_", "WEBHOOK_"))}
    environment.update({
        "BOT_TOKEN": fake.token, "BOT_API_BASE_URL": fake.base_url,
        "QUESTIONS_DIR": str(TEST_BANK), "DATABASE_PATH": str(tmp_path / "coach.sqlite3"),
        "PYTHONPATH": str(ROOT), **env,
    })
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", *args, cwd=tmp_path, env=environment,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
    output, _ = await asyncio.wait_for(process.communicate(), timeout=30)
    return process.returncode, output.decode()


async def test_check_reports_settings_bank_and_database(fake, tmp_path):
    # Two processes at once: each mostly pays for its own start-up.
    (code, out), (bad_code, bad_out) = await asyncio.gather(
        run_to_end(fake, tmp_path, "--check"),
        run_to_end(fake, tmp_path, "--check", QUESTIONS_DIR=str(tmp_path)))
    assert code == 0 and "bank: OK (5 questions" in out and "does not exist yet" in out
    assert bad_code == 1 and "no question packs" in bad_out and bad_out.strip().endswith("FAILED")


async def test_a_database_from_a_newer_bot_is_refused(fake, tmp_path):
    import sqlite3

    with sqlite3.connect(tmp_path / "coach.sqlite3") as conn:
        conn.execute("PRAGMA user_version = 999")
    code, out = await run_to_end(fake, tmp_path, "--check")
    assert code == 1 and "newer than this bot" in out
    code, out = await run_to_end(fake, tmp_path)
    assert code == 1 and "newer than this bot knows" in out and "Traceback" not in out


async def test_webhook_mode_needs_a_secret(fake, tmp_path):
    code, out = await run_to_end(fake, tmp_path, WEBHOOK_URL="https://example.org/hook")
    assert code == 2 and "WEBHOOK_SECRET is required" in out


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def test_webhook_mode_end_to_end(fake, tmp_path):
    import httpx

    port = free_port()
    url = f"http://127.0.0.1:{port}/telegram-hook"
    process = await start_bot_process(fake, tmp_path, WEBHOOK_URL=url, WEBHOOK_PORT=str(port),
                                      WEBHOOK_LISTEN="127.0.0.1", WEBHOOK_SECRET="s3cret-value")
    try:
        await fake.wait_for_call("setWebhook", 1, timeout=30)
        ada = fake.user(2101, "Ada")
        [reply] = await say(fake, ada, "/help")
        assert "/quiz" in reply["text"]
        # Without the secret header the bot refuses the update and processes nothing.
        forged = {"update_id": 999999, "message": {
            "message_id": 1, "date": 0, "chat": {"id": 2101, "type": "private"},
            "from": {"id": 2101, "is_bot": False, "first_name": "Eve"}, "text": "/help",
            "entities": [{"type": "bot_command", "offset": 0, "length": 5}]}}
        before = len(fake.bot_messages(ada.id))
        async with httpx.AsyncClient() as client:
            response = await client.post(url, json=forged)
            wrong = await client.post(url, json=forged,
                                      headers={"X-Telegram-Bot-Api-Secret-Token": "nope"})
        assert response.status_code == 403 and wrong.status_code == 403
        await asyncio.sleep(0.5)
        assert len(fake.bot_messages(ada.id)) == before
        # SIGTERM: /readyz answers 503 at once, while the port stays open for the balancer to
        # notice; the second SIGTERM (below) cuts the rest of that grace short.
        base = f"http://127.0.0.1:{port}"
        async with httpx.AsyncClient() as client:
            ready = await client.get(f"{base}/readyz")
            assert (ready.status_code, ready.text) == (200, "ready")
            process.send_signal(signal.SIGTERM)
            for _ in range(100):
                draining = await client.get(f"{base}/readyz")
                if draining.status_code != 200:
                    break
                await asyncio.sleep(0.05)
            assert (draining.status_code, draining.text) == (503, "draining")
            assert (await client.get(f"{base}/healthz")).status_code == 200
    finally:
        process.send_signal(signal.SIGTERM)
        output, _ = await asyncio.wait_for(process.communicate(), timeout=10)
    assert process.returncode == 0, output.decode()[-2000:]
    assert "s3cret-value" not in output.decode()
    assert "draining" in output.decode()
    assert fake.calls_to("deleteWebhook") == []  # the other instances keep the webhook
