"""Documents for the message service: analysis of a new message, attachments, lookups.

The ORM- and LLM-facing side of intent extraction (documents spec 003); the pure
logic lives in analysis.py, extraction.py, language.py and listing.py.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models import Case, IntegerField, Value, When

from chat.preprocessor import UNKNOWN_DOCUMENT, FileReference

from .analysis import Analysis, analyze
from .extraction import ContextItem
from .language import detect_language
from .listing import DocumentInfo, file_name_for, human_size, render_available_documents, summarize
from .models import ChatDocument

logger = logging.getLogger(__name__)

READ_DOCUMENT_TOOL = "read_document"
MAX_REFERENCES = 20
INLINE_DOCUMENT_CHARS = 4_000


def analyze_message(raw: str, *, previous_language: str | None) -> Analysis:
    """Clean intent, context items and language for a new user message.

    Small messages (under 10% of the model's window) cost nothing: no model call. The
    offline model, or a failing one, falls back to the deterministic extractor.
    """
    from chat import llm

    language = detect_language(raw, previous=previous_language or None)
    analysis = analyze(
        raw,
        token_count=llm.count_tokens(messages=[{"role": "user", "content": raw}]),
        max_input_tokens=llm.max_input_tokens(),
        call_model=None if llm.is_offline() else _call_analyzer,
        detected_language=language,
    )
    # Telemetry of the spec: sizes, counts and time, never the content.
    logger.info(
        "analyzer method=%s input_chars=%d output_chars=%d documents=%d elapsed_ms=%.1f",
        analysis.method, analysis.input_chars, analysis.output_chars, analysis.item_count, analysis.elapsed_ms,
    )
    return analysis


def _call_analyzer(system_prompt: str, raw: str) -> str:
    from chat import llm

    response = llm.completion(
        [{"role": "system", "content": system_prompt}, {"role": "user", "content": raw}],
        temperature=0.0,
        response_format={"type": "json_object"},
    )
    return response.choices[0].message.content or ""


def attach_documents(message: Any, items: Sequence[ContextItem]) -> list[ChatDocument]:
    """Create one ``user_context`` document per item, attached to ``message``.

    Names are unique per conversation: a later message that would reuse a name gets
    an ``m<id>_`` prefix, and the ``[see …]`` marker in its intent follows the rename.
    """
    taken = set(ChatDocument.objects.filter(conversation=message.conversation).values_list("file_name", flat=True))
    documents = []
    for index, item in enumerate(items, start=1):
        name = file_name_for(item.title, index, item.mime_type)
        if name in taken:  # a later message of the conversation reuses the numbering
            renamed = f"m{message.pk}_{name}"
            message.intent = message.intent.replace(f"[see {name}]", f"[see {renamed}]")
            name = renamed
        taken.add(name)
        documents.append(
            ChatDocument.objects.create(
                owner=message.conversation.owner,
                conversation=message.conversation,
                message=message,
                label=ChatDocument.USER_CONTEXT,
                file_name=name,
                title=item.title[:200],  # titles and mime types may come from the model
                mime_type=item.mime_type[:100],
                content=item.content,
                summary=summarize(item.content),
            )
        )
    if documents:
        message.save(update_fields=["intent"])
    return documents


def owned_documents(user: Any) -> Any:
    """The only way to reach documents: scoped to their owner."""
    return ChatDocument.objects.filter(owner=user)


def find_document(*, user: Any, conversation: Any, name: str) -> ChatDocument | None:
    """The user's document called ``name``, preferring the current conversation."""
    return _documents_by_name(user=user, conversation=conversation, names=[name]).get(name)


@dataclass(frozen=True)
class ReferencedDocuments:
    text: str  # appended to what the model sees of the message
    needs_reader: bool  # a document was too long to inline: offer read_document


def reference_blocks(*, user: Any, conversation: Any, references: Sequence[FileReference]) -> ReferencedDocuments:
    """What the model gets for a message's ``@name`` references.

    A small document is inlined; a large one is named, for ``read_document`` to read
    (the spec allows either a context reference or the expanded content). Unknown and
    rejected names become notices, so the reply can tell the user. At most
    ``MAX_REFERENCES`` distinct names are looked up, in one query.
    """
    wanted: list[str] = []
    notices: list[str] = []
    for reference in references:
        if reference.rejected_reason is not None:
            notices.append(f"[notice: @{reference.name} was not included: {reference.rejected_reason}]")
        elif reference.name not in wanted:
            wanted.append(reference.name)
    if len(wanted) > MAX_REFERENCES:
        notices.append(f"[notice: only the first {MAX_REFERENCES} @references were looked up]")
        wanted = wanted[:MAX_REFERENCES]
    found = _documents_by_name(user=user, conversation=conversation, names=wanted)
    blocks: list[str] = []
    needs_reader = False
    for name in wanted:
        document = found.get(name)
        if document is None:
            notices.append(f"[notice: @{name} was not included: {UNKNOWN_DOCUMENT}]")
        elif len(document.content) <= INLINE_DOCUMENT_CHARS:
            blocks.append(f"[document: {name}]\n{document.content}\n[/document]")
        else:
            needs_reader = True
            blocks.append(
                f"[document: {name}, {human_size(document.size_bytes)}: too long to inline, "
                f"call {READ_DOCUMENT_TOOL} to read it]"
            )
    return ReferencedDocuments("\n\n".join([*blocks, *notices]), needs_reader)


def _documents_by_name(*, user: Any, conversation: Any, names: Sequence[str]) -> dict[str, ChatDocument]:
    """The user's documents called ``names``; the current conversation's copy wins."""
    if not names:
        return {}
    found: dict[str, ChatDocument] = {}
    candidates = owned_documents(user).filter(file_name__in=names).annotate(
        here=Case(When(conversation=conversation, then=Value(0)), default=Value(1), output_field=IntegerField())
    )
    for document in candidates.order_by("here", "-created_at"):
        found.setdefault(document.file_name, document)
    return found


def documents_section(conversation: Any) -> str:
    """The AVAILABLE_DOCUMENTS section for the system prompt ("" when there are none)."""
    infos = [
        DocumentInfo(name=d.file_name, size_bytes=d.size_bytes, summary=d.summary, label=d.label)
        for d in ChatDocument.objects.filter(conversation=conversation).only(
            "file_name", "size_bytes", "summary", "label"
        )
    ]
    return render_available_documents(infos)


def document_tools(conversation: Any, *, needed: bool = False) -> tuple[str, ...]:
    """``read_document`` is offered only when the conversation has documents, or ``needed``."""
    if needed or ChatDocument.objects.filter(conversation=conversation).exists():
        return (READ_DOCUMENT_TOOL,)
    return ()
