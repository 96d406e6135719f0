"""The user's rights over their data: export (``/me/export/``), consents (``/me/consents/``).

Deleting the account is ``DELETE /api/v1/me/`` (``chat.api.user.MeView``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.db import transaction
from django.http import StreamingHttpResponse
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from lifeassistant.consents import record_answer
from lifeassistant.models import Consent, MetricEntry, Profile
from lifeassistant.openapi import error_responses
from lifeassistant.privacy import CONSENT_TEXT_VERSION, HEALTH, PURPOSES
from lifeassistant.users import request_user

from ..data_export import csv_chunks, export_chunks
from .serializers import RejectUnknownFieldsMixin

if TYPE_CHECKING:
    from django.contrib.auth.models import User

# ---------------------------------------------------------------------------- export

_ROWS = serializers.ListField(child=serializers.DictField())

ExportSerializer = inline_serializer(
    "Export",
    {
        "format": serializers.CharField(),
        "version": serializers.IntegerField(),
        "exported_at": serializers.DateTimeField(),
        "profile": serializers.DictField(),
        "memory": _ROWS,
        "expenses": _ROWS,
        "bills": _ROWS,
        "debts": _ROWS,
        "metrics": _ROWS,
        "people": _ROWS,
        "consents": _ROWS,
        "documents": _ROWS,
        "conversations": serializers.ListField(
            child=serializers.DictField(),
            help_text="Each with its messages; each message with its tool_calls and proposed_actions.",
        ),
    },
)


def download_name(user: User, stem: str, extension: str) -> str:
    """The file's name carries the day it was taken, the user's day (their time zone)."""
    return f'attachment; filename="{stem}-{Profile.for_user(user).today():%Y-%m-%d}.{extension}"'


class ExportView(APIView):
    """Everything the assistant holds about you, as one JSON document."""

    @extend_schema(
        responses={200: ExportSerializer},
        description="Your profile and preferences, conversations with their messages (skills, tool calls and "
        "their results, proposed actions and your decisions), documents, what the assistant remembers, expenses, "
        "bills, debts, metrics, people and consents. Streamed: a large account starts downloading at once.",
    )
    def get(self, request: Request) -> StreamingHttpResponse:
        user = request_user(request)
        response = StreamingHttpResponse(export_chunks(user), content_type="application/json")
        response["Content-Disposition"] = download_name(user, "life-assistant", "json")
        return response


class CsvExportView(APIView):
    """Your expenses or metrics as CSV, for a spreadsheet."""

    kind = "expenses"

    @extend_schema(responses={(200, "text/csv"): OpenApiResponse(OpenApiTypes.STR)})
    def get(self, request: Request) -> StreamingHttpResponse:
        user = request_user(request)
        response = StreamingHttpResponse(csv_chunks(user, self.kind), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = download_name(user, self.kind, "csv")
        return response


# -------------------------------------------------------------------------- consents


class ConsentSerializer(serializers.Serializer):
    """One purpose: what it is, its text, and your current answer."""

    purpose = serializers.ChoiceField(choices=Consent.Purpose.choices)
    title = serializers.CharField()
    text = serializers.CharField(help_text="What is stored and why, in your language.")
    version = serializers.IntegerField(help_text="The version of the text shown now.")
    given = serializers.BooleanField(allow_null=True, help_text="Your latest answer; null: never asked.")
    answered_at = serializers.DateTimeField(allow_null=True)
    answered_version = serializers.IntegerField(allow_null=True, help_text="The version of the text you answered.")


class ConsentAnswerSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    purpose = serializers.ChoiceField(choices=Consent.Purpose.choices)
    given = serializers.BooleanField(help_text="true gives consent; false refuses or revokes it.")
    version = serializers.IntegerField(
        required=False, help_text="The version of the text the user read; an older one is refused (409)."
    )
    delete_data = serializers.BooleanField(
        default=False, help_text="With given false: also delete the data of this purpose (health: your metrics)."
    )


def consent_list(owner_id: int) -> list[dict[str, Any]]:
    latest: dict[str, Consent] = {}
    for row in Consent.objects.filter(owner_id=owner_id).order_by("-created_at", "-id"):
        latest.setdefault(row.purpose, row)
    entries = []
    for purpose in PURPOSES.values():
        answer = latest.get(purpose.name)
        entries.append(
            {
                **{key: purpose.as_card()[key] for key in ("purpose", "title", "text", "version")},
                "given": None if answer is None else answer.given,
                "answered_at": None if answer is None else answer.created_at,
                "answered_version": None if answer is None else answer.text_version,
            }
        )
    return entries


class ConsentsView(APIView):
    """Consents for sensitive data (health, religious conviction): list, give and revoke."""

    @extend_schema(responses={200: ConsentSerializer(many=True)})
    def get(self, request: Request) -> Response:
        return Response(consent_list(request_user(request).pk))

    @extend_schema(
        request=ConsentAnswerSerializer,
        responses={200: ConsentSerializer(many=True), **error_responses(409)},
        description="Records your answer (kept with the text's version and the time). Revoking health consent "
        "stops the assistant from storing metrics; with delete_data it also deletes those you stored.",
    )
    def post(self, request: Request) -> Response:
        user = request_user(request)
        serializer = ConsentAnswerSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        answer = serializer.validated_data
        if answer.get("version", CONSENT_TEXT_VERSION) != CONSENT_TEXT_VERSION:
            return Response(
                {"detail": _("The consent text changed since you read it. Read it again, then answer.")}, status=409
            )
        with transaction.atomic():
            record_answer(user, answer["purpose"], given=answer["given"])
            if not answer["given"] and answer["delete_data"]:
                delete_purpose_data(user, answer["purpose"])
        return Response(consent_list(user.pk))


def delete_purpose_data(user: Any, purpose: str) -> None:
    """The data stored for ``purpose``: health is the metrics; religious conviction lives in
    conversations, which the user deletes themselves (or with the account)."""
    if purpose == HEALTH:
        MetricEntry.objects.filter(owner=user).delete()
