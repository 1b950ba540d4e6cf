"""Telegram's HTML parse mode as the emulator parses it: entities, UTF-16 offsets, refusals."""

from __future__ import annotations

import pytest

from fake_telegram.html_entities import EntityParseError, entities_to_html, parse_html, utf16_len


def test_emoji_count_as_two_utf16_units():
    text, entities = parse_html("<b>Hi</b> 👋 <i>there</i>")
    assert text == "Hi 👋 there"
    assert entities == [
        {"type": "bold", "offset": 0, "length": 2},
        {"type": "italic", "offset": 6, "length": 5},
    ]
    assert utf16_len(text) == 11


def test_pre_with_language_and_nested_code_dropped():
    text, entities = parse_html('<pre><code class="language-python">x = 1</code></pre>')
    assert (text, entities) == (
        "x = 1",
        [{"type": "pre", "offset": 0, "length": 5, "language": "python"}],
    )
    _, inside_code = parse_html("<code>a <b>b</b></code>")
    assert inside_code == [{"type": "code", "offset": 0, "length": 3}]


def test_links_spoilers_quotes_and_entities():
    text, entities = parse_html(
        '<a href="https://example.com/?a=1&amp;b=2">link</a> <span class="tg-spoiler">s</span> '
        "<tg-spoiler>t</tg-spoiler> <blockquote expandable>q</blockquote> &lt;&gt;&quot;&#33;"
    )
    assert text == 'link s t q <>"!'
    assert [e["type"] for e in entities] == [
        "text_link", "spoiler", "spoiler", "expandable_blockquote",
    ]  # fmt: skip
    assert entities[0]["url"] == "https://example.com/?a=1&b=2"


def test_text_is_trimmed_like_telegram():
    text, entities = parse_html("\n  <b> hi </b>  \n")
    assert (text, entities) == ("hi", [{"type": "bold", "offset": 0, "length": 2}])


@pytest.mark.parametrize(
    ("html", "error"),
    [
        ("a < b", 'Unsupported start tag "" at byte offset 2'),
        ("<br>", 'Unsupported start tag "br" at byte offset 0'),
        ("<b>x", 'Can\'t find end tag corresponding to start tag "b"'),
        ("<b><i>x</b></i>", 'Unmatched end tag at byte offset 7, expected "</i>", found "</b>"'),
        ("</b>", "Unexpected end tag at byte offset 0"),
        ("<span>x</span>", 'Tag "span" must have class "tg-spoiler" at byte offset 0'),
        ("Q&A", 'Character "&" is not part of a supported entity'),
        ("&nbsp;", 'Character "&" is not part of a supported entity'),
    ],
)
def test_refusals(html, error):
    with pytest.raises(EntityParseError, match=error.replace("(", r"\(")):
        parse_html(html)


def test_bare_ampersand_allowed_when_not_strict():
    assert parse_html("Q&A", strict_ampersand=False) == ("Q&A", [])


def test_round_trip_to_html():
    source = '<b>bold <i>both</i></b> and <a href="http://x.org/">x</a> &lt;3'
    text, entities = parse_html(source)
    assert entities_to_html(text, entities) == source
