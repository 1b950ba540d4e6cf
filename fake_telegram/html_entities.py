"""Telegram's HTML parse mode: bot HTML to plain text plus MessageEntity dicts, and back.
The parser follows tdlib's `parse_html` (the code behind the Bot API), so errors carry its wording.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Entity = dict[str, Any]

SUPPORTED_TAGS = frozenset(
    {
        "a", "b", "i", "s", "u", "em", "pre", "del", "ins", "code", "span",
        "strong", "strike", "tg-spoiler", "tg-emoji", "tg-time", "blockquote",
    }
)  # fmt: skip
_SIMPLE_TYPES = {
    "b": "bold",
    "strong": "bold",
    "i": "italic",
    "em": "italic",
    "u": "underline",
    "ins": "underline",
    "s": "strikethrough",
    "strike": "strikethrough",
    "del": "strikethrough",
    "tg-spoiler": "spoiler",
    "span": "spoiler",
}
_NAMED_ENTITIES = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}
# tdlib's is_space: what separates tag names and attributes.
_SPACES = frozenset(" \t\r\n\v\f")
# Telegram trims these from both ends of a message after parsing.
_TRIM = " \t\r\n\v\f"
_URL_SCHEMES = frozenset({"http", "https", "tg", "ton", "tonsite"})
# Entities that can't contain other entities (Bot API "Formatting options").
_OPAQUE = frozenset({"code", "pre"})
_BLOCKQUOTES = frozenset({"blockquote", "expandable_blockquote"})


class EntityParseError(ValueError):
    """The HTML can't be parsed; the message is what Telegram puts after "can't parse entities: "."""


def utf16_len(text: str) -> int:
    """Length in UTF-16 code units, the unit of Telegram's offsets and limits."""
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


@dataclass
class _OpenTag:
    name: str
    argument: Any
    utf16_start: int
    char_start: int


@dataclass
class _Parser:
    text: str
    strict_ampersand: bool
    resolve_user: Callable[[int], dict[str, Any] | None] | None
    out: list[str] = field(default_factory=list)
    utf16: int = 0
    stack: list[_OpenTag] = field(default_factory=list)
    entities: list[Entity] = field(default_factory=list)

    def at(self, i: int) -> str:
        # tdlib reads a NUL-terminated string; "" plays the NUL here.
        return self.text[i] if i < len(self.text) else ""

    def byte_offset(self, i: int) -> int:
        return len(self.text[:i].encode("utf-8"))

    def decode_entity(self, i: int) -> tuple[str, int] | None:
        """Decode the character reference at text[i] == "&" into (char, next index), like tdlib."""
        end = i + 1
        if self.at(end) == "#":
            end += 1
            value = 0
            if self.at(end) == "x":
                end += 1
                digits = re.match(r"[0-9a-fA-F]*", self.text[end:]).group()  # type: ignore[union-attr]
                value = int(digits, 16) if digits else 0
            else:
                digits = re.match(r"[0-9]*", self.text[end:]).group()  # type: ignore[union-attr]
                value = int(digits) if digits else 0
            end += len(digits)
            if value == 0 or value >= 0x10FFFF or end - i >= 10 or 0xD800 <= value <= 0xDFFF:
                return None
            char = chr(value)
        else:
            name = re.match(r"[A-Za-z]*", self.text[end:]).group()  # type: ignore[union-attr]
            if name not in _NAMED_ENTITIES:
                return None
            end += len(name)
            char = _NAMED_ENTITIES[name]
        if self.at(end) == ";":
            end += 1
        return char, end

    def bare_ampersand(self, i: int) -> None:
        if self.strict_ampersand:
            # Stricter than Telegram, which keeps such a "&" as is: it flags unescaped user text.
            raise EntityParseError(
                f'Character "&" is not part of a supported entity and must be escaped as "&amp;" '
                f"at byte offset {self.byte_offset(i)}"
            )

    def parse(self) -> tuple[str, list[Entity]]:
        i = 0
        n = len(self.text)
        while i < n:
            ch = self.text[i]
            if ch == "&":
                decoded = self.decode_entity(i)
                if decoded is not None:
                    self.append(decoded[0])
                    i = decoded[1]
                    continue
                self.bare_ampersand(i)
            if ch != "<":
                self.append(ch)
                i += 1
                continue
            i = self.close_tag(i) if self.at(i + 1) == "/" else self.open_tag(i)
        if self.stack:
            raise EntityParseError(
                f'Can\'t find end tag corresponding to start tag "{self.stack[-1].name}"'
            )
        return "".join(self.out), self.entities

    def append(self, chars: str) -> None:
        self.out.append(chars)
        self.utf16 += utf16_len(chars)

    def skip_spaces(self, i: int) -> int:
        while self.at(i) in _SPACES and self.at(i) != "":
            i += 1
        return i

    def open_tag(self, begin: int) -> int:
        i = begin + 1
        while self.at(i) not in _SPACES and self.at(i) not in (">", ""):
            i += 1
        if self.at(i) == "":
            raise EntityParseError(f"Unclosed start tag at byte offset {self.byte_offset(begin)}")
        tag = self.text[begin + 1 : i].lower()
        where = f"at byte offset {self.byte_offset(begin)}"
        if tag not in SUPPORTED_TAGS:
            raise EntityParseError(f'Unsupported start tag "{tag}" {where}')
        argument: Any = "" if tag != "tg-time" else {}
        while self.at(i) != ">":
            i = self.skip_spaces(i)
            if self.at(i) == ">":
                break
            if self.at(i) == "":
                raise EntityParseError(f'Unclosed start tag "{tag}" {where}')
            name_begin = i
            while self.at(i) not in _SPACES and self.at(i) not in ("=", ">", ""):
                i += 1
            attribute = self.text[name_begin:i].lower()
            if not attribute:
                raise EntityParseError(f'Empty attribute name in the tag "{tag}" {where}')
            i = self.skip_spaces(i)
            if self.at(i) != "=":
                if tag == "blockquote" and attribute == "expandable":
                    argument = "1"
                    continue
                if self.at(i) == "":
                    raise EntityParseError(f'Unclosed start tag "{tag}" {where}')
                raise EntityParseError(
                    f'Expected equal sign in declaration of an attribute of the tag "{tag}" {where}'
                )
            i = self.skip_spaces(i + 1)
            if self.at(i) == "":
                raise EntityParseError(f'Unclosed start tag "{tag}" {where}')
            value, i = self.attribute_value(i)
            if self.at(i) == "":
                raise EntityParseError(f"Unclosed start tag {where}")
            argument = _tag_argument(tag, attribute, value, argument)
        if tag == "span" and argument != "spoiler":
            raise EntityParseError(f'Tag "span" must have class "tg-spoiler" {where}')
        if tag == "tg-emoji" and not re.fullmatch(r"[0-9]{1,20}", str(argument)):
            raise EntityParseError(f"Invalid custom emoji identifier specified {where}")
        if tag == "tg-time" and not re.fullmatch(r"-?[0-9]{1,20}", str(argument.get("unix", ""))):
            raise EntityParseError(f'Tag "tg-time" must have a valid attribute "unix" {where}')
        self.stack.append(_OpenTag(tag, argument, self.utf16, len(self.out)))
        return i + 1

    def attribute_value(self, i: int) -> tuple[str, int]:
        quote = self.at(i)
        if quote not in ("'", '"'):
            # An unquoted name token: letters, digits, periods and hyphens, case-insensitive.
            begin = i
            while self.at(i).isalnum() or self.at(i) in (".", "-"):
                i += 1
            if self.at(i) not in _SPACES and self.at(i) != ">":
                raise EntityParseError(
                    f"Unexpected end of name token at byte offset {self.byte_offset(begin)}"
                )
            return self.text[begin:i].lower(), i
        i += 1
        chars: list[str] = []
        while self.at(i) not in (quote, ""):
            if self.at(i) == "&":
                decoded = self.decode_entity(i)
                if decoded is not None:
                    chars.append(decoded[0])
                    i = decoded[1]
                    continue
                self.bare_ampersand(i)
            chars.append(self.text[i])
            i += 1
        if self.at(i) == quote:
            i += 1
        return "".join(chars), i

    def close_tag(self, begin: int) -> int:
        where = f"at byte offset {self.byte_offset(begin)}"
        if not self.stack:
            raise EntityParseError(f"Unexpected end tag {where}")
        i = begin + 2
        while self.at(i) not in _SPACES and self.at(i) not in (">", ""):
            i += 1
        end_name = self.text[begin + 2 : i].lower()
        i = self.skip_spaces(i)
        if self.at(i) != ">":
            raise EntityParseError(f"Unclosed end tag {where}")
        top = self.stack[-1]
        if end_name and end_name != top.name:
            raise EntityParseError(
                f'Unmatched end tag {where}, expected "</{top.name}>", found "</{end_name}>"'
            )
        self.stack.pop()
        if self.utf16 > top.utf16_start:
            self.add_entity(top)
        return i + 1

    def add_entity(self, top: _OpenTag) -> None:
        offset = top.utf16_start
        length = self.utf16 - offset
        base: Entity = {"offset": offset, "length": length}
        tag, argument = top.name, top.argument
        if tag in _SIMPLE_TYPES:
            self.entities.append({"type": _SIMPLE_TYPES[tag], **base})
        elif tag == "tg-emoji":
            self.entities.append({"type": "custom_emoji", **base, "custom_emoji_id": argument})
        elif tag == "tg-time":
            entity = {"type": "date_time", **base, "unix_time": int(argument["unix"])}
            if argument.get("format"):
                entity["date_time_format"] = argument["format"]
            self.entities.append(entity)
        elif tag == "a":
            url = argument or "".join(self.out[top.char_start :])
            self.add_link(base, url)
        elif tag == "pre":
            last = self.entities[-1] if self.entities else None
            if last and last["type"] == "code" and last.get("language") and _same(last, base):
                last["type"] = "pre"
            else:
                self.entities.append({"type": "pre", **base})
        elif tag == "code":
            last = self.entities[-1] if self.entities else None
            if last and last["type"] == "pre" and argument and _same(last, base):
                last["language"] = argument
            else:
                entity = {"type": "code", **base}
                if argument:
                    # Kept until the enclosing <pre> closes; plain <code> has no language.
                    entity["language"] = argument
                self.entities.append(entity)
        elif tag == "blockquote":
            kind = "expandable_blockquote" if argument else "blockquote"
            self.entities.append({"type": kind, **base})

    def add_link(self, base: Entity, url: str) -> None:
        match = re.fullmatch(r"tg://user\?id=([0-9]{1,20})", url.strip())
        if match:
            user_id = int(match.group(1))
            user = self.resolve_user(user_id) if self.resolve_user else None
            user = user or {"id": user_id, "is_bot": False, "first_name": "User"}
            self.entities.append({"type": "text_mention", **base, "user": user})
            return
        checked = check_link(url)
        if checked is not None:  # Telegram silently drops links it can't accept
            self.entities.append({"type": "text_link", **base, "url": checked})


def _same(a: Entity, b: Entity) -> bool:
    return a["offset"] == b["offset"] and a["length"] == b["length"]


def _tag_argument(tag: str, attribute: str, value: str, current: Any) -> Any:
    if tag == "a" and attribute == "href":
        return value
    if tag == "code" and attribute == "class" and value.startswith("language-"):
        return value[len("language-") :]
    if tag == "span" and attribute == "class" and value.startswith("tg-"):
        return value[len("tg-") :]
    if tag == "tg-emoji" and attribute == "emoji-id":
        return value
    if tag == "blockquote" and attribute == "expandable":
        return "1"
    if tag == "tg-time" and attribute in ("unix", "format"):
        return {**current, attribute: value}
    return current  # tdlib ignores other attributes


def check_link(url: str) -> str | None:
    """Normalize a link like Telegram does ("example.com" -> "http://example.com/"), or None."""
    url = url.strip()
    if not url or any(ch.isspace() for ch in url):
        return None
    match = re.fullmatch(r"([A-Za-z][A-Za-z0-9+.-]*)://(.*)", url)
    if match:
        scheme, rest = match.group(1).lower(), match.group(2)
        if scheme not in _URL_SCHEMES or not rest:
            return None
    elif re.fullmatch(r"[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+(:[0-9]+)?([/?#].*)?", url):
        scheme, rest = "http", url
    else:
        return None
    if scheme in ("http", "https") and not re.search(r"[/?#]", rest):
        rest += "/"
    return f"{scheme}://{rest}"


def _cleanup(text: str, entities: list[Entity]) -> tuple[str, list[Entity]]:
    """Apply Telegram's post-processing: nesting rules, trimming and entity order."""
    kept: list[Entity] = []
    # Outer entities first (a <pre> before a <code> of the same range), so the outer one wins.
    for entity in sorted(entities, key=lambda e: (e["offset"], -e["length"], e["type"] != "pre")):
        if entity["type"] == "code":
            entity.pop("language", None)
        inside_opaque = any(o["type"] in _OPAQUE and _contains(o, entity) for o in kept)
        nested_quote = entity["type"] in _BLOCKQUOTES and any(
            o["type"] in _BLOCKQUOTES and _contains(o, entity) for o in kept
        )
        if not inside_opaque and not nested_quote:
            kept.append(entity)
    stripped = text.strip(_TRIM)
    if stripped != text:
        lead = utf16_len(text[: len(text) - len(text.lstrip(_TRIM))])
        size = utf16_len(stripped)
        trimmed: list[Entity] = []
        for entity in kept:
            start = max(entity["offset"] - lead, 0)
            end = min(entity["offset"] + entity["length"] - lead, size)
            if end > start:
                trimmed.append({**entity, "offset": start, "length": end - start})
        kept = trimmed
    kept.sort(key=lambda e: (e["offset"], -e["length"]))
    return stripped, kept


def _contains(outer: Entity, inner: Entity) -> bool:
    return (
        outer["offset"] <= inner["offset"]
        and inner["offset"] + inner["length"] <= outer["offset"] + outer["length"]
    )


def parse_html(
    text: str,
    *,
    strict_ampersand: bool = True,
    resolve_user: Callable[[int], dict[str, Any] | None] | None = None,
) -> tuple[str, list[Entity]]:
    """Parse Telegram HTML into (plain text, entities); raises EntityParseError like Telegram."""
    parser = _Parser(text, strict_ampersand, resolve_user)
    plain, entities = parser.parse()
    return _cleanup(plain, entities)


def normalize(text: str, entities: list[Entity]) -> tuple[str, list[Entity]]:
    """Text with explicit entities, trimmed and cleaned up as Telegram does after parsing."""
    return _cleanup(text, [dict(e) for e in entities])


_OPEN_TAGS: dict[str, Callable[[Entity], str]] = {
    "bold": lambda e: "<b>",
    "italic": lambda e: "<i>",
    "underline": lambda e: "<u>",
    "strikethrough": lambda e: "<s>",
    "spoiler": lambda e: "<tg-spoiler>",
    "code": lambda e: "<code>",
    "pre": lambda e: (
        f'<pre><code class="language-{html.escape(e["language"])}">'
        if e.get("language")
        else "<pre>"
    ),
    "text_link": lambda e: f'<a href="{html.escape(e["url"])}">',
    "text_mention": lambda e: f'<a href="tg://user?id={e["user"]["id"]}">',
    "custom_emoji": lambda e: f'<tg-emoji emoji-id="{html.escape(e["custom_emoji_id"])}">',
    "blockquote": lambda e: "<blockquote>",
    "expandable_blockquote": lambda e: "<blockquote expandable>",
    "date_time": lambda e: f'<tg-time unix="{e["unix_time"]}">',
}
_CLOSE_TAGS = {
    "bold": "</b>",
    "italic": "</i>",
    "underline": "</u>",
    "strikethrough": "</s>",
    "spoiler": "</tg-spoiler>",
    "code": "</code>",
    "text_link": "</a>",
    "text_mention": "</a>",
    "custom_emoji": "</tg-emoji>",
    "blockquote": "</blockquote>",
    "expandable_blockquote": "</blockquote>",
    "date_time": "</tg-time>",
}


def _close_tag(entity: Entity) -> str:
    if entity["type"] == "pre":
        return "</code></pre>" if entity.get("language") else "</pre>"
    return _CLOSE_TAGS[entity["type"]]


def entities_to_html(text: str, entities: list[Entity] | None) -> str:
    """Render text + entities as Telegram HTML (for display); overlapping entities are split."""
    styled = sorted(
        (e for e in entities or [] if e.get("type") in _OPEN_TAGS and e.get("length", 0) > 0),
        key=lambda e: (e["offset"], -e["length"]),
    )
    parts: list[str] = []
    stack: list[Entity] = []
    pending = list(styled)
    pos = 0
    for ch in [*text, ""]:
        # Close what ends here, reopening anything that was opened inside it and still runs.
        while any(e["offset"] + e["length"] <= pos for e in stack):
            reopen: list[Entity] = []
            while stack:
                top = stack.pop()
                parts.append(_close_tag(top))
                if top["offset"] + top["length"] <= pos:
                    break
                reopen.append(top)
            for entity in reversed(reopen):
                parts.append(_OPEN_TAGS[entity["type"]](entity))
                stack.append(entity)
        while pending and pending[0]["offset"] <= pos:
            entity = pending.pop(0)
            parts.append(_OPEN_TAGS[entity["type"]](entity))
            stack.append(entity)
        if ch:
            parts.append(html.escape(ch, quote=False))
            pos += utf16_len(ch)
    while stack:  # entities running past the end of the text
        parts.append(_close_tag(stack.pop()))
    return "".join(parts)
