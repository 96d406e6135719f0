"""Files people send into a conversation: each becomes a ChatDocument (issue: files).

The file is read first (documents.files: its kind judged by content, limits, bad
input refused), its original kept in storage, then the document is created under the
conversation's lock, with ``has_documents``, so the next message's reply lists it in
AVAILABLE_DOCUMENTS and may read it. Anything refused or failing stores nothing.
"""

from __future__ import annotations

from django.db import transaction

from documents.models import ChatDocument
from documents.services import create_uploaded_document, delete_original, read_upload, save_original

from .models import Conversation, lock_conversation


def upload_file(*, conversation: Conversation, name: str, data: bytes) -> ChatDocument:
    """Store one file sent to ``conversation`` (its owner's); ``FileRefused`` when it cannot be."""
    name, read = read_upload(name, data)
    original = save_original(owner_id=conversation.owner_id, read=read, data=data)
    try:
        with transaction.atomic():
            locked = lock_conversation(conversation.pk)
            document = create_uploaded_document(conversation=locked, name=name, read=read, original=original)
            if not locked.has_documents:
                locked.has_documents = True
                locked.save(update_fields=["has_documents", "updated_at"])
    except BaseException:
        delete_original(original)
        raise
    return document
