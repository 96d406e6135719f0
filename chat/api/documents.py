"""Documents API: list a conversation's documents, read one, send a file."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers, status
from rest_framework.exceptions import APIException, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from documents.files import FileRefused, too_large
from documents.models import ChatDocument
from documents.services import owned_documents, upload_limits
from lifeassistant.openapi import error_responses
from lifeassistant.users import request_user

from ..models import Conversation
from ..throttling import MessageRateThrottle
from ..uploads import upload_file
from .parsers import UploadParser


class DocumentSerializer(serializers.ModelSerializer):
    class Meta:
        model = ChatDocument
        fields = ["id", "conversation", "message", "label", "file_name", "title", "mime_type", "size_bytes", "summary", "created_at"]
        read_only_fields = fields


class TransactionSerializer(serializers.Serializer):
    """One line of a bank statement: money out is a ``debit`` with a negative amount."""

    date = serializers.DateField(read_only=True)
    description = serializers.CharField(read_only=True)
    amount = serializers.DecimalField(max_digits=14, decimal_places=2, read_only=True)
    type = serializers.ChoiceField(choices=["debit", "credit"], read_only=True)


class DocumentWithTransactionsSerializer(DocumentSerializer):
    transactions = TransactionSerializer(many=True, read_only=True, help_text="A bank statement's lines (OFX or CSV); [] otherwise.")

    class Meta(DocumentSerializer.Meta):
        fields = [*DocumentSerializer.Meta.fields, "transactions"]
        read_only_fields = fields


class DocumentContentSerializer(DocumentWithTransactionsSerializer):
    class Meta(DocumentWithTransactionsSerializer.Meta):
        fields = [*DocumentWithTransactionsSerializer.Meta.fields, "content"]
        read_only_fields = fields


class FileUploadSerializer(serializers.Serializer):
    file = serializers.FileField(
        help_text="OFX, CSV, PDF, XLSX, text or Markdown, judged by its content; at most UPLOAD_MAX_BYTES (10 MiB)."
    )


class UploadedSerializer(serializers.Serializer):
    documents = DocumentWithTransactionsSerializer(many=True, read_only=True)


class ConversationDocumentsView(generics.ListAPIView):
    """The documents of one of your conversations, oldest first (without content)."""

    serializer_class = DocumentSerializer
    pagination_class = None

    def get_queryset(self) -> QuerySet[ChatDocument]:
        user = request_user(self.request)
        conversation = get_object_or_404(Conversation.objects.filter(owner=user), pk=self.kwargs["conversation_id"])
        return owned_documents(user).filter(conversation=conversation).defer("content")


class DocumentDetailView(generics.RetrieveAPIView):
    """One of your documents, with its content."""

    serializer_class = DocumentContentSerializer

    def get_queryset(self) -> Any:
        return owned_documents(request_user(self.request))


class ConversationFilesView(APIView):
    """Send a file into one of your conversations (``multipart/form-data``, field ``file``).

    It becomes a document, named so a message can refer to it (``@extrato.csv``), listed
    to the next reply; a bank statement (OFX, or a CSV with date, description and amount
    columns) also gets its ``transactions``. A file too large (413), of a kind that is not
    read here (415), damaged, protected by a password, holding spreadsheet formulas or a
    name with folders or control characters (400) is refused and nothing is stored.
    Throttled with the message rate.
    """

    parser_classes = [UploadParser]
    throttle_scope = "messages"
    throttle_classes = [MessageRateThrottle]

    @extend_schema(
        request={"multipart/form-data": FileUploadSerializer},
        responses={201: UploadedSerializer, **error_responses(413, 415)},
    )
    def post(self, request: Request, conversation_id: int) -> Response:
        user = request_user(request)
        conversation = get_object_or_404(Conversation.objects.filter(owner=user), pk=conversation_id)
        files = request.FILES.getlist("file")
        if len(files) != 1 or set(request.FILES) != {"file"}:
            raise ValidationError({"file": [_("Send exactly one file, in the field named file.")]})
        [sent] = files
        if sent.size is None or sent.size > settings.UPLOAD_MAX_BYTES:
            raise FileNotStored(too_large(upload_limits()))
        try:
            document = upload_file(conversation=conversation, name=sent.name or "", data=sent.read())
        except FileRefused as exc:
            raise FileNotStored(exc) from None
        return Response(UploadedSerializer({"documents": [document]}).data, status=status.HTTP_201_CREATED)


class FileNotStored(APIException):
    """A refused file, answered with the refusal's status and sentence."""

    default_code = "file_refused"

    def __init__(self, refusal: FileRefused) -> None:
        super().__init__(str(refusal))
        self.status_code = refusal.status
