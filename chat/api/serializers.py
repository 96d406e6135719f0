"""Serializers of the chat API: they validate input and shape output, nothing else."""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from django.conf import settings
from django.db import DatabaseError, models, transaction
from django.utils.formats import number_format
from django.utils.functional import lazy
from django.utils.translation import gettext as _
from drf_spectacular.utils import PolymorphicProxySerializer, extend_schema_field, inline_serializer
from rest_framework import exceptions, serializers
from rest_framework.validators import ProhibitSurrogateCharactersValidator

from documents.listing import preview
from documents.models import ChatDocument

from lifeassistant import light_context
from lifeassistant.consents import consents_of_user
from lifeassistant.models import Consent
from lifeassistant.privacy import PURPOSES

from .. import markdown, reply_html
from ..actions import effective_status
from ..failures import Failure, failure_text
from ..models import Conversation, Message, PendingAction, ToolCall
from ..reply_progress import live_text


class BuiltOnceMixin:
    """Build a ModelSerializer's fields once per class, not per instance.

    ``ModelSerializer.get_fields`` introspects the model for every instance (and every
    nested instance): building a message's 202 spent a third of the POST there. The
    fields do not depend on the instance or the context here, so each instance gets a
    copy of the class's set.

    The copy is shallow for plain fields: binding a field to its serializer only sets
    attributes on the copy (name, parent, source), and nothing in a plain field changes
    after that. DRF's deep copy rebuilt each one from deep copies of its arguments
    (every choice list, every validator), a tenth of a message POST's CPU. A nested
    serializer or a many-relation holds a child bound to it, so those are deep-copied.
    """

    _built: dict[type, dict[str, serializers.Field]] = {}

    def get_fields(self) -> dict[str, serializers.Field]:
        cls = type(self)
        if cls not in BuiltOnceMixin._built:
            BuiltOnceMixin._built[cls] = super().get_fields()  # type: ignore[misc]
        return {name: _unbound_copy(field) for name, field in BuiltOnceMixin._built[cls].items()}


def _unbound_copy(field: serializers.Field) -> serializers.Field:
    if isinstance(field, (serializers.BaseSerializer, serializers.ManyRelatedField)):
        return copy.deepcopy(field)
    return copy.copy(field)


_SURROGATE = re.compile("[\ud800-\udfff]")


class ProhibitSurrogates(ProhibitSurrogateCharactersValidator):
    """DRF's check, message and code, as one regular-expression scan: DRF's walks the
    text a character at a time in Python, 3 ms of a 40 KB paste's POST."""

    def __call__(self, value: Any) -> None:
        found = _SURROGATE.search(str(value))
        if found is not None:
            raise serializers.ValidationError(self.message.format(code_point=ord(found.group())), code=self.code)


_INVISIBLE = re.compile(r"[\s\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]+")


class StrictCharField(serializers.CharField):
    """A CharField that refuses numbers and booleans instead of converting them."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.validators = [
            ProhibitSurrogates() if type(validator) is ProhibitSurrogateCharactersValidator else validator
            for validator in self.validators
        ]

    def run_validation(self, data: Any = serializers.empty) -> Any:
        # The schema's maxLength is the length sent: DRF measures after trimming, so a text
        # one space over the limit was accepted.
        if isinstance(data, str) and self.max_length is not None and len(data) > self.max_length:
            self.fail("max_length", max_length=self.max_length)
        # Zero-width spaces, joiners and direction marks show nothing: a text made only of
        # them (and spaces) is as blank as an empty one: refused where blank is, else "".
        if isinstance(data, str) and self.trim_whitespace and _INVISIBLE.fullmatch(data):
            if not self.allow_blank:
                self.fail("blank")
            data = ""
        return super().run_validation(data)

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class RejectUnknownFieldsMixin:
    """Reject keys the endpoint does not know, so typos fail loudly."""

    # Read by the schema (lifeassistant.openapi): the body is documented as closed.
    reject_unknown_fields = True

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        unknown = set(self.initial_data) - set(self.fields)  # type: ignore[attr-defined]
        if unknown:
            raise serializers.ValidationError({key: [_("Unknown field.")] for key in sorted(unknown)})
        return attrs


class ConversationSerializer(RejectUnknownFieldsMixin, BuiltOnceMixin, serializers.ModelSerializer):
    """A conversation; only its title can be written."""

    title = StrictCharField(max_length=200, required=False, allow_blank=True)

    class Meta:
        model = Conversation
        fields = ["id", "title", "active_skills", "created_at", "updated_at"]
        read_only_fields = ["id", "active_skills", "created_at", "updated_at"]

    def update(self, instance: Conversation, validated_data: dict[str, Any]) -> Conversation:
        """Write only the fields given: the row this request read may be older than the
        language or skills a message stored meanwhile, and a rename must not put them back."""
        save_given_fields(instance, validated_data)
        return instance


def save_given_fields(instance: models.Model, changes: dict[str, Any]) -> None:
    """Write ``changes`` and ``updated_at``, and only them, so a concurrent write of another
    field survives. A row another request deleted since this one read it is a 404 (Django
    reports the update that found no row as a ``DatabaseError``). Values equal to the stored
    ones are no change: ``updated_at`` stays (memory is ranked by it in the prompt)."""
    changes = {name: value for name, value in changes.items() if getattr(instance, name) != value}
    if not changes:
        return
    for name, value in changes.items():
        setattr(instance, name, value)
    try:
        with transaction.atomic():
            instance.save(update_fields=[*changes, "updated_at"])
    except DatabaseError:
        if type(instance)._base_manager.filter(pk=instance.pk).exists():
            raise
        raise exceptions.NotFound() from None


class ToolCallSerializer(BuiltOnceMixin, serializers.ModelSerializer):
    class Meta:
        model = ToolCall
        fields = ["id", "call_id", "iteration", "tool", "arguments", "result", "ok", "error", "duration_ms"]


class MessageDocumentSerializer(BuiltOnceMixin, serializers.ModelSerializer):
    preview = serializers.SerializerMethodField(
        help_text="The document's first lines (at most 5 lines, 400 characters); GET /api/v1/documents/{id}/ has it all."
    )

    class Meta:
        model = ChatDocument
        fields = ["id", "file_name", "title", "mime_type", "size_bytes", "summary", "preview"]

    def get_preview(self, document: ChatDocument) -> str:
        return preview(document.content)


class PendingActionBriefSerializer(BuiltOnceMixin, serializers.ModelSerializer):
    """A writing action the reply proposed, as shown under the message."""

    status = serializers.SerializerMethodField()

    class Meta:
        model = PendingAction
        fields = ["id", "tool", "arguments", "summary", "status", "expires_at"]
        read_only_fields = fields

    @extend_schema_field(serializers.ChoiceField(choices=PendingAction.Status.choices))
    def get_status(self, action: PendingAction) -> str:
        return effective_status(action)


class PendingActionSerializer(PendingActionBriefSerializer):
    class Meta:
        model = PendingAction
        fields = [
            "id",
            "conversation",
            "message",
            "tool",
            "arguments",
            "summary",
            "status",
            "result",
            "error",
            "created_at",
            "expires_at",
            "decided_at",
            "executed_at",
        ]
        read_only_fields = fields


class UsageSerializer(serializers.Serializer):
    prompt_tokens = serializers.IntegerField()
    completion_tokens = serializers.IntegerField()
    total_tokens = serializers.IntegerField()
    cost = serializers.DecimalField(max_digits=12, decimal_places=6, allow_null=True)


# Renders ``usage.cost`` as UsageSerializer declares it, without a serializer per message.
COST_FIELD = UsageSerializer().fields["cost"]


# A user message longer than this shows as a preview in the message list and the 202
# (``content_truncated``); ``GET /api/v1/messages/{id}/`` returns it whole. Pasted
# documents travel by reference (``documents``), never inline.
PREVIEW_CHARS = 1000


class ConsentCardSerializer(serializers.Serializer):
    """A request for consent, as a client shows it (in the reader's language)."""

    purpose = serializers.ChoiceField(choices=Consent.Purpose.choices)
    version = serializers.IntegerField(help_text="The version of the text; send it back with the answer.")
    title = serializers.CharField()
    text = serializers.CharField(help_text="What is stored and why.")


class MessageListSerializer(serializers.ListSerializer):
    """Messages in a page: the HTML of its ended replies comes in one cache round trip."""

    def to_representation(self, data: Any) -> list[Any]:
        messages = list(data.all() if isinstance(data, models.Manager) else data)
        assert isinstance(self.child, MessageSerializer)  # Meta.list_serializer_class below
        self.child.html_ahead = reply_html.ended_replies_html(
            message.content for message in messages if message.role == Message.Role.ASSISTANT and message.has_ended
        )
        return super().to_representation(messages)


class MessageSerializer(BuiltOnceMixin, serializers.ModelSerializer):
    """A message. With ``context={"preview": True}``, a long user message is cut to a preview."""

    # Set by MessageListSerializer: the page's ended replies' HTML, by text.
    html_ahead: Mapping[str, str] = MappingProxyType({})

    content = serializers.SerializerMethodField(
        help_text="The text; a user message in a list or a 202 is cut to a preview when content_truncated is true."
    )
    content_truncated = serializers.SerializerMethodField(
        help_text="True when content is a preview: GET /api/v1/messages/{id}/ has the whole text."
    )
    content_html = serializers.SerializerMethodField(
        help_text="An assistant message's markdown as sanitized HTML (no raw HTML, scripts, images or "
        "non-http links; links open in a new tab). Null for user messages, which show as plain text."
    )
    error = serializers.SerializerMethodField(
        help_text="A failed reply: what happened, in the reader's language (empty otherwise)."
    )
    error_code = serializers.ChoiceField(
        choices=Failure.choices, allow_blank=True, read_only=True,
        help_text="A failed reply: why, as a stable code for clients (empty otherwise).",
    )
    usage = serializers.SerializerMethodField()
    # Read through ``_related``: a message just created has its relations in the context.
    tool_calls = serializers.SerializerMethodField()
    pending_actions = serializers.SerializerMethodField()
    documents = serializers.SerializerMethodField()
    consent_requests = serializers.SerializerMethodField(
        help_text="Consents this reply asks for (a card to show): it went without a skill or tool for lack of them. "
        "Answer with POST /api/v1/me/consents/; answered ones are no longer listed."
    )

    class Meta:
        model = Message
        list_serializer_class = MessageListSerializer
        fields = [
            "id",
            "conversation",
            "role",
            "status",
            "content",
            "content_truncated",
            "content_html",
            "intent",
            "language",
            "error",
            "error_code",
            "reply_to",
            "active_skills",
            "skill_reason",
            "tools_offered",
            "temperature",
            "fixed_tokens",
            "monolithic_fixed_tokens",
            "model",
            "usage",
            "tool_calls",
            "pending_actions",
            "documents",
            "consent_requests",
            "created_at",
            "finished_at",
        ]
        read_only_fields = fields

    def _related(self, message: Message, name: str) -> Any:
        """A relation of ``message``: from ``context["relations"]`` for a message just
        created (what it holds is known, so nothing is asked), else its prefetched rows."""
        known = self.context.get("relations", {}).get(message.pk)
        return known[name] if known is not None else getattr(message, name).all()

    @extend_schema_field(ToolCallSerializer(many=True))
    def get_tool_calls(self, message: Message) -> Any:
        return ToolCallSerializer(self._related(message, "tool_calls"), many=True, context=self.context).data

    @extend_schema_field(PendingActionBriefSerializer(many=True))
    def get_pending_actions(self, message: Message) -> Any:
        return PendingActionBriefSerializer(self._related(message, "pending_actions"), many=True, context=self.context).data

    @extend_schema_field(MessageDocumentSerializer(many=True))
    def get_documents(self, message: Message) -> Any:
        return MessageDocumentSerializer(self._related(message, "documents"), many=True, context=self.context).data

    def _is_cut(self, message: Message) -> bool:
        return (
            bool(self.context.get("preview"))
            and message.role == Message.Role.USER
            and len(message.content) > PREVIEW_CHARS
        )

    def _text(self, message: Message) -> str:
        """The stored text; a running reply's is in its event log (the row is written only
        every few seconds), read once per message."""
        if message.status != Message.Status.RUNNING:
            return message.content
        live = self.__dict__.setdefault("_live_texts", {})
        if message.pk not in live:
            text = live_text(message.pk)
            live[message.pk] = message.content if text is None else text
        return str(live[message.pk])

    def get_content(self, message: Message) -> str:
        if self._is_cut(message):
            return message.content[:PREVIEW_CHARS].rstrip() + "…"
        return self._text(message)

    def get_content_truncated(self, message: Message) -> bool:
        return self._is_cut(message)

    def get_error(self, message: Message) -> str:
        # The stored detail names classes and provider errors: it stays in the logs and the admin.
        return failure_text(message.error_code) if message.status == Message.Status.FAILED else ""

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_content_html(self, message: Message) -> str | None:
        if message.role != Message.Role.ASSISTANT:
            return None
        if not message.has_ended:  # its text changes with every batch: rendered as it is now
            return markdown.render(self._text(message))
        html = self.html_ahead.get(message.content)
        return html if html is not None else reply_html.ended_replies_html([message.content])[message.content]

    @extend_schema_field(ConsentCardSerializer(many=True))
    def get_consent_requests(self, message: Message) -> list[dict[str, Any]]:
        if not message.consent_asked:
            return []
        request = self.context.get("request")
        user_id = getattr(getattr(request, "user", None), "pk", None)
        answered: frozenset[str] = frozenset()
        if user_id is not None:
            # Once per page: the same answers for each of its messages (the context is
            # the page's, shared by its messages' serializers).
            context = self.context
            assert isinstance(context, dict)
            if "consents_answered" not in context:
                context["consents_answered"] = consents_of_user(user_id).answered
            answered = context["consents_answered"]
        return [PURPOSES[name].as_card() for name in message.consent_asked if name in PURPOSES and name not in answered]

    @extend_schema_field(UsageSerializer)
    def get_usage(self, message: Message) -> dict[str, Any]:
        return {
            "prompt_tokens": message.prompt_tokens,
            "completion_tokens": message.completion_tokens,
            "total_tokens": message.total_tokens,
            "cost": COST_FIELD.to_representation(message.cost) if message.cost is not None else None,
        }


def too_long_message(limit: int) -> str:
    """The limit in the reader's language and number format (100.000 in pt-BR)."""
    return _("A message can have at most %(limit)s characters. Send a longer text in parts.") % {
        "limit": number_format(limit, force_grouping=True)
    }


class MessageCreateSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    """A message to send: plain text, /commands, !shell (staff) or @document references."""

    content = StrictCharField(
        max_length=settings.MESSAGE_MAX_CHARS,
        trim_whitespace=False,
        error_messages={"max_length": lazy(lambda: too_long_message(settings.MESSAGE_MAX_CHARS), str)()},
    )

    def validate_content(self, value: str) -> str:
        if not value or _INVISIBLE.fullmatch(value):
            raise serializers.ValidationError(_("This field may not be blank."))
        return value


class SubmissionSerializer(serializers.Serializer):
    user_message = MessageSerializer()
    assistant_message = MessageSerializer(allow_null=True)


class CredentialsSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    """A username and password, exchanged for an API token."""

    username = StrictCharField(max_length=150)
    password = StrictCharField(max_length=128, trim_whitespace=False, style={"input_type": "password"})
    client = StrictCharField(
        max_length=100,
        required=False,
        allow_blank=True,
        help_text="The device or app signing in (e.g. 'Ana's phone'): signing in again under the same name "
        "revokes that client's previous token. Optional.",
    )


class TokenSerializer(serializers.Serializer):
    """A new API token: the key is shown this once (only its digest is stored)."""

    token = serializers.CharField()
    id = serializers.IntegerField()
    client = serializers.CharField()
    expires_at = serializers.DateTimeField()


class ApiTokenSerializer(serializers.Serializer):
    """One of your API tokens, without its key."""

    id = serializers.IntegerField()
    client = serializers.CharField()
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField()
    current = serializers.BooleanField(help_text="Whether this request was authenticated with this token.")


class CommandSerializer(serializers.Serializer):
    name = serializers.CharField()
    description = serializers.CharField()
    usage = serializers.CharField()


# The context contract's validation (lifeassistant/light_context.py), described for the schema:
# an intent has something besides spaces. (Text with NUL is refused too; the field
# descriptions say so, as a pattern for it makes generated test data far too slow.)
INTENT_TEXT = r"\S"
NO_NUL = "Text without NUL characters."


@extend_schema_field(
    {
        "oneOf": [
            {"type": "string", "maxLength": light_context.MAX_TASK_ID_CHARS, "description": NO_NUL},
            {
                "type": "number",
                "minimum": -light_context.MAX_TASK_ID_NUMBER,
                "maximum": light_context.MAX_TASK_ID_NUMBER,
            },
        ],
        "nullable": True,
    }
)
class TaskIdField(serializers.Field):
    """A task id: a string, a finite number or null (schema only)."""


class ContextStoreSerializer(serializers.Serializer):
    """Store the four fields, replacing the conversation's context."""

    # Read by the schema: the contract refuses keys it does not know when storing.
    reject_unknown_fields = True

    action = serializers.ChoiceField(choices=["store"])
    last_intent = serializers.RegexField(INTENT_TEXT, max_length=light_context.MAX_INTENT_CHARS, help_text=NO_NUL)
    last_task_id = TaskIdField()
    pending_fields = serializers.ListField(
        child=serializers.CharField(max_length=light_context.MAX_FIELD_NAME_CHARS, allow_blank=True, help_text=NO_NUL),
        max_length=light_context.MAX_PENDING_FIELDS,
    )
    last_user_message = serializers.CharField(
        max_length=light_context.MAX_MESSAGE_CHARS, allow_blank=True, trim_whitespace=False, help_text=NO_NUL
    )


class ContextReadSerializer(serializers.Serializer):
    """Retrieve or clear: only the action is read."""

    action = serializers.ChoiceField(choices=["retrieve", "clear"])


# The context endpoint's body, one shape per action (documents the contract; the
# contract validates).
CONTEXT_ACTION = PolymorphicProxySerializer(
    component_name="ContextAction",
    serializers=[ContextStoreSerializer, ContextReadSerializer],
    resource_type_field_name=None,
)


class ContextSnapshotSerializer(serializers.Serializer):
    """The four stored fields, as the context endpoint returns them."""

    last_intent = serializers.CharField()
    last_task_id = serializers.CharField(allow_null=True)
    pending_fields = serializers.ListField(child=serializers.CharField())
    last_user_message = serializers.CharField()


# The contract's success body: stored_context (store), context (retrieve) or message
# (clear). Built inline because a field named "context" would shadow Serializer.context.
CONTEXT_RESULT = inline_serializer(
    name="ContextResult",
    fields={
        "success": serializers.BooleanField(),
        "stored_context": ContextSnapshotSerializer(required=False),
        "context": ContextSnapshotSerializer(required=False, allow_null=True),
        "message": serializers.CharField(required=False),
    },
)


class ContextErrorSerializer(serializers.Serializer):
    """The contract's error body."""

    success = serializers.BooleanField()
    error = serializers.CharField()
