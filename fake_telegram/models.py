"""Plain data shared by the emulator's modules: users, recorded calls, files, errors and stats."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

JSON = dict[str, Any]


class ApiError(Exception):
    """A Bot API refusal, answered as {"ok": false, "error_code": ..., "description": ...}."""

    def __init__(
        self,
        error_code: int,
        description: str,
        *,
        retry_after: int | None = None,
        migrate_to_chat_id: int | None = None,
        injected: bool = False,
    ):
        super().__init__(description)
        self.error_code = error_code
        self.description = description
        self.retry_after = retry_after
        self.migrate_to_chat_id = migrate_to_chat_id
        # Faults a test asked for are not the bot's fault, so they are not violations.
        self.injected = injected

    def payload(self) -> JSON:
        body: JSON = {"ok": False, "error_code": self.error_code, "description": self.description}
        parameters: JSON = {}
        if self.retry_after is not None:
            parameters["retry_after"] = self.retry_after
        if self.migrate_to_chat_id is not None:
            parameters["migrate_to_chat_id"] = self.migrate_to_chat_id
        if parameters:
            body["parameters"] = parameters
        return body


def bad_request(description: str) -> ApiError:
    return ApiError(400, f"Bad Request: {description}")


@dataclass
class FakeUser:
    """A Telegram user the tests act as; `blocked` makes the bot's sends to them fail with 403."""

    id: int
    first_name: str
    language_code: str | None = "en"
    username: str | None = None
    blocked: bool = False
    last_name: str | None = None
    is_bot: bool = False
    is_premium: bool = False
    # Bots can't write first: a private chat opens when the user sends something.
    started: bool = False
    deactivated: bool = False

    def to_dict(self) -> JSON:
        user: JSON = {"id": self.id, "is_bot": self.is_bot, "first_name": self.first_name}
        if self.last_name:
            user["last_name"] = self.last_name
        if self.username:
            user["username"] = self.username
        if self.language_code and not self.is_bot:
            user["language_code"] = self.language_code
        if self.is_premium:
            user["is_premium"] = True
        return user

    def __hash__(self) -> int:  # usable as a key in fake.group(members={user: status})
        return hash(self.id)


@dataclass(frozen=True)
class UploadedFile:
    """A file part of a multipart request."""

    filename: str | None
    content_type: str | None
    data: bytes

    def __repr__(self) -> str:
        return f"UploadedFile({self.filename!r}, {self.content_type!r}, {len(self.data)} bytes)"


@dataclass
class StoredFile:
    """A file the fake server holds: uploaded by the bot or sent by a fake user."""

    file_id: str
    file_unique_id: str
    kind: str  # "photo", "document"
    data: bytes
    file_path: str
    file_name: str | None = None
    mime_type: str | None = None

    def as_file(self) -> JSON:
        return {
            "file_id": self.file_id,
            "file_unique_id": self.file_unique_id,
            "file_size": len(self.data),
            "file_path": self.file_path,
        }


@dataclass
class Call:
    """One Bot API call as the fake server saw it (`time` is time.monotonic())."""

    method: str
    params: JSON
    time: float
    chat_id: int | str | None
    ok: bool
    error: str | None = None
    error_code: int | None = None


@dataclass
class Stats:
    """Counters for assertions about load: calls, refusals, sends per chat over time."""

    calls: Counter[str] = field(default_factory=Counter)
    errors: Counter[int] = field(default_factory=Counter)
    too_many_requests: int = 0
    # Monotonic times of accepted sends and edits, per chat.
    sends: defaultdict[int | str, list[float]] = field(default_factory=lambda: defaultdict(list))
    # answerCallbackQuery latency (seconds from the tap), per query id.
    callback_latency: dict[str, float] = field(default_factory=dict)

    def max_per_minute(self, chat_id: int | str) -> int:
        """Most sends/edits to the chat within any 60-second window."""
        return _max_in_window(self.sends.get(chat_id, []), 60.0)

    def max_per_second(self) -> int:
        """Most sends/edits overall within any 1-second window."""
        return _max_in_window(sorted(t for times in self.sends.values() for t in times), 1.0)

    def per_minute(self, chat_id: int | str) -> list[int]:
        """Sends/edits to the chat per minute, counted from its first send."""
        times = self.sends.get(chat_id, [])
        if not times:
            return []
        buckets = [0] * (math.floor((times[-1] - times[0]) / 60.0) + 1)
        for t in times:
            buckets[math.floor((t - times[0]) / 60.0)] += 1
        return buckets


def _max_in_window(times: list[float], window: float) -> int:
    best = 0
    start = 0
    for end, t in enumerate(times):
        while t - times[start] >= window:
            start += 1
        best = max(best, end - start + 1)
    return best
