"""The light conversation context over the API (docs/specification.md, light context), and its use by the message service."""

from __future__ import annotations

import json

import pytest
from django.core.cache import cache

from chat.models import Message

pytestmark = pytest.mark.django_db

STORE = {
    "action": "store",
    "last_intent": "task_creation",
    "last_task_id": 123,
    "pending_fields": [],
    "last_user_message": "Create a new task for refactoring",
}
CONTEXT = {
    "last_intent": "task_creation",
    "last_task_id": "123",
    "pending_fields": [],
    "last_user_message": "Create a new task for refactoring",
}


def post(api, conversation_id, payload):
    return api.post(f"/api/v1/conversations/{conversation_id}/context/", payload, format="json")


def test_store_retrieve_and_clear_answer_the_contract_byte_for_byte(api, conversation):
    stored = post(api, conversation["id"], STORE)
    assert stored.status_code == 200
    assert stored.content == json.dumps({"success": True, "stored_context": CONTEXT}, separators=(",", ":")).encode()
    retrieved = post(api, conversation["id"], {"action": "retrieve"})
    assert retrieved.content == json.dumps({"success": True, "context": CONTEXT}, separators=(",", ":")).encode()
    cleared = post(api, conversation["id"], {"action": "clear"})
    assert cleared.json() == {"success": True, "message": "Context cleared successfully"}
    assert post(api, conversation["id"], {"action": "retrieve"}).json() == {"success": True, "context": None}


def test_an_invalid_action_is_an_error_with_the_contract_text(api, conversation):
    response = post(api, conversation["id"], {"action": "update"})
    assert response.status_code == 400
    assert response.json() == {
        "success": False,
        "error": "Invalid action: 'update'. Must be 'store', 'retrieve', or 'clear'",
    }


def test_a_store_with_missing_fields_names_them_and_stores_nothing(api, conversation):
    post(api, conversation["id"], STORE)
    response = post(api, conversation["id"], {"action": "store", "last_intent": "x", "last_user_message": "y"})
    assert response.status_code == 400
    assert response.json()["error"] == "Missing required fields for 'store': last_task_id, pending_fields"
    assert post(api, conversation["id"], {"action": "retrieve"}).json()["context"] == CONTEXT


def test_a_non_object_body_is_an_error(api, conversation):
    response = post(api, conversation["id"], ["store"])
    assert response.status_code == 400
    assert response.json()["success"] is False


def post_raw(api, conversation_id, body):
    """Send JSON text as is: a test client would refuse to encode a lone surrogate itself."""
    return api.post(f"/api/v1/conversations/{conversation_id}/context/", body, content_type="application/json")


@pytest.mark.parametrize(
    ("field", "json_value", "expected"),
    [
        ("last_user_message", r'"a\ud800b"', "text"),
        ("last_user_message", r'"add \u0000 that"', "text"),
        ("last_intent", r'"task\u0000creation"', "text"),
        ("last_task_id", r'"\udfff"', "text"),
        ("pending_fields", r'["amount", "due\u0000date"]', "items of text"),
    ],
)
def test_a_store_with_unstorable_text_is_refused_by_name_and_the_context_still_works(
    api, conversation, field, json_value, expected
):
    post(api, conversation["id"], STORE)
    fields = {name: json.dumps(value) for name, value in STORE.items()}
    body = "{" + ", ".join(f'"{name}": {json_value if name == field else value}' for name, value in fields.items()) + "}"

    response = post_raw(api, conversation["id"], body)

    assert response.status_code == 400
    # A lone surrogate is refused by the API's JSON parser (any endpoint, any key or value);
    # NUL is valid JSON and reaches the contract's own validation.
    by_parser = "JSON parse error - a string holds an unpaired surrogate (\\ud800-\\udfff)."
    by_contract = f"Invalid fields for 'store': {field} (expected {expected} without NUL characters or unpaired surrogates)"
    assert response.json() == {"success": False, "error": by_parser if r"\ud" in json_value else by_contract}
    retrieved = post(api, conversation["id"], {"action": "retrieve"})
    assert retrieved.status_code == 200
    assert retrieved.json()["context"] == CONTEXT


def test_a_store_with_an_oversized_message_is_refused_by_name(api, conversation):
    response = post(api, conversation["id"], {**STORE, "last_user_message": "m" * 100_001})
    assert response.status_code == 400
    assert response.json()["error"] == "Invalid fields for 'store': last_user_message (expected at most 100000 characters)"
    assert post(api, conversation["id"], {"action": "retrieve"}).json() == {"success": True, "context": None}


def test_a_poisoned_stored_context_reads_as_none_and_stays_out_of_the_prompt(api, conversation):
    from chat.light_context_store import context_for, prompt_section_for
    from lifeassistant.light_context import context_key
    from chat.models import Conversation

    conv = Conversation.objects.get(pk=conversation["id"])
    cache.set(context_key(conv.owner_id, conv.pk), {**CONTEXT, "last_user_message": "add \x00 that"}, 60)

    retrieved = post(api, conversation["id"], {"action": "retrieve"})
    section = prompt_section_for(
        conv, "update it", context=context_for(conv, "update it"), previous_skills=["finance"], new_skills=["finance"],
        reason="inertia",
    )

    assert retrieved.status_code == 200
    assert retrieved.json() == {"success": True, "context": None}
    assert section == ""


def test_the_context_tool_refuses_unstorable_text_by_name(user, conversation):
    from chat.models import Conversation
    from lifeassistant.tools import REGISTRY, ToolContext

    conv = Conversation.objects.get(pk=conversation["id"])
    outcome = REGISTRY.execute(
        "conversation_context", {**STORE, "last_intent": "x\x00"}, ToolContext(user=user, conversation=conv, message=None)
    )
    assert outcome.result == {
        "success": False,
        "error": "Invalid fields for 'store': last_intent (expected text without NUL characters or unpaired surrogates)",
    }


def test_contexts_are_scoped_to_one_conversation_of_one_user(api, other_api, conversation):
    second = api.post("/api/v1/conversations/", {}, format="json").json()
    post(api, conversation["id"], STORE)
    assert post(api, second["id"], {"action": "retrieve"}).json()["context"] is None
    assert post(other_api, conversation["id"], {"action": "retrieve"}).status_code == 404


def test_the_context_expires_after_the_idle_ttl(api, conversation, settings, monkeypatch):
    settings.CONTEXT_LIGHT_TTL_SECONDS = 60
    post(api, conversation["id"], STORE)
    import time

    real = time.time
    monkeypatch.setattr(time, "time", lambda: real() + 61)  # the local-memory cache reads time.time
    assert post(api, conversation["id"], {"action": "retrieve"}).json()["context"] is None


def test_a_storage_failure_answers_the_error_body(api, conversation, monkeypatch):
    def broken(*args, **kwargs):
        raise ConnectionError("redis down")

    monkeypatch.setattr(cache, "get", broken)
    response = post(api, conversation["id"], {"action": "retrieve"})
    assert response.json() == {"success": False, "error": "Context storage unavailable: ConnectionError"}


def test_each_round_stores_the_context_and_a_reference_brings_it_into_the_prompt(api, conversation, send, shipped_skills):
    send(api, conversation["id"], {"content": "Minhas dívidas do cartão passaram de 20 mil"})
    context = post(api, conversation["id"], {"action": "retrieve"}).json()["context"]
    assert context["last_user_message"] == "Minhas dívidas do cartão passaram de 20 mil"
    assert context["last_intent"] == "finance"
    send(api, conversation["id"], {"content": "e o que eu faço com isso?"})
    prompt = Message.objects.filter(role="assistant").latest("id").system_prompt
    assert "## Recent context" in prompt
    assert '"Minhas dívidas do cartão passaram de 20 mil"' in prompt


def test_the_intent_of_a_round_that_called_a_tool_is_that_tool(api, conversation, send, shipped_skills):
    # The offline model proposes the expense, as a model would.
    send(api, conversation["id"], {"content": "Gastei 50 reais no mercado"})
    context = post(api, conversation["id"], {"action": "retrieve"}).json()["context"]
    assert context["last_intent"] == "create_expense"


@pytest.mark.parametrize("closing", ["obrigado!", "valeu", "thanks", "that's all", "valeu por essa", "obrigado por isso"])
def test_a_closing_remark_clears_the_context_and_the_round_stores_nothing(api, conversation, send, shipped_skills, closing):
    send(api, conversation["id"], {"content": "Gastei 50 reais no mercado"})
    assert post(api, conversation["id"], {"action": "retrieve"}).json()["context"] is not None
    send(api, conversation["id"], {"content": closing})
    prompt = Message.objects.filter(role="assistant").latest("id").system_prompt
    assert "## Recent context" not in prompt
    # The round that answered the closing does not bring the context back.
    assert post(api, conversation["id"], {"action": "retrieve"}).json()["context"] is None
    assert "conversation_context" not in Message.objects.filter(role="assistant").latest("id").tools_offered


def test_after_a_closing_the_next_request_starts_a_fresh_context(api, conversation, send, shipped_skills):
    send(api, conversation["id"], {"content": "Gastei 50 reais no mercado"})
    send(api, conversation["id"], {"content": "valeu"})
    send(api, conversation["id"], {"content": "Dormi mal essa noite"})
    assert post(api, conversation["id"], {"action": "retrieve"}).json()["context"]["last_user_message"] == "Dormi mal essa noite"


def test_an_unrelated_new_topic_clears_the_context(api, conversation):
    from chat.light_context_store import context_for, prompt_section_for
    from chat.models import Conversation

    post(api, conversation["id"], STORE)
    conv = Conversation.objects.get(pk=conversation["id"])
    section = prompt_section_for(
        conv, "Fiz musculação por uma hora", context=context_for(conv, "Fiz musculação por uma hora"),
        previous_skills=["finance"], new_skills=["health"], reason="trigger",
    )
    assert section == ""
    assert post(api, conversation["id"], {"action": "retrieve"}).json()["context"] is None


def test_a_related_follow_up_keeps_the_context(api, conversation):
    from chat.light_context_store import context_for, prompt_section_for
    from chat.models import Conversation

    post(api, conversation["id"], STORE)
    conv = Conversation.objects.get(pk=conversation["id"])
    section = prompt_section_for(
        conv, "update it", context=context_for(conv, "update it"), previous_skills=["finance"], new_skills=["finance"],
        reason="inertia",
    )
    assert 'last_task_id: "123"' in section


def test_the_model_can_use_the_context_through_its_tool(api, user, conversation):
    from chat.models import Conversation
    from lifeassistant.tools import REGISTRY, ToolContext

    conv = Conversation.objects.get(pk=conversation["id"])
    tool_context = ToolContext(user=user, conversation=conv, message=None)
    stored = REGISTRY.execute("conversation_context", {**STORE}, tool_context)
    assert stored.ok and stored.result == {"success": True, "stored_context": CONTEXT}
    assert post(api, conversation["id"], {"action": "retrieve"}).json()["context"] == CONTEXT
    missing = REGISTRY.execute("conversation_context", {"action": "store", "last_intent": "x"}, tool_context)
    assert missing.result["error"].startswith("Missing required fields for 'store': last_task_id")
    bad = REGISTRY.execute("conversation_context", {"action": "update"}, tool_context)
    assert bad.result == {"success": False, "error": "Invalid action: 'update'. Must be 'store', 'retrieve', or 'clear'"}


def test_the_context_tool_is_offered_only_while_a_context_exists(api, conversation, send, shipped_skills):
    send(api, conversation["id"], {"content": "Oi, tudo bem?"})
    first = Message.objects.filter(role="assistant").latest("id")
    assert "conversation_context" not in first.tools_offered
    send(api, conversation["id"], {"content": "e agora?"})
    second = Message.objects.filter(role="assistant").latest("id")
    assert "conversation_context" in second.tools_offered


def test_a_reply_to_a_message_longer_than_the_cap_still_leaves_a_context(api, user, conversation):
    from chat.light_context_store import remember_round

    asked = Message.objects.create(conversation_id=conversation["id"], role="user", content="m" * 100_050)
    reply = Message.objects.create(conversation_id=conversation["id"], role="assistant", reply_to=asked, status="done")

    remember_round(reply)

    context = post(api, conversation["id"], {"action": "retrieve"}).json()["context"]
    assert context["last_user_message"] == "m" * 100_000
