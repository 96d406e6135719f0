from __future__ import annotations

import functools

import litellm
import pytest
from django.core.cache import cache

from chat.models import Message

pytestmark = pytest.mark.django_db

# Test clients ask for English unless told otherwise (tests/conftest.py); this is no header.
NO_SIGNAL = {"Accept-Language": ""}


def test_it_accepts_a_message_and_answers_it_with_the_offline_model(api, conversation, send, shipped_skills):
    response = send(api, conversation["id"], {"content": "Gastei 50 reais no mercado"}, **NO_SIGNAL)
    assert response.status_code == 202
    body = response.json()
    assert body["user_message"]["content"] == "Gastei 50 reais no mercado"
    assert body["assistant_message"]["status"] == "pending"

    reply = api.get(f"/api/v1/messages/{body['assistant_message']['id']}/").json()
    assert reply["status"] == "done"
    # The offline model's notice speaks the user's language; it proposes the expense.
    assert reply["content"].startswith("Demonstração offline")
    assert [action["tool"] for action in reply["pending_actions"]] == ["create_expense"]
    assert "finance" in reply["content"]
    assert reply["active_skills"] == ["finance"]
    assert reply["usage"]["total_tokens"] > 0


def test_it_runs_the_reply_through_litellm_mock_response(api, conversation, send, shipped_skills, settings, monkeypatch):
    settings.LLM_MODEL = "gpt-4o-mini"
    settings.LLM_LEAN_STREAMING = False  # litellm's mock_response stands in for the provider
    monkeypatch.setattr(litellm, "completion", functools.partial(litellm.completion, mock_response="Anotado!"))
    response = send(api, conversation["id"], {"content": "Oi, tudo bem?"})
    reply = api.get(f"/api/v1/messages/{response.json()['assistant_message']['id']}/").json()
    assert reply["status"] == "done"
    assert reply["content"] == "Anotado!"
    assert reply["model"] == "gpt-4o-mini"
    assert reply["usage"]["total_tokens"] > 0


def test_it_lists_messages_newest_first(api, conversation, send, shipped_skills):
    send(api, conversation["id"], {"content": "primeira"})
    send(api, conversation["id"], {"content": "segunda"})
    page = api.get(f"/api/v1/conversations/{conversation['id']}/messages/").json()
    roles = [(m["role"], m["content"][:7]) for m in page["results"]]
    assert roles[1] == ("user", "segunda")
    assert roles[3] == ("user", "primeir")
    assert page["results"][0]["reply_to"] == page["results"][1]["id"]


def test_it_names_an_untitled_conversation_after_its_first_message(api, send, shipped_skills):
    conversation = api.post("/api/v1/conversations/", {}, format="json").json()
    send(api, conversation["id"], {"content": "Quero organizar minhas finanças"})
    assert api.get(f"/api/v1/conversations/{conversation['id']}/").json()["title"] == "Quero organizar minhas finanças"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"content": ""}, "content"),
        ({"content": "   \n "}, "content"),
        ({"content": "\u200b \u200d\u2060"}, "content"),  # shows nothing: blank
        ({"content": 123}, "content"),
        ({"content": ["a"]}, "content"),
        ({}, "content"),
        ({"content": "ok", "extra": 1}, "extra"),
    ],
)
def test_it_rejects_bad_content_and_writes_nothing(api, conversation, send, body, field):
    response = send(api, conversation["id"], body)
    assert response.status_code == 400
    assert field in response.json()["errors"]
    assert response.json()["detail"]
    assert not Message.objects.exists()


def test_it_rejects_content_over_the_limit(api, conversation, send, settings):
    response = send(api, conversation["id"], {"content": "x" * 100_001})
    assert response.status_code == 400
    assert "100,000" in response.json()["detail"]
    assert not Message.objects.exists()


def test_it_rejects_malformed_json(api, conversation):
    response = api.post(
        f"/api/v1/conversations/{conversation['id']}/messages/", "{not json", content_type="application/json"
    )
    assert response.status_code == 400
    assert "JSON parse error" in response.json()["detail"]
    assert not Message.objects.exists()


def test_it_answers_404_for_unknown_ids(api, send):
    assert send(api, 999999, {"content": "oi"}).status_code == 404
    assert api.get("/api/v1/messages/999999/").status_code == 404


def test_another_user_cannot_post_into_or_read_my_conversation(api, other_api, conversation, send, shipped_skills):
    assert send(other_api, conversation["id"], {"content": "intruso"}).status_code == 404
    assert not Message.objects.exists()
    mine = send(api, conversation["id"], {"content": "oi"}).json()
    assert other_api.get(f"/api/v1/messages/{mine['user_message']['id']}/").status_code == 404
    assert other_api.get(f"/api/v1/conversations/{conversation['id']}/messages/").status_code == 404


def test_it_throttles_message_creation_with_retry_after(api, conversation, send, settings, shipped_skills):
    from rest_framework.settings import api_settings
    from rest_framework.throttling import ScopedRateThrottle

    rates = {**api_settings.DEFAULT_THROTTLE_RATES, "messages": "2/minute"}
    original = ScopedRateThrottle.THROTTLE_RATES
    ScopedRateThrottle.THROTTLE_RATES = rates
    try:
        assert send(api, conversation["id"], {"content": "um"}).status_code == 202
        assert send(api, conversation["id"], {"content": "dois"}).status_code == 202
        response = send(api, conversation["id"], {"content": "três"}, **{"Accept-Language": "en"})
        portuguese = send(api, conversation["id"], {"content": "três"}, **{"Accept-Language": "pt-BR"})
    finally:
        ScopedRateThrottle.THROTTLE_RATES = original
    assert response.status_code == 429
    wait = int(response.headers["Retry-After"])
    assert wait > 0
    assert response.json() == {"detail": f"Too many requests. Try again in {wait} s."}
    # DRF's own pt-BR text was European and misspelt ("Espera-se que esteja diponível").
    assert portuguese.json()["detail"].startswith("Muitas requisições. Tente de novo em ")
    assert Message.objects.filter(role="user").count() == 2


def test_it_retries_a_failed_reply(api, conversation, send, shipped_skills, django_capture_on_commit_callbacks):
    body = send(api, conversation["id"], {"content": "oi"}).json()
    reply_id = body["assistant_message"]["id"]
    Message.objects.filter(pk=reply_id).update(status="failed", error="The language model is unavailable (ServiceUnavailableError).", error_code="model_unavailable")
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(f"/api/v1/messages/{reply_id}/retry/")
    assert response.status_code == 202
    reply = api.get(f"/api/v1/messages/{reply_id}/").json()
    assert reply["status"] == "done"
    assert reply["error"] == "" and reply["error_code"] == ""


def test_only_a_failed_reply_can_be_retried(api, conversation, send, shipped_skills):
    body = send(api, conversation["id"], {"content": "oi"}).json()
    response = api.post(f"/api/v1/messages/{body['user_message']['id']}/retry/")
    assert response.status_code == 409
    assert response.json()["detail"] == "Only a failed (or stuck) assistant reply can be retried."


def test_a_retry_is_refused_while_one_is_queued_and_queues_one_task(
    api, conversation, send, shipped_skills, monkeypatch, django_capture_on_commit_callbacks
):
    from datetime import timedelta

    from django.utils import timezone

    from chat.tasks import generate_reply

    body = send(api, conversation["id"], {"content": "oi"}).json()
    reply_id = body["assistant_message"]["id"]
    # An old reply that failed: its created_at is long past the task's time limit.
    Message.objects.filter(pk=reply_id).update(status="failed", created_at=timezone.now() - timedelta(hours=1))
    queued = []
    monkeypatch.setattr(generate_reply, "delay", lambda pk: queued.append(pk))

    codes = []
    for _ in range(5):
        with django_capture_on_commit_callbacks(execute=True):
            codes.append(api.post(f"/api/v1/messages/{reply_id}/retry/"))

    assert [r.status_code for r in codes] == [202, 409, 409, 409, 409]
    assert codes[1].json() == {"detail": "This reply is already queued or running; retry it if it fails."}
    assert queued == [reply_id]


def test_retries_share_the_message_rate(api, conversation, send, shipped_skills, monkeypatch):
    from rest_framework.settings import api_settings
    from rest_framework.throttling import ScopedRateThrottle

    from chat.tasks import generate_reply

    replies = [send(api, conversation["id"], {"content": f"m{n}"}).json()["assistant_message"]["id"] for n in range(3)]
    Message.objects.filter(pk__in=replies).update(status="failed")
    monkeypatch.setattr(generate_reply, "delay", lambda pk: None)
    cache.clear()  # the three messages above spent their own budget
    monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", {**api_settings.DEFAULT_THROTTLE_RATES, "messages": "2/minute"})

    codes = [api.post(f"/api/v1/messages/{reply_id}/retry/").status_code for reply_id in replies]

    assert codes == [202, 202, 429]


def test_a_reply_stuck_past_the_task_time_limit_can_be_retried(api, conversation, send, shipped_skills, django_capture_on_commit_callbacks):
    from datetime import timedelta

    from django.utils import timezone

    body = send(api, conversation["id"], {"content": "oi"}).json()
    reply_id = body["assistant_message"]["id"]
    Message.objects.filter(pk=reply_id).update(status="running", started_at=timezone.now() - timedelta(seconds=60))
    assert api.post(f"/api/v1/messages/{reply_id}/retry/").status_code == 409  # still within its time limit
    Message.objects.filter(pk=reply_id).update(started_at=timezone.now() - timedelta(hours=1))
    with django_capture_on_commit_callbacks(execute=True):
        assert api.post(f"/api/v1/messages/{reply_id}/retry/").status_code == 202
    assert api.get(f"/api/v1/messages/{reply_id}/").json()["status"] == "done"


def test_a_broker_that_refuses_the_task_fails_the_reply_instead_of_leaving_it_pending(api, conversation, send, shipped_skills, monkeypatch):
    from chat.tasks import generate_reply

    def refuse(*args, **kwargs):
        raise ConnectionError("broker down")

    monkeypatch.setattr(generate_reply, "delay", refuse)
    body = send(api, conversation["id"], {"content": "oi"}).json()
    reply = api.get(f"/api/v1/messages/{body['assistant_message']['id']}/").json()
    assert reply["status"] == "failed"
    assert reply["error"] == "The assistant could not be reached. Please retry."
    assert reply["error_code"] == "not_queued"
    in_portuguese = api.get(f"/api/v1/messages/{reply['id']}/", HTTP_ACCEPT_LANGUAGE="pt-BR").json()
    assert in_portuguese["error"] == "Não foi possível falar com o assistente. Tente de novo."
    assert api.get(f"/api/v1/messages/{body['user_message']['id']}/").json()["content"] == "oi"


def test_a_conversation_deleted_while_a_message_is_posted_answers_404_and_stores_nothing(
    api, conversation, send, shipped_skills, monkeypatch
):
    from chat import services
    from chat.models import Conversation

    understand = services.understand

    def delete_then_understand(*args, **kwargs):
        # The user deletes the conversation in another tab after this request found it.
        Conversation.objects.filter(pk=conversation["id"]).delete()
        return understand(*args, **kwargs)

    monkeypatch.setattr(services, "understand", delete_then_understand)

    response = send(api, conversation["id"], {"content": "Gastei 50 reais no mercado"})

    assert response.status_code == 404, response.content
    assert response.json()["detail"] == "Not found."
    assert not Message.objects.exists()


@pytest.mark.parametrize(
    "path",
    ["/api/v1/conversations/999999/", "/api/v1/conversations/999999/messages/", "/api/v1/messages/999999/",
     "/api/v1/conversations/999999/documents/"],
)
def test_a_404_says_not_found_without_naming_a_model(api: Any, path: str) -> None:
    response = api.get(path, headers={"Accept-Language": "en"})

    assert response.status_code == 404
    assert response.json() == {"detail": "Not found."}
