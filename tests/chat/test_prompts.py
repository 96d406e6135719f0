"""System prompts are stored once, referenced by SHA-256 from each reply (docs/performance.md)."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from django.core.management.sql import emit_post_migrate_signal
from django.db import connection, transaction
from django.db.migrations.executor import MigrationExecutor
from django.test.utils import CaptureQueriesContext

from chat.models import COMMITTED_PROMPTS, CommittedPrompts, Message, Prompt

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


def test_a_post_skips_inserting_a_prompt_this_process_saw_committed(
    api: Any, conversation: dict[str, Any], django_capture_on_commit_callbacks: Any
) -> None:
    url = f"/api/v1/conversations/{conversation['id']}/messages/"
    with django_capture_on_commit_callbacks(execute=True):
        first = api.post(url, {"content": "Gastei 50 reais no mercado"}, format="json").json()["assistant_message"]
    with CaptureQueriesContext(connection) as second_post:
        second = api.post(url, {"content": "Gastei 20 reais no mercado"}, format="json").json()["assistant_message"]
    assert not [query for query in second_post.captured_queries if 'INTO "chat_prompt"' in query["sql"]]
    prompts = set(Message.objects.filter(pk__in=[first["id"], second["id"]]).values_list("prompt_id", flat=True))
    assert len(prompts) == 1 and Prompt.objects.filter(pk__in=prompts).exists()


def test_a_prompt_whose_insert_was_rolled_back_is_inserted_again(django_capture_on_commit_callbacks: Any) -> None:
    prompt = Prompt(sha256=Prompt.digest("Be brief."), text="Be brief.")
    with django_capture_on_commit_callbacks(execute=True):
        with pytest.raises(RuntimeError), transaction.atomic():
            prompt.store()
            raise RuntimeError("the POST failed after storing its prompt")
    assert prompt.sha256 not in COMMITTED_PROMPTS
    with CaptureQueriesContext(connection) as again:
        prompt.store()
    assert len(again.captured_queries) == 1
    assert Prompt.objects.filter(pk=prompt.sha256).exists()


def test_a_flushed_database_forgets_the_committed_prompts() -> None:
    COMMITTED_PROMPTS.add("a" * 64)
    emit_post_migrate_signal(verbosity=0, interactive=False, db="default")
    assert "a" * 64 not in COMMITTED_PROMPTS


def test_the_committed_prompts_kept_are_bounded() -> None:
    kept = CommittedPrompts(limit=2)
    for digest in ("one", "two", "three"):
        kept.add(digest)
    assert "one" not in kept and "two" in kept and "three" in kept


def test_the_admin_cannot_delete_a_prompt(admin_client: Any, api: Any, conversation: dict[str, Any], send: Any) -> None:
    send(api, conversation["id"], {"content": "Gastei 50 reais"})
    digest = Prompt.objects.get().sha256
    assert admin_client.get(f"/admin/chat/prompt/{digest}/delete/").status_code == 403
    assert Prompt.objects.filter(pk=digest).exists()
