"""Assistant markdown as sanitized HTML for the web chat.

The model writes markdown and the page shows HTML, so whatever the model (or text it
quotes) puts in a reply must not run in the user's browser. Two maintained tools do it:
markdown-it-py parses with raw HTML off (tags in the reply stay text), and nh3 then
keeps only an allowlist of tags, attributes and URL schemes, whatever the parser let
through. Pure: text in, HTML out.
"""

from __future__ import annotations

import hashlib
import re
from importlib.metadata import version
from typing import Any

import nh3
from markdown_it import MarkdownIt

# CommonMark plus GFM tables and strikethrough. Images are off: a reply cannot make the
# browser fetch a URL (tracking pixels, data: payloads); ``![alt](url)`` shows as a link.
# A single newline from the model is a line break in a chat, as plain text showed it
# ("breaks"); markdown would join the lines. A bare URL ("https://gov.br/...", "www.…")
# is a link, as in any chat ("linkify"; the sanitizer still checks its scheme).
_PARSER = MarkdownIt("commonmark", {"html": False, "linkify": True, "typographer": False, "breaks": True}).enable(
    ["table", "strikethrough", "linkify"]
).disable("image")

ALLOWED_TAGS = {
    "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "strong", "em", "del", "s",
    "code", "pre", "blockquote", "ul", "ol", "li", "a",
    "table", "thead", "tbody", "tr", "th", "td",
}  # fmt: skip
ALLOWED_ATTRIBUTES = {
    "a": {"href", "title"},
    "code": {"class"},
    "ol": {"start"},
    "th": {"style"},
    "td": {"style"},
}
URL_SCHEMES = {"http", "https", "mailto"}
# Table alignment is the only style markdown-it writes.
_ALIGN_STYLES = {"text-align"}


def _keep_attribute(tag: str, attribute: str, value: str) -> str | None:
    """Keep a code block's language class (for highlighting and the copy button), no other class."""
    if attribute == "class":
        return value if tag == "code" and value.startswith("language-") and " " not in value else None
    return value


# Built once: the allowlists are compiled into the cleaner, not re-read per message.
_CLEANER = nh3.Cleaner(
    tags=ALLOWED_TAGS,
    clean_content_tags={"script", "style"},
    attributes=ALLOWED_ATTRIBUTES,
    attribute_filter=_keep_attribute,
    url_schemes=URL_SCHEMES,
    link_rel="noopener noreferrer",
    set_tag_attribute_values={"a": {"target": "_blank"}},
    filter_style_properties=_ALIGN_STYLES,
)


# Raise when ``_keep_attribute`` or anything else the fingerprint below cannot see changes
# what render() returns.
_REVISION = 3

# What render() depends on. HTML kept from an earlier render (``chat.reply_html``) is
# filed under it, so a deploy that changes the parser, the sanitizer or the allowlists
# never serves HTML made by the previous rules.
FINGERPRINT = hashlib.sha256(
    repr(
        (
            _REVISION,
            version("markdown-it-py"),
            version("nh3"),
            _PARSER.get_active_rules(),
            sorted(_PARSER.options.items()),
            sorted(ALLOWED_TAGS),
            sorted((tag, sorted(names)) for tag, names in ALLOWED_ATTRIBUTES.items()),
            sorted(URL_SCHEMES),
            sorted(_ALIGN_STYLES),
        )
    ).encode()
).hexdigest()[:16]


# "R$ 1.234,56" broke between the symbol and the number in narrow table cells.
_CODE_BLOCK = re.compile(r"(<pre>.*?</pre>)", re.DOTALL)
_CURRENCY_SPACE = re.compile(r"(?<![\w$])((?:R|US|A|C|NZ|HK)?\$|€|£) (?=[0-9])")


def render(markdown: str) -> str:
    """The reply's markdown as HTML safe to insert into the page."""
    if not markdown.strip():  # a reply not written yet (every 202): nothing to parse
        return ""
    tokens = _PARSER.parse(markdown)
    _nest_headings(tokens)
    html = _CLEANER.clean(_PARSER.renderer.render(tokens, _PARSER.options, {})).strip()
    # Not inside code blocks: their copy button must copy the plain space.
    parts = _CODE_BLOCK.split(html)
    return "".join(part if index % 2 else _CURRENCY_SPACE.sub("\\1\u00a0", part) for index, part in enumerate(parts))


def _nest_headings(tokens: list[Any]) -> None:
    """Headings under the page's own: the conversation's title is the page's h1, so a
    reply's levels become h2, h3… in the order of depth they use ("# A" and "### B" are
    h2 and h3). Screen readers list headings as an outline; a reply's "###" right under
    the h1 skipped levels."""
    levels = sorted({int(token.tag[1]) for token in tokens if token.type == "heading_open"})
    rank = {level: f"h{min(6, 2 + index)}" for index, level in enumerate(levels)}
    for token in tokens:
        if token.type in ("heading_open", "heading_close"):
            token.tag = rank[int(token.tag[1])]
