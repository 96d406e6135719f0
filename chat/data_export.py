"""Everything of one user as one JSON document (``GET /api/v1/me/export/``, LGPD art. 18).

The document is written piece by piece (``export_chunks``) and streamed: rows are read
in chunks and each conversation's messages with it, so memory stays bounded by the
largest conversation, not the whole account. The CSVs of expenses and metrics
(``csv_chunks``) quote cells a spreadsheet would run as formulas.
"""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from django.core.serializers.json import DjangoJSONEncoder
from django.db.models import QuerySet
from django.utils import timezone

from documents.models import ChatDocument
from lifeassistant.models import Bill, Consent, Debt, Expense, KnowledgeItem, MetricEntry, Person, Profile
from lifeassistant.privacy import csv_cell

from .language import profile_value
from .models import Conversation, Message, PendingAction, ToolCall

if TYPE_CHECKING:
    from django.contrib.auth.models import User

FORMAT_VERSION = 1
CHUNK = 500

_encoder = DjangoJSONEncoder(ensure_ascii=False)

# Per model: the fields exported (never the owner: it is the reader).
FIELDS: dict[str, tuple[type[Any], tuple[str, ...]]] = {
    "memory": (KnowledgeItem, ("id", "kind", "area", "content", "source", "created_at", "updated_at")),
    "expenses": (Expense, ("id", "amount", "description", "category", "spent_on", "created_at")),
    "bills": (Bill, ("id", "name", "amount", "due_date", "category", "status", "paid_at", "created_at")),
    "debts": (
        Debt,
        (
            "id", "name", "creditor", "total_amount", "paid_amount", "installments_total", "installments_paid",
            "monthly_interest_rate", "started_on", "created_at",
        ),
    ),
    "metrics": (MetricEntry, ("id", "type", "value", "unit", "recorded_at", "note", "created_at", "updated_at")),
    "people": (
        Person,
        ("id", "name", "relationship", "birthday", "notes", "facts", "last_interaction_on", "created_at", "updated_at"),
    ),
    "consents": (Consent, ("purpose", "text_version", "given", "created_at")),
    "documents": (
        ChatDocument,
        ("id", "conversation_id", "message_id", "file_name", "title", "mime_type", "content", "summary", "created_at"),
    ),
}
MESSAGE_FIELDS = (
    "id", "role", "status", "content", "intent", "language", "reply_to_id", "active_skills", "tools_offered",
    "model", "prompt_tokens", "completion_tokens", "cost", "created_at", "finished_at", "superseded_at",
)
TOOL_CALL_FIELDS = ("message_id", "tool", "arguments", "result", "ok", "error", "created_at")
ACTION_FIELDS = ("message_id", "tool", "arguments", "summary", "status", "result", "error", "created_at", "decided_at", "executed_at")


def encode(value: Any) -> str:
    return _encoder.encode(value)


def export_chunks(user: User) -> Iterator[str]:
    """The user's export as pieces of one JSON object."""
    profile = Profile.for_user(user)
    head = {
        "format": "life-assistant-export",
        "version": FORMAT_VERSION,
        "exported_at": timezone.now(),
        "profile": profile_export(user, profile),
    }
    yield encode(head)[:-1]  # the object stays open for the lists below
    for name, (model, fields) in FIELDS.items():
        rows = model.objects.filter(owner=user).order_by("pk").values(*fields)
        yield f", {encode(name)}: "
        yield from json_list(rows.iterator(chunk_size=CHUNK))
    yield ', "conversations": '
    conversations = Conversation.objects.filter(owner=user).order_by("pk").iterator(chunk_size=CHUNK)
    yield from json_list(conversation_export(conversation) for conversation in conversations)
    yield "}\n"


def profile_export(user: User, profile: Profile) -> dict[str, Any]:
    return {
        "username": user.get_username(),
        "email": user.email,
        "first_name": user.first_name,
        "last_name": user.last_name,
        "date_joined": user.date_joined,
        "display_name": profile.display_name,
        "language": profile_value(profile.language),
        "timezone": profile.timezone,
        "currency": profile.currency,
        "preferences": profile.preferences,
        "disabled_skills": profile.disabled_skills,
        "retention_days": profile.retention_days,
    }


def conversation_export(conversation: Conversation) -> dict[str, Any]:
    """One conversation with its messages, each with its tool calls and proposed actions."""
    calls: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for call in ToolCall.objects.filter(message__conversation=conversation).order_by("pk").values(*TOOL_CALL_FIELDS):
        calls[call.pop("message_id")].append(call)
    actions: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for action in PendingAction.objects.filter(conversation=conversation).order_by("pk").values(*ACTION_FIELDS):
        actions[action.pop("message_id")].append(action)
    messages = []
    for message in Message.objects.filter(conversation=conversation).order_by("created_at", "pk").values(*MESSAGE_FIELDS):
        message["tool_calls"] = calls.get(message["id"], [])
        message["proposed_actions"] = actions.get(message["id"], [])
        messages.append(message)
    return {
        "id": conversation.pk,
        "title": conversation.title,
        "language": conversation.language,
        "created_at": conversation.created_at,
        "updated_at": conversation.updated_at,
        "messages": messages,
    }


def json_list(items: Iterable[Any]) -> Iterator[str]:
    """A JSON array, one item per piece."""
    yield "["
    first = True
    for item in items:
        yield encode(item) if first else ", " + encode(item)
        first = False
    yield "]"


# ------------------------------------------------------------------------------- CSV

CSV_EXPORTS: dict[str, tuple[type[Any], tuple[str, ...]]] = {
    "expenses": (Expense, ("spent_on", "description", "category", "amount")),
    "metrics": (MetricEntry, ("recorded_at", "type", "value", "unit", "note")),
}


def csv_chunks(user: User, kind: str) -> Iterator[str]:
    """The user's expenses or metrics as CSV with a header row, one piece per row."""
    model, fields = CSV_EXPORTS[kind]
    rows: QuerySet[Any] = model.objects.filter(owner=user).order_by("pk").values_list(*fields)
    yield csv_line(fields)
    for row in rows.iterator(chunk_size=CHUNK):
        yield csv_line(row)


def csv_line(values: Iterable[Any]) -> str:
    buffer = io.StringIO()
    csv.writer(buffer).writerow([csv_cell(value) for value in values])
    return buffer.getvalue()
