"""Every text exists in English and Turkish and renders with its arguments."""

import re
from pathlib import Path

from bot.texts import Html, Texts, placeholders

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
