"""`.env.example` names every setting (internal test knobs excepted)."""

from pathlib import Path

from bot.settings import Settings

INTERNAL = {"round_min_seconds", "bot_api_base_file_url"}


def test_env_example_lists_every_setting():
    text = (Path(__file__).resolve().parents[2] / ".env.example").read_text()
    names = {line.split("=")[0].lstrip("# ").strip() for line in text.splitlines() if "=" in line}
    missing = {f.upper() for f in Settings.model_fields if f not in INTERNAL} - names
    assert not missing, f"add to .env.example: {sorted(missing)}"
