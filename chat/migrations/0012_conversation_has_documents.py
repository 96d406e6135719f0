"""Conversation.has_documents: whether a message of it attached documents (set with them)."""

from typing import Any

from django.db import migrations, models
from django.db.models import Exists, OuterRef


def backfill(apps: Any, schema_editor: Any) -> None:
    Conversation = apps.get_model("chat", "Conversation")
    ChatDocument = apps.get_model("documents", "ChatDocument")
    Conversation.objects.filter(Exists(ChatDocument.objects.filter(conversation=OuterRef("pk")))).update(
        has_documents=True
    )


class Migration(migrations.Migration):
    dependencies = [
        ("chat", "0011_conversations_by_activity"),
        ("documents", "0002_no_duplicate_conversation_index"),
    ]

    operations = [
        migrations.AddField(
            model_name="conversation",
            name="has_documents",
            field=models.BooleanField(default=False),
        ),
        migrations.RunPython(backfill, migrations.RunPython.noop),
    ]
