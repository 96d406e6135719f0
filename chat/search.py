"""Search in one's own conversations, by title or by what was said in them.

Accents and case never matter: "familia" finds "Família" (many people type Portuguese
without accents). PostgreSQL folds the stored text with ``unaccent`` (the extension is
created by migration 0010); SQLite with ``la_fold``, a function registered on each
connection (``register_fold``). The query text is folded here, the same way.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from django.db import connection
from django.db.models import F, Func, Q, QuerySet, TextField

from .models import Conversation, Message

# Words as written, no stemming: the same configuration serves Portuguese and English.
SEARCH_CONFIG = "simple"
SQLITE_FOLD = "la_fold"


def fold(text: str) -> str:
    """``text`` without accents and case: "Família" → "familia", "Straße" → "strasse"."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(character for character in decomposed if not unicodedata.combining(character)).casefold()


def register_fold(sender: Any, connection: Any, **kwargs: Any) -> None:
    """``connection_created`` receiver: gives SQLite connections ``la_fold(text)``."""
    if connection.vendor == "sqlite":
        connection.connection.create_function(
            SQLITE_FOLD, 1, lambda value: None if value is None else fold(value), deterministic=True
        )


def search_conversations(conversations: QuerySet[Conversation], text: str) -> QuerySet[Conversation]:
    """The conversations of ``conversations`` whose title or live messages match ``text``.

    PostgreSQL: full-text search (websearch syntax: words, "a phrase", -excluded).
    Elsewhere (SQLite): a contains.
    """
    live = Message.objects.filter(conversation__in=conversations, superseded_at__isnull=True)
    folded = fold(text)
    if connection.vendor == "postgresql":
        from django.contrib.postgres.search import SearchQuery, SearchVector

        def vector(field: str) -> SearchVector:
            return SearchVector(Func(F(field), function="unaccent", output_field=TextField()), config=SEARCH_CONFIG)

        query = SearchQuery(folded, config=SEARCH_CONFIG, search_type="websearch")
        said = live.annotate(found=vector("content")).filter(found=query)
        return conversations.annotate(named=vector("title")).filter(Q(named=query) | Q(pk__in=said.values("conversation_id")))

    def folded_field(field: str) -> Func:
        return Func(F(field), function=SQLITE_FOLD, output_field=TextField())

    contains = live.annotate(folded=folded_field("content")).filter(folded__contains=folded)
    return conversations.annotate(folded_title=folded_field("title")).filter(
        Q(folded_title__contains=folded) | Q(pk__in=contains.values("conversation_id"))
    )
