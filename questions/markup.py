"""Question text markup (`inline code` and ```lang fenced blocks```) turned into Telegram HTML."""

from __future__ import annotations

import html
import re

FENCE = re.compile(r"```([A-Za-z0-9_+#.-]*)[ \t]*\n?(.*?)```", re.DOTALL)
INLINE = re.compile(r"`([^`\n]+)`")
TAG = re.compile(r"<[^>]+>")


def escape(text: str) -> str:
    """Escape for Telegram's HTML parse mode (it knows &lt; &gt; &amp; &quot;)."""
    return html.escape(text, quote=False)


def _inline_to_html(text: str) -> str:
    out: list[str] = []
    last = 0
    for match in INLINE.finditer(text):
        out.append(escape(text[last : match.start()]))
        out.append(f"<code>{escape(match.group(1))}</code>")
        last = match.end()
    out.append(escape(text[last:]))
    return "".join(out)


def to_html(text: str) -> str:
    """Render markup as HTML: fenced blocks become <pre><code class="language-x">, the rest is escaped."""
    out: list[str] = []
    last = 0
    for match in FENCE.finditer(text):
        out.append(_inline_to_html(text[last : match.start()]))
        lang, code = match.group(1), match.group(2).rstrip("\n")
        attr = f' class="language-{escape(lang)}"' if lang else ""
        out.append(f"<pre><code{attr}>{escape(code)}</code></pre>")
        last = match.end()
    out.append(_inline_to_html(text[last:]))
    return "".join(out).strip()


def plain_length(html_text: str) -> int:
    """Length Telegram counts for a message: text after entity parsing, in UTF-16 code units."""
    plain = html.unescape(TAG.sub("", html_text))
    return len(plain.encode("utf-16-le")) // 2


def truncate_html_safe(text: str, limit: int) -> str:
    """Cut plain text (before escaping) so it stays under `limit` characters."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
