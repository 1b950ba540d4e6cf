"""Callback data: versioned, self-contained, at most 64 bytes; built and parsed only here.

Format: `v1:<kind>:<arg>:<arg>...`. Each feature owns a kind (one or two letters) and
registers its handler with `pattern(kind)`. Data that does not parse is an expired button.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

VERSION = "v1"
MAX_BYTES = 64
_ARG = re.compile(r"^[A-Za-z0-9_.+\-]*$")

# Kinds in use, so two features never pick the same letter.
LANGUAGE = "l"
FIELD = "f"
LEVEL = "v"
ANSWER = "a"
NEXT = "n"
REMINDER = "r"
TIMEZONE = "z"
INTERVIEW_ANSWER = "i"
INTERVIEW = "ix"  # stop, review my mistakes, new interview
REVIEW = "rv"
NOOP = "x"
DELETE_ME = "d"
JOBMATCH = "j"  # use / change / cancel a ranked job ad: j:<action>:<match id>[:<rank>]
JOBMATCH_FIELD = "jf"  # pick a field for a ranked job ad: jf:<match id>:<rank>
ROUND_ANSWER = "g"  # a letter on a group round question: round id, position, option


@dataclass(frozen=True)
class Callback:
    kind: str
    args: tuple[str, ...]

    def arg(self, index: int, default: str = "") -> str:
        return self.args[index] if index < len(self.args) else default


def encode(kind: str, *args: object) -> str:
    parts = [VERSION, kind, *(str(a) for a in args)]
    for part in parts[2:]:
        if not _ARG.match(part):
            raise ValueError(f"callback argument {part!r} has characters outside [A-Za-z0-9_.+-]")
    data = ":".join(parts)
    if len(data.encode()) > MAX_BYTES:
        raise ValueError(f"callback data over {MAX_BYTES} bytes: {data!r}")
    return data


def decode(data: str | None) -> Callback | None:
    """The parsed data, or None for anything this version of the bot did not make."""
    if not data or len(data.encode()) > MAX_BYTES:
        return None
    parts = data.split(":")
    if len(parts) < 2 or parts[0] != VERSION or not parts[1]:
        return None
    if not all(_ARG.match(p) for p in parts[2:]):
        return None
    return Callback(parts[1], tuple(parts[2:]))


def pattern(kind: str) -> str:
    """A CallbackQueryHandler pattern for one kind."""
    return rf"^{VERSION}:{re.escape(kind)}(:|$)"
