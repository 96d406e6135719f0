"""The semantic router (docs/specification.md, skill discovery and routing §4.1): intent, ambiguity and the negative case, with litellm mocks."""

from __future__ import annotations


import litellm
import pytest

from chat.models import Message
from skills.router import parse_router_answer, route, semantic_router
from skills.services import current_catalog

pytestmark = pytest.mark.django_db


@pytest.fixture
def real_model(settings):
    settings.LLM_MODEL = "gpt-4o-mini"
    settings.LLM_LEAN_STREAMING = False  # litellm's mock_response stands in for the provider
    settings.SEMANTIC_ROUTER_ENABLED = True


def mock_answers(monkeypatch, *answers: str) -> list[dict]:
    calls: list[dict] = []
    queue = list(answers)
    original = litellm.completion

    def fake(**kwargs):
        calls.append(kwargs)
        return original(**kwargs, mock_response=queue.pop(0) if queue else "ok")

    monkeypatch.setattr(litellm, "completion", fake)
    return calls


def test_it_picks_the_skill_whose_examples_match_the_intent(real_model, shipped_skills, monkeypatch):
    calls = mock_answers(monkeypatch, '{"skill": "health"}')
    assert route("Please run my usual morning routine check", current_catalog().skills, {}) == "health"
    system = calls[0]["messages"][0]["content"]
    assert "health:" in system and "Examples:" in system


def test_an_ambiguous_message_routes_to_no_skill(real_model, shipped_skills, monkeypatch):
    mock_answers(monkeypatch, '{"skill": null}')
    assert route("hmm, what about that thing", current_catalog().skills, {}) is None


def test_it_never_picks_an_unknown_or_forbidden_skill(real_model, shipped_skills, monkeypatch):
    mock_answers(monkeypatch, '{"skill": "deploy"}', '{"skill": "spiritual"}', "not json")
    skills = current_catalog().skills
    assert route("ship it to production", skills, {}) is None
    assert route("quero um salmo", skills, {}) is None  # spiritual needs the preference
    assert route("hello", skills, {}) is None


def test_the_router_is_off_by_default_and_offline(settings):
    assert semantic_router() is None
    settings.SEMANTIC_ROUTER_ENABLED = True
    assert semantic_router() is None  # the offline model cannot route


def test_it_is_asked_only_when_triggers_and_inertia_found_nothing(real_model, api, conversation, send, shipped_skills, monkeypatch):
    calls = mock_answers(monkeypatch, "Anotado.", '{"skill": "professional"}', "Vamos planejar.")
    send(api, conversation["id"], {"content": "Gastei 50 reais no mercado"})  # trigger: no router call
    assert len(calls) == 1
    Message.objects.all().delete()
    api.patch(f"/api/v1/conversations/{conversation['id']}/", {"title": "x"}, format="json")
    from chat.models import Conversation

    Conversation.objects.filter(pk=conversation["id"]).update(active_skills=[], messages_since_detection=0)
    send(api, conversation["id"], {"content": "Preciso organizar a semana que vem"})
    reply = Message.objects.get(role="assistant")
    assert reply.skill_reason == "router"
    assert reply.active_skills == ["professional"]


def test_parse_router_answer_accepts_fenced_json():
    assert parse_router_answer('```json\n{"skill": "finance"}\n```', {"finance"}) == "finance"
    assert parse_router_answer('["finance"]', {"finance"}) is None
