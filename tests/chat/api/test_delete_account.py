"""DELETE /api/v1/me/: the account and everything of it, gone for good."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from django.core.cache import cache
from django.db import models
from django.test import Client
from django.utils import timezone
from chat.api_tokens import issue_token
from rest_framework.test import APIClient

from chat.erasure import throttle_key
from chat.models import Conversation, Message
from chat.throttling import MessageRateThrottle
from chat.reply_html import cache_key
from documents.models import ChatDocument
from lifeassistant import light_context
from lifeassistant.event_log import event_log
from lifeassistant.models import AccountDeletion, Consent, Expense, KnowledgeItem, MetricEntry, Person
from lifeassistant.privacy import subject_hash

pytestmark = pytest.mark.django_db

LONG_REPLY = "Uma resposta longa o bastante para ficar em cache. " * 10


def rows_referring_to(user_id: int, conversation_ids: list[int]) -> dict[str, int]:
    """Rows of every model with a foreign key to the user, directly or through a
    conversation (or a message of one), that still point at them."""
    user_model = get_user_model()
    found: dict[str, int] = {}
    for model in apps.get_models():
        for field in model._meta.concrete_fields:
            if not isinstance(field, models.ForeignKey | models.OneToOneField):
                continue
            target = field.related_model
            if target is user_model:
                ids: list[int] = [user_id]
            elif target is Conversation:
                ids = conversation_ids
            elif target is Message:
                ids = list(Message.objects.filter(conversation_id__in=conversation_ids).values_list("pk", flat=True))
            else:
                continue
            count = model._default_manager.filter(**{f"{field.attname}__in": ids}).count() if ids else 0
            if count:
                found[f"{model._meta.label}.{field.name}"] = count
    return found


@pytest.fixture
def full_account(user: Any, api: APIClient, send: Any, conversation: dict[str, Any]) -> dict[str, Any]:
    """A user with a conversation, a reply, documents, memory, money, health, people,
    consents, a token, a session and traces in the cache and the event log."""
    send(api, conversation["id"], {"content": "Olá, tudo bem?"})
    reply = Message.objects.filter(role="assistant").get()
    Message.objects.filter(pk=reply.pk).update(content=LONG_REPLY)
    user_message = Message.objects.filter(role="user").get()
    ChatDocument.objects.create(
        owner=user, conversation_id=conversation["id"], message=user_message, file_name="lista.txt", content="arroz"
    )
    KnowledgeItem.objects.create(owner=user, content="Sou vegetariana")
    Expense.objects.create(owner=user, amount=Decimal("50"), description="mercado", spent_on=date(2026, 1, 5))
    MetricEntry.objects.create(owner=user, type="weight", value=Decimal("70"), unit="kg", recorded_at=timezone.now())
    Person.objects.create(owner=user, name="Maria")
    Consent.objects.create(owner=user, purpose="health", text_version=1, given=True)
    _, token_key = issue_token(user)
    web = Client()
    web.force_login(user)
    cache.set(light_context.context_key(user.pk, conversation["id"]), {"last_intent": "x"}, 600)
    cache.set(cache_key(LONG_REPLY), "<p>html</p>", 600)
    cache.set(throttle_key(MessageRateThrottle(), user.pk), [1.0], 600)
    event_log().append(reply.pk, "delta", {"text": "Olá"})
    return {"token": token_key, "web": web, "conversation": conversation["id"], "reply": reply.pk}


def test_a_wrong_password_is_a_400_and_deletes_nothing(api: APIClient, user: Any, full_account: dict[str, Any]) -> None:
    response = api.delete("/api/v1/me/", {"password": "wrong"}, format="json")

    assert response.status_code == 400
    assert "password" in response.json()["errors"]
    assert get_user_model().objects.filter(pk=user.pk).exists()
    assert Conversation.objects.filter(owner=user).exists()
    assert not AccountDeletion.objects.exists()


def test_a_missing_password_is_a_400(api: APIClient, user: Any) -> None:
    assert api.delete("/api/v1/me/", {}, format="json").status_code == 400
    assert get_user_model().objects.filter(pk=user.pk).exists()


def test_deletion_leaves_no_row_that_refers_to_the_user(
    api: APIClient, user: Any, full_account: dict[str, Any], other_user: Any
) -> None:
    conversation_ids = list(Conversation.objects.filter(owner=user).values_list("pk", flat=True))
    theirs = Conversation.objects.create(owner=other_user, title="Outra")
    assert rows_referring_to(user.pk, conversation_ids)  # the walk finds the rows before

    response = api.delete("/api/v1/me/", {"password": "pass-ana-123"}, format="json")

    assert response.status_code == 204
    assert rows_referring_to(user.pk, conversation_ids) == {}
    assert not get_user_model().objects.filter(pk=user.pk).exists()
    assert Conversation.objects.filter(pk=theirs.pk).exists()  # another user's data stays


def test_deletion_leaves_no_cache_or_event_log_entry_of_theirs(
    api: APIClient, user: Any, full_account: dict[str, Any], django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        assert api.delete("/api/v1/me/", {"password": "pass-ana-123"}, format="json").status_code == 204

    assert cache.get(light_context.context_key(user.pk, full_account["conversation"])) is None
    assert cache.get(cache_key(LONG_REPLY)) is None
    assert cache.get(throttle_key(MessageRateThrottle(), user.pk)) is None
    assert not event_log().exists(full_account["reply"])


def test_their_old_token_and_session_no_longer_work(api: APIClient, full_account: dict[str, Any]) -> None:
    assert api.delete("/api/v1/me/", {"password": "pass-ana-123"}, format="json").status_code == 204

    with_token = APIClient()
    with_token.credentials(HTTP_AUTHORIZATION=f"Token {full_account['token']}")
    assert with_token.get("/api/v1/me/").status_code == 401
    assert not Session.objects.exists()
    assert full_account["web"].get("/api/v1/me/").status_code in (401, 403)


def test_what_remains_is_a_record_that_names_nobody(api: APIClient, user: Any) -> None:
    user_id = user.pk
    assert api.delete("/api/v1/me/", {"password": "pass-ana-123"}, format="json").status_code == 204

    [record] = AccountDeletion.objects.all()
    assert record.subject == subject_hash(user_id)
    assert str(user_id) != record.subject and "ana" not in record.subject
    assert record.reason == "user"


def test_a_reply_still_running_is_stopped_before_the_rows_go(
    api: APIClient, user: Any, conversation: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    running = Message.objects.create(
        conversation_id=conversation["id"], role="assistant", status=Message.Status.RUNNING, content="Escrevendo"
    )
    seen: list[str] = []
    from chat import erasure

    original = erasure.end_sessions

    def status_when_the_rows_go(user_id: int) -> int:
        seen.append(Message.objects.get(pk=running.pk).status)
        return original(user_id)

    monkeypatch.setattr(erasure, "end_sessions", status_when_the_rows_go)
    assert api.delete("/api/v1/me/", {"password": "pass-ana-123"}, format="json").status_code == 204

    assert seen == [Message.Status.CANCELLED]
    assert not Message.objects.filter(pk=running.pk).exists()


def test_the_web_page_deletes_through_its_session(user: Any) -> None:
    web = Client()
    web.force_login(user)

    response = web.delete("/api/v1/me/", {"password": "pass-ana-123"}, content_type="application/json")

    assert response.status_code == 204
    assert not get_user_model().objects.filter(pk=user.pk).exists()
    assert web.get("/preferences/").status_code == 302  # signed out


def test_password_guesses_spend_the_sign_in_budget_of_the_username(api: APIClient, user: Any, settings: Any) -> None:
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "login_username": "3/hour"},
    }
    answers = [api.delete("/api/v1/me/", {"password": f"guess-{n}"}, format="json").status_code for n in range(4)]

    assert answers == [400, 400, 400, 429]
    assert api.delete("/api/v1/me/", {"password": "pass-ana-123"}, format="json").status_code == 429
    assert get_user_model().objects.filter(pk=user.pk).exists()
