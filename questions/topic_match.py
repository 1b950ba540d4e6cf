"""Find the topic a user meant in `/quiz <topic>`: its key or its name in any language, or a
near miss of one of them ("indexes" for indexing, "cache" for caching)."""

from __future__ import annotations

import difflib
import re

from questions.loader import Bank

_SUFFIXES = ("ing", "es", "s", "ed", "ion", "ler", "lar", "leme", "lama", "me", "ma")
_WORD = re.compile(r"[^\W_]+")


def _words(text: str) -> list[str]:
    return _WORD.findall(text.replace("İ", "i").replace("I", "ı").casefold())


def _stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def _same_word(wanted: str, known: str) -> bool:
    """`cach` and `caching`, `index` and `indexes`; short words ("ve", "and") never match."""
    if len(wanted) < 3:
        return False
    return known.startswith(wanted) or (len(known) >= 4 and wanted.startswith(known))


def find_topic(bank: Bank, field: str, text: str) -> str | None:
    """The key of the topic of `field` that `text` names, or None when nothing is close."""
    info = bank.fields.get(field)
    wanted = _words(text)
    if info is None or not wanted:
        return None
    names: dict[str, list[list[str]]] = {}
    for key, topic in info.topics.items():
        names[key] = [_words(key), *(_words(name) for name in (topic.name.en, topic.name.tr) if name)]
    joined = " ".join(wanted)
    for key, forms in names.items():  # exact: the key or a whole name
        if any(" ".join(form) == joined for form in forms):
            return key
    stems = [_stem(w) for w in wanted]
    near = [key for key, forms in names.items()  # every word a name's word, after stemming
            if any(form and all(any(_same_word(s, _stem(f)) for f in form) for s in stems)
                   for form in forms)]
    if len(near) == 1:  # two or more: let the user pick from the list
        return near[0]
    choices = {" ".join(form): key for key, forms in names.items() for form in forms}
    close = difflib.get_close_matches(joined, list(choices), n=1, cutoff=0.8)
    return choices[close[0]] if close else None
