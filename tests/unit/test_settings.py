"""Settings are built from the environment and validated; the token is never echoed."""

import pytest
from pydantic import ValidationError

from bot.settings import Settings
from tests.conftest import TEST_TOKEN


def test_defaults_and_lists(monkeypatch):
    monkeypatch.setenv("ADMIN_IDS", "12, 34 56")
    settings = Settings(bot_token=TEST_TOKEN, _env_file=None)
    assert settings.admin_ids == frozenset({12, 34, 56})
    assert settings.bot_api_base_url == "https://api.telegram.org/bot"
    assert settings.file_base_url == "https://api.telegram.org/file/bot"
    assert settings.default_language == "en"


def test_bad_values_are_refused_without_echoing_the_token():
    with pytest.raises(ValidationError) as err:
        Settings(bot_token="999:not-a-real-token", _env_file=None)
    assert "not-a-real-token" not in str(err.value)
    with pytest.raises(ValidationError):
        Settings(bot_token=TEST_TOKEN, default_language="de", _env_file=None)
    with pytest.raises(ValidationError):
        Settings(bot_token=TEST_TOKEN, log_level="LOUD", _env_file=None)
