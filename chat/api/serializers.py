"""Serializers of the chat API: they validate input and shape output, nothing else."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from drf_spectacular.utils import extend_schema_field, inline_serializer
from rest_framework import serializers

from documents.models import ChatDocument

from ..actions import effective_status
from ..models import Conversation, Message, PendingAction, ToolCall


class StrictCharField(serializers.CharField):
    """A CharField that refuses numbers and booleans instead of converting them."""

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class RejectUnknownFieldsMixin:
    """Reject keys the endpoint does not know, so typos fail loudly."""

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        unknown = set(self.initial_data) - set(self.fields)  # type: ignore[attr-defined]
        if unknown:
            raise serializers.ValidationError({key: ["Unknown field."] for key in sorted(unknown)})
        return attrs


class ConversationSerializer(RejectUnknownFieldsMixin, serializers.ModelSerializer):
    title = StrictCharField(max_length=200, required=False, allow_blank=True)

    class Meta:
        model = Conversation
        fields = ["id", "title", "active_skills", "created_at", "updated_at"]
        read_only_fields = ["id", "active_skills", "created_at", "updated_at"]


class ToolCallSerializer(serializers.ModelSerializer):
    class Meta:
        model = ToolCall
        fields = ["id", "call_id", "iteration", "tool", "arguments", "result", "ok", "error", "duration_ms"]


class MessageDocumentSerializer(serializers.ModelSerializer):
    class Meta:
        model = ChatDocument
        fields = ["id", "file_name", "title", "mime_type", "size_bytes", "summary"]


class PendingActionBriefSerializer(serializers.ModelSerializer):
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


class MessageSerializer(serializers.ModelSerializer):
    usage = serializers.SerializerMethodField()
    tool_calls = ToolCallSerializer(many=True, read_only=True)
    pending_actions = PendingActionBriefSerializer(many=True, read_only=True)
    documents = MessageDocumentSerializer(many=True, read_only=True)

    class Meta:
        model = Message
        fields = [
            "id",
            "conversation",
            "role",
            "status",
            "content",
            "intent",
            "language",
            "error",
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
            "created_at",
            "finished_at",
        ]
        read_only_fields = fields

    @extend_schema_field(UsageSerializer)
    def get_usage(self, message: Message) -> dict[str, Any]:
        return UsageSerializer(
            {
                "prompt_tokens": message.prompt_tokens,
                "completion_tokens": message.completion_tokens,
                "total_tokens": message.total_tokens,
                "cost": message.cost,
            }
        ).data


class MessageCreateSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    content = StrictCharField(max_length=settings.MESSAGE_MAX_CHARS, trim_whitespace=False)

    def validate_content(self, value: str) -> str:
        if not value.strip():
            raise serializers.ValidationError("This field may not be blank.")
        return value


class SubmissionSerializer(serializers.Serializer):
    user_message = MessageSerializer()
    assistant_message = MessageSerializer(allow_null=True)


class TokenRequestSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    username = StrictCharField(max_length=150)
    password = StrictCharField(max_length=128, trim_whitespace=False, style={"input_type": "password"})


class TokenSerializer(serializers.Serializer):
    token = serializers.CharField()


class CommandSerializer(serializers.Serializer):
    name = serializers.CharField()
    description = serializers.CharField()
    usage = serializers.CharField()


class ContextActionSerializer(serializers.Serializer):
    """Documents the context endpoint's body; validation is the contract's own."""

    action = serializers.ChoiceField(choices=["store", "retrieve", "clear"])
    last_intent = serializers.CharField(required=False)
    last_task_id = serializers.CharField(required=False, allow_null=True)
    pending_fields = serializers.ListField(child=serializers.CharField(), required=False)
    last_user_message = serializers.CharField(required=False)


# The API's error body, for the schema only. Built inline because a serializer
# field named "errors" would shadow Serializer.errors.
ERROR_BODY = inline_serializer(
    name="Error",
    fields={
        "detail": serializers.CharField(),
        "errors": serializers.DictField(required=False, help_text="Per-field messages, for validation errors."),
    },
)


def error_responses(*codes: int) -> dict[int, Any]:
    """OpenAPI responses for the error codes an endpoint can answer."""
    return {code: ERROR_BODY for code in codes}
