"""Search in one's own conversations, by title or by what was said in them."""

from __future__ import annotations

from django.db import connection
from django.db.models import Q, QuerySet

from .models import Conversation, Message

# Words as written, no stemming: the same configuration serves Portuguese and English.
SEARCH_CONFIG = "simple"


def search_conversations(conversations: QuerySet[Conversation], text: str) -> QuerySet[Conversation]:
    """The conversations of ``conversations`` whose title or live messages match ``text``.

    PostgreSQL: full-text search (websearch syntax: words, "a phrase", -excluded).
    Elsewhere (SQLite): a case-insensitive contains.
    """
    live = Message.objects.filter(conversation__in=conversations, superseded_at__isnull=True)
    if connection.vendor == "postgresql":
        from django.contrib.postgres.search import SearchQuery, SearchVector

        query = SearchQuery(text, config=SEARCH_CONFIG, search_type="websearch")
        said = live.annotate(found=SearchVector("content", config=SEARCH_CONFIG)).filter(found=query)
        return conversations.annotate(named=SearchVector("title", config=SEARCH_CONFIG)).filter(
            Q(named=query) | Q(pk__in=said.values("conversation_id"))
        )
    contains = live.filter(content__icontains=text)
    return conversations.filter(Q(title__icontains=text) | Q(pk__in=contains.values("conversation_id")))
