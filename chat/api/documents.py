"""Documents API: list a conversation's documents, read one."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from rest_framework import generics, serializers

from documents.models import ChatDocument
from documents.services import owned_documents
from lifeassistant.users import request_user

from ..models import Conversation


class DocumentSerializer(serializers.ModelSerializer):
    class Meta:
        model = ChatDocument
        fields = ["id", "conversation", "message", "label", "file_name", "title", "mime_type", "size_bytes", "summary", "created_at"]
        read_only_fields = fields


class DocumentContentSerializer(DocumentSerializer):
    class Meta(DocumentSerializer.Meta):
        fields = [*DocumentSerializer.Meta.fields, "content"]
        read_only_fields = fields


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
