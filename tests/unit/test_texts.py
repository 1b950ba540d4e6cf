"""Every text exists in English and Turkish and renders with its arguments."""

import re
from datetime import date
from pathlib import Path

from bot.texts import CatalogError, Html, Texts, placeholders

ROOT = Path(__file__).resolve().parents[2]


def test_every_key_has_both_languages_and_renders():
    texts = Texts.load()
    assert texts.catalog
    for key, entry in texts.catalog.items():
        assert set(entry) == {"en", "tr"}, key
        assert entry["en"].strip() and entry["tr"].strip(), key
        args = {name: f"<{name}>" for name in placeholders(entry["en"])}
        for lang in ("en", "tr"):
            rendered = texts.t(lang, key, **args)
            assert "{" not in rendered.replace("{{", ""), (key, lang)
            for name in args:
                assert f"&lt;{name}&gt;" in rendered, (key, lang, name)


def test_turkish_texts_are_not_copies_of_english():
    texts = Texts.load()
    same = [k for k, e in texts.catalog.items()
            if e["en"] == e["tr"] and re.search(r"[a-z]{4,} [a-z]{4,}", e["en"])]
    assert not same, f"untranslated texts: {same}"


def test_every_key_used_in_code_exists():
    texts = Texts.load()
    used = set()
    for folder in ("bot", "handlers"):
        for path in (ROOT / folder).rglob("*.py"):
            used |= set(re.findall(r"\.t\(\s*\w+,\s*\"([a-z0-9-]+)\"", path.read_text()))
            used |= set(re.findall(r"\.both\(\s*\"([a-z0-9-]+)\"", path.read_text()))
    missing = sorted(used - set(texts.catalog))
    assert not missing, f"texts used in code but missing from the catalog: {missing}"


def test_arguments_are_escaped_unless_marked_html():
    texts = Texts({"k": {"en": "a {x}", "tr": "b {x}"}})
    assert texts.t("en", "k", x="<b>&") == "a &lt;b&gt;&amp;"
    assert texts.t("tr", "k", x=Html("<b>x</b>")) == "b <b>x</b>"
    assert texts.t("de", "k", x="1") == "a 1"


def write_catalog(folder: Path, text: str) -> Path:
    (folder / "x.yaml").write_text(text, encoding="utf-8")
    return folder


def test_a_counted_text_takes_each_languages_plural_form():
    texts = Texts.load()
    assert texts.t("en", "due-in-days", count=1) == "in 1 day"
    assert texts.t("en", "due-in-days", count=3) == "in 3 days"
    assert texts.t("en", "due-in-days", count=0) == "in 0 days"
    # Turkish keeps the noun singular after a number.
    assert texts.t("tr", "due-in-days", count=1) == "1 gün sonra"
    assert texts.t("tr", "due-in-days", count=3) == "3 gün sonra"
    assert texts.t("en", "count-days", count=1) == "<b>1</b> day"


def test_no_text_hedges_a_plural_with_parentheses():
    texts = Texts.load()
    forms = [text for entry in texts.plurals.values() for lang in entry.values()
             for text in lang.values()] + [text for entry in texts.catalog.values()
                                           for text in entry.values()]
    hedged = [text for text in forms if re.search(r"\w\((s|es|lar|ler)\)", text)]
    assert not hedged, hedged


def test_plural_forms_are_checked_at_load(tmp_path):
    good = 'k:\n  en:\n    one: "{count} day"\n    other: "{count} days"\n  tr: "{count} gün"\n'
    assert Texts.load(write_catalog(tmp_path, good)).t("en", "k", count=1) == "1 day"
    refused = {
        "English needs one and other":
            'k:\n  en:\n    other: "{count} days"\n  tr: "{count} gün"\n',
        "Turkish has one form":
            'k:\n  en:\n    one: "{count} day"\n    other: "{count} days"\n'
            '  tr:\n    one: "{count} gün"\n    other: "{count} gün"\n',
        "a form with other arguments":
            'k:\n  en:\n    one: "{count} day"\n    other: "{count} days {x}"\n  tr: "{count} gün"\n',
        "plural forms without {count}":
            'k:\n  en:\n    one: "{n} day"\n    other: "{n} days"\n  tr: "{n} gün"\n',
        "an unknown form":
            'k:\n  en:\n    one: "{count} day"\n    few: "{count} days"\n  tr: "{count} gün"\n',
    }
    for why, text in refused.items():
        try:
            Texts.load(write_catalog(tmp_path, text))
        except CatalogError:
            continue
        raise AssertionError(f"loaded although {why}")


def test_a_counted_text_needs_its_count():
    texts = Texts.load()
    try:
        texts.t("en", "due-in-days")
    except KeyError:
        return
    raise AssertionError("rendered a counted text without count")


def test_one_date_format_per_language():
    texts = Texts.load()
    day = date(2026, 12, 2)
    assert texts.date("en", day) == "2 Dec 2026"
    assert texts.date("tr", day) == "2 Ara 2026"
