"""Loads plain YAML (mappings, lists, scalars) straight from libyaml's events, about three times
faster than `CSafeLoader`, which builds a node tree first; a 30,000-question bank is 33 MB.

The result is what the safe loader gives. Anything unusual (anchors, aliases, explicit tags,
merge keys, complex keys, several documents) makes `load` fall back to the safe loader itself.
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml.constructor import SafeConstructor
from yaml.events import (
    AliasEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)
from yaml.nodes import ScalarNode
from yaml.resolver import Resolver

try:
    from yaml import CSafeLoader as SafeLoader
    from yaml._yaml import CParser
except ImportError:  # pragma: no cover - PyYAML without libyaml: its own (slower) loader
    from yaml import SafeLoader  # type: ignore[assignment]
    CParser = None  # type: ignore[misc,assignment]

STR = "tag:yaml.org,2002:str"
# Plain scalars that resolve to these are built by the safe loader's own constructors.
SIMPLE_TAGS = {f"tag:yaml.org,2002:{name}" for name in ("int", "float", "bool", "null")}
_NO_KEY = object()
_resolver = Resolver()
# The first characters some implicit resolver (int, float, bool, null, merge...) looks at.
_RESOLVED_FIRST = frozenset(ch for ch in Resolver.yaml_implicit_resolvers if ch)
_constructor = SafeConstructor()


class _Unusual(Exception):
    pass


def load(text: str) -> Any:
    """Like `yaml.load(text, Loader=SafeLoader)`; raises yaml.YAMLError the same way."""
    if CParser is None:  # pragma: no cover
        return yaml.load(text, Loader=SafeLoader)
    try:
        return _load_events(text)
    except _Unusual:
        return yaml.load(text, Loader=SafeLoader)


def _plain(value: str) -> Any:
    """A plain scalar: text unless it reads as an int, float, bool or null (YAML 1.1)."""
    if value and value[0] not in _RESOLVED_FIRST:
        return value  # no implicit resolver starts with this character: it is text
    tag = _resolver.resolve(ScalarNode, value, (True, False))
    if tag == STR:
        return value
    if tag not in SIMPLE_TAGS:
        raise _Unusual  # `<<` (a merge key), a timestamp...
    return _constructor.construct_object(ScalarNode(tag, value), deep=True)


def _load_events(text: str) -> Any:
    stack: list[list[Any]] = []  # [container, pending key] for each open mapping or list
    result = None
    documents = 0
    # libyaml's parser itself, event by event: `yaml.parse` wraps each event in a generator and
    # a check_event call, which cost more than the parsing in a large bank.
    parser = CParser(text)
    get_event = parser.get_event
    try:
        while True:
            event: Any = get_event()
            kind = type(event)
            # Exact type checks (not isinstance): this loop runs for every scalar of a bank.
            if kind is ScalarEvent:
                if event.anchor is not None:
                    raise _Unusual
                if event.implicit[0]:  # plain: `2` is an int, `null` is None...
                    value = _plain(event.value)
                elif event.tag is None or event.tag == "!":
                    value = event.value
                else:
                    raise _Unusual  # an explicit tag
            elif kind is MappingStartEvent or kind is SequenceStartEvent:
                if event.anchor is not None or not event.implicit:
                    raise _Unusual
                stack.append([{} if kind is MappingStartEvent else [], _NO_KEY])
                continue
            elif kind is MappingEndEvent or kind is SequenceEndEvent:
                value = stack.pop()[0]
            elif kind is DocumentStartEvent:
                documents += 1
                if documents > 1:
                    raise _Unusual  # the safe loader's own error says it
                continue
            elif kind is AliasEvent:
                raise _Unusual
            elif kind is StreamEndEvent or event is None:
                break
            else:
                continue
            if not stack:
                result = value
                continue
            top = stack[-1]
            if type(top[0]) is list:
                top[0].append(value)
            elif top[1] is _NO_KEY:
                if isinstance(value, dict | list):
                    raise _Unusual  # a complex key
                top[1] = value
            else:
                top[0][top[1]] = value
                top[1] = _NO_KEY
    finally:
        parser.dispose()
    return result
