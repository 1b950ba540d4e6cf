"""Settings from the environment or a `.env` file; built once in `python -m bot` and passed in."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

BUNDLED_BANK = Path(__file__).resolve().parent.parent / "questions" / "bank"
TOKEN_PATTERN = re.compile(r"^\d{3,}:[A-Za-z0-9_-]{20,}$")


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore",
                                      hide_input_in_errors=True)

    bot_token: SecretStr
    bot_api_base_url: str = "https://api.telegram.org/bot"
    bot_api_base_file_url: str | None = None
    database_path: Path = Path("data/coach.sqlite3")
    # postgresql://user:pass@host:port/db selects PostgreSQL instead of the SQLite file, for
    # several instances on one database server (docs/scaling.md). Secret: it holds a password.
    database_url: SecretStr | None = None
    questions_dir: Path = BUNDLED_BANK
    # Where the validated bank and the job-ad matcher are cached between starts (a restart with
    # unchanged packs skips re-validating them). Default: `cache/` beside the database.
    cache_dir: Path | None = None
    default_language: Literal["en", "tr"] = "en"
    admin_ids: Annotated[frozenset[int], NoDecode] = frozenset()
    log_level: str = "INFO"
    # Group rounds: tests shorten the minimum question time and the pause between questions.
    round_min_seconds: int = Field(default=10, ge=1)
    # How often the reminder job looks for due reminders (tests make it short).
    reminder_tick_seconds: float = Field(default=20.0, gt=0, le=60)
    # Mock interviews: questions per interview (tests use a few, with a small bank).
    interview_questions: int = Field(default=20, ge=1, le=50)
    # Between a question's results and the next question: time to read the explanation.
    round_pause_seconds: float = Field(default=5.0, ge=0)
    # The countdown in a question is refreshed when the seconds left are a multiple of this
    # (0: never); a refresh is skipped when the group's send budget is tight.
    round_tick_seconds: int = Field(default=10, ge=0)
    # A round's own sends and edits per minute in one group (Telegram allows 20); the rest is
    # left for commands and other features.
    round_sends_per_minute: int = Field(default=15, ge=4, le=20)
    # Several instances on PostgreSQL: how long a claim on a timer or a group's round lasts. When
    # an instance dies, another takes over its rounds within about this time.
    instance_lease_seconds: float = Field(default=15.0, ge=1, le=600)
    # Webhook mode (polling when WEBHOOK_URL is empty).
    webhook_url: str | None = None
    webhook_listen: str = "127.0.0.1"
    webhook_port: int = 8443
    webhook_secret: SecretStr | None = None

    @field_validator("bot_token")
    @classmethod
    def _token_shape(cls, value: SecretStr) -> SecretStr:
        if not TOKEN_PATTERN.match(value.get_secret_value().strip()):
            # Never echo the value: it may be a real token with a typo.
            raise ValueError("BOT_TOKEN does not look like a token from @BotFather")
        return SecretStr(value.get_secret_value().strip())

    @field_validator("admin_ids", mode="before")
    @classmethod
    def _split_ids(cls, value: object) -> object:
        if isinstance(value, str):
            parts = [p for p in re.split(r"[,\s]+", value.strip()) if p]
            return frozenset(int(p) for p in parts)
        if isinstance(value, int):
            return frozenset({value})
        return value

    @field_validator("database_url")
    @classmethod
    def _postgres_url(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and value.get_secret_value() and not value.get_secret_value(
                ).startswith(("postgresql://", "postgres://")):
            # Never echo the value: it holds a password.
            raise ValueError("DATABASE_URL must start with postgresql:// (SQLite takes "
                             "DATABASE_PATH instead)")
        return value

    @field_validator("log_level")
    @classmethod
    def _level(cls, value: str) -> str:
        level = value.upper()
        if level not in {"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"}:
            raise ValueError("LOG_LEVEL must be DEBUG, INFO, WARNING, ERROR or CRITICAL")
        return level

    @property
    def file_base_url(self) -> str:
        if self.bot_api_base_file_url:
            return self.bot_api_base_file_url
        return self.bot_api_base_url.replace("/bot", "/file/bot", 1)

    @property
    def database_target(self) -> str | Path:
        """What storage.db.Database.open takes: the PostgreSQL URL, else the SQLite path."""
        if self.database_url is not None and self.database_url.get_secret_value():
            return self.database_url.get_secret_value()
        return self.database_path

    @property
    def cache_folder(self) -> Path:
        return self.cache_dir or self.database_path.parent / "cache"
