"""The playground's set-up: its pretend users and group, and settings that ignore the real bot's."""

from pathlib import Path

from bot.cli import parse_args
from fake_telegram import FakeTelegram, playground


def test_the_cast_and_their_group():
    fake = FakeTelegram(use_spec=False)
    ada, ayse, bob = playground.cast(fake)
    assert [(u.first_name, u.language_code) for u in (ada, ayse, bob)] == [
        ("Ada", "en"), ("Ayşe", "tr"), ("Bob", "en")]
    group = fake.chats[playground.GROUP_ID]
    assert group.chat["type"] == "supergroup"
    assert group.members == {fake.me.id: "member", ada.id: "creator", ayse.id: "member",
                             bob.id: "member"}


def test_settings_use_the_emulator_and_our_database_whatever_the_environment(monkeypatch,
                                                                            tmp_path: Path):
    monkeypatch.setenv("BOT_TOKEN", "999999:REAL-TOKEN-abcdefghijklmnopqrstu")
    monkeypatch.setenv("DATABASE_PATH", str(tmp_path / "production.sqlite3"))
    monkeypatch.setenv("WEBHOOK_URL", "https://example.org/hook")
    monkeypatch.setenv("ADMIN_IDS", "42")
    monkeypatch.chdir(tmp_path)  # no .env of the developer's
    fake = FakeTelegram(use_spec=False, port=8765)
    settings = playground.play_settings(fake, tmp_path / "play.sqlite3", None,
                                        frozenset({1001}))
    assert settings.bot_token.get_secret_value() == fake.token
    assert settings.bot_api_base_url == "http://127.0.0.1:8765/bot"
    assert settings.database_path == tmp_path / "play.sqlite3"
    assert settings.webhook_url is None
    assert settings.admin_ids == {42, 1001}


def test_play_is_a_subcommand_and_no_arguments_still_run_the_bot():
    args = parse_args(["play", "--port", "0", "--db", "x.sqlite3", "--no-browser"])
    assert (args.command, args.port, args.db, args.no_browser) == ("play", 0, Path("x.sqlite3"),
                                                                   True)
    assert parse_args([]).command is None
