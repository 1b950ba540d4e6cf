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


async def start_bot_process(fake, tmp_path: Path, **env: str) -> asyncio.subprocess.Process:
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("BOT_", "WEBHOOK_"))}
    environment.update({
        "BOT_TOKEN": fake.token, "BOT_API_BASE_URL": fake.base_url,
        "BOT_API_BASE_FILE_URL": fake.base_file_url, "QUESTIONS_DIR": str(TEST_BANK),
        "DATABASE_PATH": str(tmp_path / "coach.sqlite3"), "PYTHONPATH": str(ROOT),
        "LOG_LEVEL": "DEBUG", **env,
    })
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", cwd=tmp_path, env=environment,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)


async def test_a_whole_session_with_the_real_process(fake, tmp_path):
    process = await start_bot_process(fake, tmp_path)
    try:
        await fake.wait_for_call("getUpdates", 1, timeout=30)
        ada = fake.user(2001, "Ada")
        _, _, field_msg = await say(fake, ada, "/start", expect=3)
        _, [level_msg] = await tap(fake, ada, field_msg, button(fake, field_msg, "Backend"), expect=1)
        await tap(fake, ada, level_msg, button(fake, level_msg, "Mid"), expect=1)
        [question] = await say(fake, ada, "/quiz")
        answer, _ = await tap(fake, ada, question, fake.buttons(question)[0][0][1], expect=1)
        assert answer["text"][0] in "✅❌"
        [stats] = await say(fake, ada, "/stats")
        assert "Answered: 1" in stats["text"]
    finally:
        process.send_signal(signal.SIGTERM)
        output, _ = await asyncio.wait_for(process.communicate(), timeout=15)
    log = output.decode()
    assert process.returncode == 0, log[-2000:]
    # Even at DEBUG, neither the token nor what the user typed reaches the log.
    assert fake.token not in log
    assert fake.token.split(":")[1] not in log
    assert fake.violations == []
