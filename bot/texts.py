"""The message catalog: every user-facing text in English and Turkish, rendered as Telegram HTML.

Catalog files live in `bot/locales/<feature>.yaml`, keyed by text id, each with `en` and `tr`.
Arguments are HTML-escaped unless wrapped in `Html` (already-rendered markup). An argument
called `name` is a name someone chose (a user's first name, an uploaded file's name): it is
isolated with U+2068 ... U+2069, so a right-to-left override in it cannot reorder the rest of
its line (a scoreboard line, a greeting).

Arguments are HTML-escaped unless wrapped in `Html` (already-rendered markup).

A text that counts something has plural forms, chosen by its `count` argument: English has
`one` and `other`; Turkish keeps the noun singular after a number, so it has one form (a plain
string, or `other`). Dates are written the one way each language writes them (`Texts.date`).
"""

from __future__ import annotations

import html
import string
from datetime import date
from pathlib import Path

import yaml

LOCALES = Path(__file__).resolve().parent / "locales"
LANGUAGES = ("en", "tr")
FIRST_STRONG_ISOLATE, POP_DIRECTIONAL_ISOLATE = "\u2068", "\u2069"
ISOLATED_ARGUMENTS = frozenset({"name"})

# The plural forms each language has after a number (CLDR's cardinal categories as used here).
PLURAL_FORMS = {"en": ("one", "other"), "tr": ("other",)}


def plural_form(lang: str, count: object) -> str:
    """The plural form `count` takes in `lang` ("other" for anything that is not a number)."""
    if lang == "en" and isinstance(count, int) and not isinstance(count, bool) and count == 1:
        return "one"
    return "other"


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
    def __init__(self, catalog: dict[str, dict[str, str]],
                 plurals: dict[str, dict[str, dict[str, str]]] | None = None) -> None:
        # `catalog` holds every text (a plural text by its "other" form); `plurals` holds the
        # forms of the texts that count something.
        self.catalog = catalog
        self.plurals = plurals or {}

    @classmethod
    def load(cls, folder: Path = LOCALES) -> Texts:
        catalog: dict[str, dict[str, str]] = {}
        plurals: dict[str, dict[str, dict[str, str]]] = {}
        for path in sorted(folder.glob("*.yaml")):
            data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
            for key, entry in data.items():
                if key in catalog:
                    raise CatalogError(f"{path.name}: text id {key!r} is defined twice")
                if not isinstance(entry, dict) or set(entry) != set(LANGUAGES):
                    raise CatalogError(f"{path.name}: {key!r} needs exactly en and tr")
                forms = {lang: _forms(path.name, key, lang, entry[lang]) for lang in LANGUAGES}
                arguments = {frozenset(placeholders(text)) for lang in LANGUAGES
                             for text in forms[lang].values()}
                if len(arguments) != 1:
                    raise CatalogError(f"{path.name}: {key!r} has different arguments in en and tr"
                                       " (or in its plural forms)")
                counted = any(isinstance(entry[lang], dict) for lang in LANGUAGES)
                if counted:
                    for lang in LANGUAGES:
                        if set(forms[lang]) != set(PLURAL_FORMS[lang]):
                            raise CatalogError(
                                f"{path.name}: {key!r} in {lang} needs the plural forms "
                                + " and ".join(PLURAL_FORMS[lang]))
                    if "count" not in arguments.pop():
                        raise CatalogError(f"{path.name}: {key!r} has plural forms but no {{count}}")
                    plurals[key] = forms
                catalog[key] = {lang: forms[lang]["other"] for lang in LANGUAGES}
        return cls(catalog, plurals)

    def t(self, lang: str, key: str, /, **args: object) -> str:
        """The text `key` in `lang` (English when `lang` is unknown), arguments escaped; a text
        with plural forms takes the form its `count` argument asks for."""
        entry = self.catalog[key]
        lang = lang if entry.get(lang) else "en"
        template = entry[lang]
        if key in self.plurals:
            if "count" not in args:
                raise KeyError(f"{key!r} counts something: pass count=")
            template = self.plurals[key][lang][plural_form(lang, args["count"])]
        if not args:
            return template
        safe = {name: value if isinstance(value, Html) else html.escape(str(value), quote=False)
                for name, value in args.items()}
        for name in ISOLATED_ARGUMENTS & safe.keys():
            safe[name] = isolate(safe[name])
        return template.format(**safe)

    def both(self, key: str, /, **args: object) -> dict[str, str]:
        return {lang: self.t(lang, key, **args) for lang in LANGUAGES}

    def date(self, lang: str, day: date) -> str:
        """A date as `lang` writes it: "2 Dec 2026" in English, "2 Ara 2026" in Turkish."""
        months = self.t(lang, "month-names").split()
        return self.t(lang, "date", day=day.day, month=months[day.month - 1], year=day.year)


def _forms(file: str, key: str, lang: str, value: object) -> dict[str, str]:
    """A language's text as {plural form: text}: a plain string is the one form, "other"."""
    if not isinstance(value, dict):
        return {"other": str(value).rstrip("\n")}
    if set(value) != set(PLURAL_FORMS[lang]):
        wanted = " and ".join(PLURAL_FORMS[lang])
        raise CatalogError(f"{file}: {key!r} in {lang} needs the plural forms {wanted}, "
                           f"not {', '.join(map(str, value))}")
    return {form: str(text).rstrip("\n") for form, text in value.items()}
