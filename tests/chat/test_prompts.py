"""System prompts are stored once, referenced by SHA-256 from each reply (issue 17)."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from chat.models import Message, Prompt

pytestmark = pytest.mark.usefixtures("shipped_skills")


def test_replies_with_the_same_prompt_share_one_stored_copy(api: Any, conversation: dict[str, Any], send: Any) -> None:
    for text in ("Gastei 50 reais no mercado", "Gastei 20 reais no mercado", "Gastei 10 reais no mercado"):
        send(api, conversation["id"], {"content": text})
    replies = list(Message.objects.filter(role="assistant").select_related("prompt"))
    assert len({reply.prompt_id for reply in replies}) == 1
    assert Prompt.objects.count() == 1
    prompt = replies[0].system_prompt
    assert "## Skill: Finanças" in prompt
    assert replies[0].prompt_id == hashlib.sha256(prompt.encode()).hexdigest()


def test_the_message_admin_shows_the_prompt_of_a_reply(admin_client: Any, api: Any, conversation: dict[str, Any], send: Any) -> None:
    reply_id = send(api, conversation["id"], {"content": "Gastei 50 reais"}).json()["assistant_message"]["id"]
    page = admin_client.get(f"/admin/chat/message/{reply_id}/change/")
    assert page.status_code == 200
    assert "## Skill: Finanças" in page.content.decode()
    assert admin_client.get("/admin/chat/prompt/").status_code == 200


@pytest.mark.django_db(transaction=True)
def test_the_migration_moves_each_distinct_prompt_to_one_row() -> None:
    executor = MigrationExecutor(connection)
    executor.migrate([("chat", "0002_pending_action"), ("documents", "0001_initial")])
    old = executor.loader.project_state([("chat", "0002_pending_action")]).apps
    user = old.get_model("auth", "User").objects.create(username="old")
    conversation = old.get_model("chat", "Conversation").objects.create(owner=user)
    OldMessage = old.get_model("chat", "Message")
    for n in range(5):
        OldMessage.objects.create(conversation=conversation, role="assistant", system_prompt=f"prompt {n % 2}")
    OldMessage.objects.create(conversation=conversation, role="user", content="oi")

    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())

    assert sorted(Prompt.objects.values_list("text", flat=True)) == ["prompt 0", "prompt 1"]
    moved = [m.system_prompt for m in Message.objects.order_by("pk")]
    assert moved == ["prompt 0", "prompt 1", "prompt 0", "prompt 1", "prompt 0", ""]
