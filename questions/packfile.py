"""Writes question packs as readable YAML (block scalars for multi-line text) and swaps files in
atomically, so a reader never sees half a pack.

The emitter is hand-written for the pack layout only: PyYAML's emitter takes ~6 s for a 30,000
question bank, this one a fraction of a second. Every string is either a literal block (`|-`),
a plain identifier, or a double-quoted scalar with YAML escapes, so any text loads back unchanged.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

# Order of a pack's top-level keys and of a question's keys, as in the bundled bank.
PACK_KEYS = ("field", "field_name", "topic", "specialization", "topic_name", "keywords")
QUESTION_KEYS = ("id", "seniority", "difficulty", "correct")
TEXT_KEYS = ("body", "options", "explanation")

# Plain (unquoted) only for identifiers that YAML 1.1 cannot read as a number, bool or null.
_PLAIN = re.compile(r"^[a-z][a-z0-9._-]*$")
_NOT_PLAIN = re.compile(r"^(y|n|yes|no|on|off|true|false|null)$")
# Characters YAML allows unescaped inside a double-quoted scalar or a literal block.
_PRINTABLE = re.compile(r"^[\t\n\x20-\x7e\xa0-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]*$")
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\0": "\\0", "\a": "\\a", "\b": "\\b", "\t": "\\t",
            "\n": "\\n", "\v": "\\v", "\f": "\\f", "\r": "\\r", "\x1b": "\\e", "\x85": "\\N",
            "\u2028": "\\L", "\u2029": "\\P"}
_NEEDS_ESCAPE = re.compile(r'[\\"\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]')


def quoted(text: str) -> str:
    """A double-quoted YAML scalar that reads back as exactly `text`."""
    def escape(match: re.Match[str]) -> str:
        char = match.group()
        if char in _ESCAPES:
            return _ESCAPES[char]
        code = ord(char)
        return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"
    return '"' + _NEEDS_ESCAPE.sub(escape, text) + '"'


def scalar(text: str) -> str:
    """A one-line scalar: plain for identifiers, double-quoted otherwise."""
    if _PLAIN.match(text) and not _NOT_PLAIN.match(text):
        return text
    return quoted(text)


def _literal_ok(content: str) -> bool:
    if "\n" not in content or not _PRINTABLE.match(content) or content.endswith("\n"):
        return False
    lines = content.split("\n")
    first = next((line for line in lines if line), " ")
    if first[0] in " \t":
        return False  # the block's indentation is read from its first line
    # A line of only spaces would be read back as an empty line.
    return not any(line and not line.strip(" \t") for line in lines)


def text_value(text: str, indent: int) -> str:
    """`key: <this>` for a text: a literal block for multi-line text, else one quoted line."""
    # `|-` drops the final line break, `|` keeps exactly one.
    content, style = (text[:-1], "|") if text.endswith("\n") else (text, "|-")
    if _literal_ok(content):
        pad = " " * indent
        return style + "\n" + "\n".join(pad + line if line else "" for line in content.split("\n"))
    return quoted(text)


def _flow(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_flow(v) for v in value) + "]"
    return quoted(str(value))


def pack_yaml(pack: dict[str, Any]) -> str:
    """A pack (plain data: field, topic, names, questions...) as YAML text."""
    out: list[str] = []
    for key in PACK_KEYS:
        value = pack.get(key)
        if value in (None, {}, []):
            continue
        if key == "keywords":
            out.append("keywords:")
            out.extend(f"  {lang}: {_flow(words)}" for lang, words in value.items() if words)
        elif isinstance(value, dict):
            out.append(f"{key}: {_flow(value)}")
        else:
            out.append(f"{key}: {scalar(str(value))}")
    questions = pack.get("questions") or []
    out.append("questions:" if questions else "questions: []")
    for question in questions:
        out.extend(_question_lines(question))
    return "\n".join(out) + "\n"


def _question_lines(question: dict[str, Any]) -> Iterable[str]:
    lead = "  - "
    for key in QUESTION_KEYS:
        value = question[key]
        yield f"{lead}{key}: {value if isinstance(value, int) else scalar(value)}"
        lead = "    "
    if question.get("shuffle") is False:
        yield "    shuffle: false"
    for lang in ("en", "tr"):
        text = question.get(lang)
        if not text:
            continue
        yield f"    {lang}:"
        yield f"      body: {text_value(text['body'], 8)}"
        yield "      options:"
        for key, option in text["options"].items():
            yield f"        {key}: {text_value(option, 10)}"
        yield f"      explanation: {text_value(text['explanation'], 8)}"


def write_files_atomically(contents: dict[Path, str]) -> None:
    """Write every file to a temporary sibling first, then rename them all into place.

    Nothing is replaced unless every temporary file was written; a reader sees either the old
    or the new version of each file, never a partial one.
    """
    staged: list[tuple[Path, str]] = []
    try:
        for path, text in contents.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
            staged.append((path, tmp))
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
            os.chmod(tmp, path.stat().st_mode & 0o777 if path.exists() else 0o644)
    except BaseException:
        for _, tmp in staged:
            Path(tmp).unlink(missing_ok=True)
        raise
    for path, tmp in staged:
        os.replace(tmp, path)
