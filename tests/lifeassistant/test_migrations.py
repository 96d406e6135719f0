"""The migration history matches the models, so a database created before a refactor migrates cleanly."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_the_models_need_no_migration_that_is_not_written() -> None:
    out = StringIO()

    # Exits with SystemExit(1) when a model change has no migration.
    call_command("makemigrations", "--check", "--dry-run", stdout=out)

    assert "No changes detected" in out.getvalue()


@pytest.mark.django_db(transaction=True)
def test_every_app_migrates_down_to_zero_and_up_again() -> None:
    for app in ("chat", "documents", "skills"):
        call_command("migrate", app, "zero", verbosity=0)
    call_command("migrate", verbosity=0)

    out = StringIO()
    call_command("showmigrations", "--plan", stdout=out)
    assert "[ ]" not in out.getvalue()


@pytest.mark.django_db(transaction=True)
def test_existing_conversations_take_the_language_of_their_latest_detected_message() -> None:
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connection)
    executor.migrate([("chat", "0004_conversation_language")])
    apps = executor.loader.project_state([("chat", "0004_conversation_language")]).apps
    User = apps.get_model("auth", "User")
    Conversation, Message = apps.get_model("chat", "Conversation"), apps.get_model("chat", "Message")
    owner = User.objects.create(username="old")
    spoken, silent = Conversation.objects.create(owner=owner), Conversation.objects.create(owner=owner)
    for language in ("pt", "en", ""):
        Message.objects.create(conversation=spoken, role="user", content="x", language=language)
    Message.objects.create(conversation=silent, role="user", content="ok", language="")

    executor = MigrationExecutor(connection)
    executor.migrate([("chat", "0005_conversation_language_backfill")])
    call_command("migrate", verbosity=0)

    from chat.models import Conversation as Current

    assert Current.objects.get(pk=spoken.pk).language == "en"
    assert Current.objects.get(pk=silent.pk).language == ""
