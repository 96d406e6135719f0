"""An ended reply's HTML, rendered once and shared through the cache.

Every read of a thread shows each reply as HTML (``content_html``), and rendering the
markdown is the larger part of reading a page: ~0.8 ms for a reply of 800 characters
with a table, a list and code, about 60% of a page of 20 such replies
(``manage.py benchmark --section pipeline``). A reply that has ended never changes, so
its HTML is kept in the default cache (``REPLY_HTML_TTL_SECONDS``, a day by default)
under the hash of its text and the renderer's ``FINGERPRINT``: the worker leaves it there
as it publishes the reply's end, and a page then fetches all of its replies' HTML in one
round trip. A running reply changes with every batch of text and is rendered on each read.

The cache is an optimisation only: when it is down, replies are rendered as before and
the fault is logged (``lifeassistant.cache``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from django.conf import settings
from django.core.cache import cache

from lifeassistant.cache import CACHE_ERRORS, log_cache_fault

from . import markdown

# Shorter replies render faster (~70 µs for 250 characters of prose) than a round trip to
# a local Redis (~110 µs).
CACHED_FROM_CHARS = 256


def cache_key(text: str) -> str:
    """Where the HTML of ``text`` is kept, under the rules that render it now."""
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    return f"reply-html:{markdown.FINGERPRINT}:{digest}"


def ended_replies_html(texts: Iterable[str]) -> dict[str, str]:
    """The HTML of each ended reply's text, keyed by the text: one cache read for all of
    them, one write for those rendered now."""
    html: dict[str, str] = {}
    keys: dict[str, str] = {}
    for text in texts:
        if len(text) < CACHED_FROM_CHARS or not settings.REPLY_HTML_TTL_SECONDS:
            html[text] = markdown.render(text)
        else:
            keys[cache_key(text)] = text
    if not keys:
        return html
    try:
        kept = cache.get_many(keys)
    except CACHE_ERRORS as exc:
        log_cache_fault("replies rendered", exc)
        kept = {}
    rendered = {key: markdown.render(text) for key, text in keys.items() if key not in kept}
    if rendered:
        try:
            cache.set_many(rendered, settings.REPLY_HTML_TTL_SECONDS)
        except CACHE_ERRORS as exc:
            log_cache_fault("replies rendered", exc)
    for key, text in keys.items():
        html[text] = kept[key] if key in kept else rendered[key]
    return html
