"""`python -m bot` fails fast and clearly on bad settings or a bad bank, never with a traceback."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_bot(tmp_path, **env):
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("BOT_", "QUESTIONS_"))}
    clean.update(env)
    clean["PYTHONPATH"] = str(ROOT)
    # Run from an empty folder so no .env of the developer's is read.
    return subprocess.run([sys.executable, "-m", "bot"], cwd=tmp_path, env=clean,
                          capture_output=True, text=True, timeout=60)


def test_missing_token_exits_2_with_one_sentence(tmp_path):
    result = run_bot(tmp_path)
    assert result.returncode == 2
    assert "@BotFather" in result.stderr and "Traceback" not in result.stderr


def test_malformed_token_is_not_echoed(tmp_path):
    result = run_bot(tmp_path, BOT_TOKEN="12345:short-secret-value")
    assert result.returncode == 2
    assert "short-secret-value" not in result.stderr + result.stdout


def test_invalid_bank_is_refused_with_its_problems(tmp_path):
    bank = tmp_path / "bank"
    bank.mkdir()
    (bank / "x.yaml").write_text("field: a\ntopic: b\nquestions:\n  - id: q1\n    seniority: x\n")
    result = run_bot(tmp_path, BOT_TOKEN="123456:TEST-TOKEN-abcdefghijklmnopqrstu",
                     QUESTIONS_DIR=str(bank), DATABASE_PATH=str(tmp_path / "d.sqlite3"))
    assert result.returncode == 1
    assert "x.yaml: question q1" in result.stderr and "Traceback" not in result.stderr


def test_missing_token_start_imports_no_chart_library_fake_server_or_web_server(tmp_path):
    """Matplotlib loads with the first chart, fake_telegram only for `play`, aiohttp's web
    server only in webhook mode, asyncpg only with PostgreSQL."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("BOT_", "QUESTIONS_"))}
    clean["PYTHONPATH"] = str(ROOT)
    result = subprocess.run([sys.executable, "-X", "importtime", "-m", "bot"], cwd=tmp_path,
                            env=clean, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and "@BotFather" in result.stderr
    imported = {line.rsplit("|", 1)[1].strip() for line in result.stderr.splitlines()
                if line.startswith("import time:") and "|" in line}
    assert "bot.cli" in imported  # the trace is there
    heavy = sorted(name for name in imported
                   if name.split(".")[0] in ("matplotlib", "fake_telegram", "asyncpg")
                   or name == "aiohttp.web" or name.startswith("aiohttp.web_"))
    assert heavy == []
