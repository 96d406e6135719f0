"""Existing conversations take the language of their latest user message that had one."""

from typing import Any

from django.db import migrations
from django.db.models import OuterRef, Subquery, Value
from django.db.models.functions import Coalesce


def backfill(apps: Any, schema_editor: Any) -> None:
    Conversation = apps.get_model("chat", "Conversation")
    Message = apps.get_model("chat", "Message")
    latest = (
        Message.objects.filter(conversation=OuterRef("pk"), role="user")
        .exclude(language="")
        .order_by("-created_at", "-id")
        .values("language")[:1]
    )
    # A conversation with no detected language keeps "" (the subquery finds nothing).
    Conversation.objects.filter(language="").update(language=Coalesce(Subquery(latest), Value("")))


class Migration(migrations.Migration):
    dependencies = [("chat", "0004_conversation_language")]

    operations = [migrations.RunPython(backfill, migrations.RunPython.noop)]
