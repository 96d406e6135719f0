"""Deleted memory does not come back: a reply run again builds "About the user" afresh.

Regenerating or retrying a reply sent the model the prompt stored when it was first
composed, so a memory item the user had deleted since reached the model again.
"""

from __future__ import annotations

from typing import Any

import pytest

from chat.models import Message
from lifeassistant.memory_prompt import HEADING, replace_memory_section
from lifeassistant.models import KnowledgeItem

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("shipped_skills")]

SECRET = "Tem uma dívida escondida com o cunhado"


@pytest.fixture
def run(django_capture_on_commit_callbacks: Any) -> Any:
    """POST to a message's action and run the reply it queues."""

    def _run(client: Any, message_id: int, action: str) -> Any:
        with django_capture_on_commit_callbacks(execute=True):
            return client.post(f"/api/v1/messages/{message_id}/{action}/", None, format="json")

    return _run


def remembered_then_forgotten(api: Any, user: Any, conversation: Any, send: Any) -> int:
    item = KnowledgeItem.objects.create(owner=user, content=SECRET, area="finance")
    reply = send(api, conversation["id"], {"content": "Gastei 50 reais no mercado"}).json()["assistant_message"]["id"]
    assert SECRET in Message.objects.get(pk=reply).system_prompt
    assert api.delete(f"/api/v1/memory/{item.pk}/").status_code == 204
    return int(reply)


def test_regenerating_a_reply_does_not_send_a_deleted_memory(api, user, conversation, send, run, scripted_llm) -> None:
    reply = remembered_then_forgotten(api, user, conversation, send)
    scripted_llm.requests.clear()

    assert run(api, reply, "regenerate").status_code == 202

    sent = scripted_llm.requests[-1]["messages"][0]["content"]
    assert SECRET not in sent
    assert HEADING in sent  # the section is there, rebuilt: the profile line at least
    new = Message.objects.get(role="assistant", superseded_at__isnull=True)
    assert SECRET not in new.system_prompt


def test_retrying_a_failed_reply_does_not_send_a_deleted_memory(api, user, conversation, send, run, scripted_llm) -> None:
    reply = remembered_then_forgotten(api, user, conversation, send)
    Message.objects.filter(pk=reply).update(status="failed")
    scripted_llm.requests.clear()

    assert run(api, reply, "retry").status_code == 202

    assert SECRET not in scripted_llm.requests[-1]["messages"][0]["content"]
    assert SECRET not in Message.objects.get(pk=reply).system_prompt


def test_a_memory_added_since_reaches_the_regenerated_reply(api, user, conversation, send, run, scripted_llm) -> None:
    reply = send(api, conversation["id"], {"content": "Gastei 50 reais no mercado"}).json()["assistant_message"]["id"]
    KnowledgeItem.objects.create(owner=user, content="Recebe salário no dia 5", area="finance")

    run(api, reply, "regenerate")

    assert "Recebe salário no dia 5" in scripted_llm.requests[-1]["messages"][0]["content"]


def test_only_the_memory_section_of_a_prompt_is_replaced() -> None:
    prompt = f"Base.\n\nSkills.\n\n{HEADING}\nintro\n{{\"a\": 1}}\n\n## Context\nlast"
    assert replace_memory_section(prompt, f"{HEADING}\nnew") == f"Base.\n\nSkills.\n\n{HEADING}\nnew\n\n## Context\nlast"
    assert replace_memory_section(prompt, "") == "Base.\n\nSkills.\n\n## Context\nlast"
    assert replace_memory_section(f"{HEADING}\nold", f"{HEADING}\nnew") == f"{HEADING}\nnew"
    assert replace_memory_section("Base.", f"{HEADING}\nnew") == "Base."
