"""The migration history matches the models, so a database created before a refactor migrates cleanly."""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor


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


def _models_at(chat_migration: str) -> tuple[Any, Any, Any]:
    """The database migrated back to ``chat_migration``, and its User, Conversation and Message then."""
    executor = MigrationExecutor(connection)
    executor.migrate([("chat", chat_migration)])
    apps = executor.loader.project_state([("chat", chat_migration)]).apps
    return apps.get_model("auth", "User"), apps.get_model("chat", "Conversation"), apps.get_model("chat", "Message")


@pytest.mark.django_db(transaction=True)
def test_existing_conversations_take_the_language_of_their_latest_detected_message() -> None:
    User, Conversation, Message = _models_at("0004_conversation_language")
    owner = User.objects.create(username="old")
    spoken, silent = Conversation.objects.create(owner=owner), Conversation.objects.create(owner=owner)
    for language in ("pt", "en", ""):
        Message.objects.create(conversation=spoken, role="user", content="x", language=language)
    Message.objects.create(conversation=silent, role="user", content="ok", language="")

    MigrationExecutor(connection).migrate([("chat", "0005_conversation_language_backfill")])
    call_command("migrate", verbosity=0)

    from chat.models import Conversation as Current

    assert Current.objects.get(pk=spoken.pk).language == "en"
    assert Current.objects.get(pk=silent.pk).language == ""


@pytest.mark.django_db(transaction=True)
def test_replies_that_failed_before_error_codes_get_the_code_their_text_tells() -> None:
    User, Conversation, Message = _models_at("0008_conversation_title_source")
    conversation = Conversation.objects.create(owner=User.objects.create(username="old"))
    texts = {
        "The assistant took too long to answer. Please retry.": "timeout",
        "A assistente demorou demais para responder. Tente de novo.": "timeout",
        "The language model is unavailable (ServiceUnavailableError) after 3 attempts.": "model_unavailable",
        "Não foi possível falar com o assistente. Tente de novo.": "not_queued",
        "An internal error stopped the assistant. Please retry.": "internal",
    }
    rows = {
        Message.objects.create(conversation=conversation, role="assistant", status="failed", error=text).pk: code
        for text, code in texts.items()
    }
    done = Message.objects.create(conversation=conversation, role="assistant", status="done").pk

    call_command("migrate", verbosity=0)

    from chat.models import Message as Current

    assert {pk: Current.objects.get(pk=pk).error_code for pk in rows} == rows
    assert Current.objects.get(pk=done).error_code == ""


@pytest.mark.django_db(transaction=True)
def test_conversations_that_hold_documents_are_marked_so() -> None:
    then = [("chat", "0011_conversations_by_activity"), ("documents", "0002_no_duplicate_conversation_index")]
    MigrationExecutor(connection).migrate(then)  # documents too: its later columns did not exist then
    apps = MigrationExecutor(connection).loader.project_state(then).apps
    User, Conversation = apps.get_model("auth", "User"), apps.get_model("chat", "Conversation")
    ChatDocument = apps.get_model("documents", "ChatDocument")
    owner = User.objects.create(username="old")
    with_documents, without = Conversation.objects.create(owner=owner), Conversation.objects.create(owner=owner)
    ChatDocument.objects.create(owner=owner, conversation=with_documents, file_name="a.csv", content="a,b")

    call_command("migrate", verbosity=0)

    from chat.models import Conversation as Current

    assert Current.objects.get(pk=with_documents.pk).has_documents is True
    assert Current.objects.get(pk=without.pk).has_documents is False


@pytest.mark.django_db(transaction=True)
def test_code_from_before_the_quiet_counts_still_starts_conversations_on_a_migrated_database() -> None:
    # A rolling upgrade migrates first, then restarts processes: until then a process runs the
    # models of 0016, whose INSERT names no skills_quiet_for (docs/operations.md).
    call_command("migrate", verbosity=0)
    apps = MigrationExecutor(connection).loader.project_state([("chat", "0016_message_consent_and_content_access")]).apps
    User, Conversation = apps.get_model("auth", "User"), apps.get_model("chat", "Conversation")

    old = Conversation.objects.create(owner=User.objects.create(username="old"))

    from chat.models import Conversation as Current

    assert Current.objects.get(pk=old.pk).skills_quiet_for == []
