"""The event-based YAML loader gives exactly what the safe loader gives, or falls back to it."""

from __future__ import annotations

import datetime

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from questions import yamlfast
from questions.cli import BUNDLED


def safe(text: str):
    return yaml.load(text, Loader=yaml.CSafeLoader)


scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=30),
                    st.floats(allow_nan=False), st.sampled_from(
                        ["yes", "no", "on", "null", "~", "0x1F", "1_000", "1e3", ".inf", "<<",
                         "2024-01-01", "a: b", "- x", "#c", "'q'", '"d"', "\u2028", ""]))
data = st.recursive(scalars, lambda children: st.one_of(
    st.lists(children, max_size=4),
    st.dictionaries(st.one_of(st.text(max_size=8), st.integers()), children, max_size=4)),
    max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(value=data, flow=st.sampled_from([None, True, False]), style=st.sampled_from(
    [None, '"', "'", "|"]))
def test_same_result_as_the_safe_loader(value, flow, style):
    text = yaml.safe_dump(value, default_flow_style=flow, default_style=style, allow_unicode=True)
    assert yamlfast.load(text) == safe(text)


@pytest.mark.parametrize("text", [
    "a: 1\nb: [x, 'y', \"z\"]\nc: {d: null, e: ~, f: yes, g: 1.5, h: 0o17}\n",
    "empty:\nlist: []\nmap: {}\n",
    "a: !!str 123\nb: !!int '7'\n",                 # explicit tags: fallback
    "base: &b {x: 1}\nother:\n  <<: *b\n  y: 2\n",   # anchors and a merge key: fallback
    "when: 2024-01-01\n",                           # a timestamp: fallback
    "",
    "--- 1\n",
    "text: |\n  line one\n\n  line three\n",
    "- a\n- - b\n  - c\n- {d: e}\n",
])
def test_edge_documents(text):
    assert yamlfast.load(text) == safe(text)


@pytest.mark.parametrize("text", ["a: [1, 2", "--- 1\n--- 2\n", "a: *missing\n", "a: b: c\n",
                                  "[" * 2000, "? [a, b]\n: complex key\n"])
def test_errors_are_the_safe_loaders(text):
    with pytest.raises(yaml.YAMLError) as fast_error:
        yamlfast.load(text)
    with pytest.raises(yaml.YAMLError) as safe_error:
        safe(text)
    assert str(fast_error.value) == str(safe_error.value)


def test_the_bundled_bank_loads_the_same():
    for path in BUNDLED.rglob("*.yaml"):
        text = path.read_text(encoding="utf-8")
        assert yamlfast.load(text) == safe(text), path


def test_a_timestamp_still_becomes_a_date():
    assert yamlfast.load("d: 2024-01-02\n") == {"d": datetime.date(2024, 1, 2)}
