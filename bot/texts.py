"""The message catalog: every user-facing text in English and Turkish, rendered as Telegram HTML.

Catalog files live in `bot/locales/<feature>.yaml`, keyed by text id, each with `en` and `tr`.
Arguments are HTML-escaped unless wrapped in `Html` (already-rendered markup). An argument
called `name` is a name someone chose (a user's first name, an uploaded file's name): it is
isolated with U+2068 ... U+2069, so a right-to-left override in it cannot reorder the rest of
its line (a scoreboard line, a greeting).
"""

from __future__ import annotations

import html
import string
from pathlib import Path

import yaml

LOCALES = Path(__file__).resolve().parent / "locales"
LANGUAGES = ("en", "tr")
FIRST_STRONG_ISOLATE, POP_DIRECTIONAL_ISOLATE = "\u2068", "\u2069"
ISOLATED_ARGUMENTS = frozenset({"name"})


class Html(str):
    """A string that is already valid Telegram HTML and must not be escaped again."""


class CatalogError(ValueError):
    pass


def isolate(name: str) -> str:
    """`name` as a bidi island: its direction marks end with it, whatever it holds."""
    return f"{FIRST_STRONG_ISOLATE}{name}{POP_DIRECTIONAL_ISOLATE}"


def placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


class Texts:
    def __init__(self, catalog: dict[str, dict[str, str]]) -> None:
        self.catalog = catalog

    @classmethod
    def load(cls, folder: Path = LOCALES) -> Texts:
        catalog: dict[str, dict[str, str]] = {}
        for path in sorted(folder.glob("*.yaml")):
            data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
            for key, entry in data.items():
                if key in catalog:
                    raise CatalogError(f"{path.name}: text id {key!r} is defined twice")
                if not isinstance(entry, dict) or set(entry) != set(LANGUAGES):
                    raise CatalogError(f"{path.name}: {key!r} needs exactly en and tr")
                if placeholders(entry["en"]) != placeholders(entry["tr"]):
                    raise CatalogError(f"{path.name}: {key!r} has different arguments in en and tr")
                catalog[key] = {lang: str(entry[lang]).rstrip("\n") for lang in LANGUAGES}
        return cls(catalog)

    def t(self, lang: str, key: str, /, **args: object) -> str:
        """The text `key` in `lang` (English when `lang` is unknown), arguments escaped."""
        entry = self.catalog[key]
        template = entry.get(lang) or entry["en"]
        if not args:
            return template
        safe = {name: value if isinstance(value, Html) else html.escape(str(value), quote=False)
                for name, value in args.items()}
        for name in ISOLATED_ARGUMENTS & safe.keys():
            safe[name] = isolate(safe[name])
        return template.format(**safe)

    def both(self, key: str, /, **args: object) -> dict[str, str]:
        return {lang: self.t(lang, key, **args) for lang in LANGUAGES}
