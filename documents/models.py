"""Documents attached to chat messages (pasted context moved out of the message)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models


class ChatDocument(models.Model):
    """A document a user owns, attached to the message it came from."""

    USER_CONTEXT = "user_context"
    USER_FILE = "user_file"  # a file the user sent (chat.uploads); the original is in storage

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chat_documents")
    # No index of its own: chatdoc_conv_created and the unique name constraint start with it.
    conversation = models.ForeignKey(
        "chat.Conversation", on_delete=models.CASCADE, related_name="documents", db_index=False
    )
    message = models.ForeignKey(
        "chat.Message", on_delete=models.CASCADE, null=True, blank=True, related_name="documents"
    )
    label = models.CharField(max_length=32, default=USER_CONTEXT)
    file_name = models.CharField(max_length=120)
    title = models.CharField(max_length=200, blank=True)
    mime_type = models.CharField(max_length=100, default="text/plain")
    content = models.TextField()
    size_bytes = models.PositiveIntegerField(default=0)
    summary = models.CharField(max_length=200, blank=True)
    # The file as it was sent, under a name of ours (never the sender's): "" for pasted text.
    original = models.FileField(max_length=200, blank=True)
    # A bank statement's lines (documents.statements.Transaction.as_json), [] for other documents.
    transactions = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [models.Index(fields=["conversation", "created_at"], name="chatdoc_conv_created")]
        constraints = [
            models.UniqueConstraint(fields=["conversation", "file_name"], name="chatdoc_unique_name_per_conversation")
        ]

    def __str__(self) -> str:
        return self.file_name

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.size_bytes = len(self.content.encode("utf-8"))
        super().save(*args, **kwargs)
