"""Queries per request stay few and flat in the history's length (docs/performance.md).

The counts include the SAVEPOINT / RELEASE pair the test transaction turns the
service's ``atomic`` into; in production that pair is a BEGIN / COMMIT, and token
authentication adds one query, which ``force_authenticate`` skips here.
"""

from __future__ import annotations

from typing import Any

import pytest

from chat.models import Conversation, Message, ToolCall
from chat.tasks import generate_reply

# 6 statements + SAVEPOINT/RELEASE: the conversation, its lock (which also asks whether it
# holds documents and whether the user has knowledge items), two inserts, the update. Was 10
# while the documents and the knowledge items were read whether there were any or not.
POST_MAX = 8
# Claim (2), history (2), the opening message (read from the history scan when the scan
# reached the conversation's start), done, then the ended reply loaded once for the light
# context and the final event (the message and its tool calls; its actions only when it made
# tool calls, and never documents, which belong to the user's message): 8. The streamed text
# is saved per batch, except the last batch, which "done" saves (a one-batch reply here: one
# more when that batch was saved twice). Was 15 before the ended reply was shared, 10 before
# it skipped the relations that must be empty.
REPLY_MAX = 8
LIST_MAX = 5
DETAIL_MAX = 4

pytestmark = pytest.mark.usefixtures("shipped_skills")


def _history(api: Any, conversation: dict[str, Any], size: int) -> None:
    """``size`` messages, then one through the API: the process has loaded the skills
    catalog (cached per process), so what follows is the steady state."""
    row = Conversation.objects.get(pk=conversation["id"])
    Message.objects.bulk_create(
        Message(conversation=row, role="user" if n % 2 == 0 else "assistant", content=f"mensagem {n}")
        for n in range(size)
    )
    api.post(f"/api/v1/conversations/{conversation['id']}/messages/", {"content": "oi"}, format="json")


@pytest.mark.parametrize("history", [10, 1000])
def test_a_post_costs_the_same_few_queries_whatever_the_history(
    api, conversation, django_assert_max_num_queries, history
):
    _history(api, conversation, history)
    with django_assert_max_num_queries(POST_MAX):
        response = api.post(
            f"/api/v1/conversations/{conversation['id']}/messages/", {"content": "Gastei 50 reais no mercado"}, format="json"
        )
    assert response.status_code == 202
    assert response.json()["assistant_message"]["tool_calls"] == []


def test_documents_and_knowledge_items_are_read_only_when_there_are_some(
    api, user, conversation, django_assert_max_num_queries
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from documents.models import ChatDocument
    from lifeassistant.models import KnowledgeItem

    url = f"/api/v1/conversations/{conversation['id']}/messages/"
    _history(api, conversation, 10)
    with CaptureQueriesContext(connection) as none_yet:
        api.post(url, {"content": "Gastei 50 reais no mercado"}, format="json")
    read = [q["sql"] for q in none_yet.captured_queries if q["sql"].startswith("SELECT")]
    assert not any(q.startswith('SELECT "documents_chatdocument"') for q in read)
    assert not any(q.startswith('SELECT "lifeassistant_knowledgeitem"') for q in read)

    row = Conversation.objects.get(pk=conversation["id"])
    ChatDocument.objects.create(owner=user, conversation=row, file_name="extrato.csv", content="a,b")
    KnowledgeItem.objects.create(owner=user, kind="fact", area="finance", content="Recebe salário no dia 5")
    Conversation.objects.filter(pk=row.pk).update(has_documents=True)  # as a paste sets it
    with django_assert_max_num_queries(POST_MAX + 1):  # the knowledge items; the documents are listed by the worker
        api.post(url, {"content": "Gastei 50 reais no mercado"}, format="json")
    reply = Message.objects.filter(role="assistant").latest("id")
    assert "Recebe salário no dia 5" in reply.system_prompt
    assert "read_document" in reply.tools_offered


@pytest.mark.parametrize("documents", [0, 300])
def test_a_pasted_document_adds_its_insert_and_a_lookup_of_its_name_whatever_the_conversation_holds(
    api, user, conversation, django_assert_max_num_queries, settings, documents
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from documents.models import ChatDocument

    settings.LLM_MAX_INPUT_TOKENS = 16_000  # 40 KB crosses the 10% threshold
    _history(api, conversation, 10)
    row = Conversation.objects.get(pk=conversation["id"])
    ChatDocument.objects.bulk_create(
        ChatDocument(owner=user, conversation=row, file_name=f"old_{n}.txt", content="x") for n in range(documents)
    )
    rows = "\n".join(f"2024-09-{n % 28 + 1:02d},mercado {n},{n}.50" for n in range(1800))
    content = f"Analise meus gastos:\n\n```csv\ndate,place,amount\n{rows}\n```\n"
    with CaptureQueriesContext(connection) as post, django_assert_max_num_queries(POST_MAX + 3):
        response = api.post(f"/api/v1/conversations/{conversation['id']}/messages/", {"content": content}, format="json")
    # The conversation's documents are not read: only whether the new one's name is taken
    # (the answer shows the documents just created, from memory).
    reads = [q["sql"] for q in post.captured_queries if q["sql"].startswith('SELECT "documents_chatdocument"')]
    assert len(reads) == 1 and '"file_name" IN' in reads[0]
    body = response.json()
    assert [d["mime_type"] for d in body["user_message"]["documents"]] == ["text/csv"]
    assert body["user_message"]["content_truncated"] is True


def test_a_token_users_post_reads_the_profile_once(api, user, conversation, django_assert_max_num_queries):
    """Token authentication joins the profile; the view joined it again with the conversation."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from chat.api_tokens import issue_token
    from rest_framework.test import APIClient

    _history(api, conversation, 10)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {issue_token(user)[1]}")
    url = f"/api/v1/conversations/{conversation['id']}/messages/"
    with CaptureQueriesContext(connection) as post, django_assert_max_num_queries(POST_MAX + 1):  # + the token
        response = client.post(url, {"content": "Gastei 50 reais no mercado"}, format="json")
    assert response.status_code == 202
    assert sum('"lifeassistant_profile"' in query["sql"] for query in post.captured_queries) == 1


def _reply_within(queries: int, api: Any, conversation: dict[str, Any], assert_max_num_queries: Any) -> None:
    # A reply without tool calls (the offline model proposes an expense told with its amount).
    reply_id = api.post(
        f"/api/v1/conversations/{conversation['id']}/messages/", {"content": "Quero organizar minhas finanças"}, format="json"
    ).json()["assistant_message"]["id"]
    with assert_max_num_queries(queries):
        generate_reply(reply_id)
    assert Message.objects.get(pk=reply_id).status == "done"


@pytest.mark.parametrize("history", [10, 1000])
def test_a_reply_costs_the_same_few_queries_whatever_the_history(
    api, conversation, django_assert_max_num_queries, history, settings
):
    # The text so far is saved once per batch of deltas, a count that depends on the
    # machine's speed; one batch for the whole reply keeps the count about the history.
    settings.EVENTS_BATCH_SECONDS = 60
    _history(api, conversation, history)
    _reply_within(REPLY_MAX, api, conversation, django_assert_max_num_queries)


def test_tool_calls_in_the_history_are_read_in_one_query(api, conversation, django_assert_max_num_queries, settings):
    settings.EVENTS_BATCH_SECONDS = 60
    _history(api, conversation, 300)
    replies = Message.objects.filter(conversation_id=conversation["id"], role="assistant", status="done")
    ToolCall.objects.bulk_create(
        ToolCall(message=reply, call_id=f"call-{reply.pk}", tool="search_knowledge", arguments={"query": "x"},
                 result={"items": []}, ok=True)
        for reply in replies
    )
    _reply_within(REPLY_MAX, api, conversation, django_assert_max_num_queries)


@pytest.mark.parametrize("history", [10, 1000])
def test_the_message_list_and_a_message_cost_a_fixed_number_of_queries(
    api, conversation, django_assert_max_num_queries, history
):
    _history(api, conversation, history)
    with django_assert_max_num_queries(LIST_MAX):
        page = api.get(f"/api/v1/conversations/{conversation['id']}/messages/").json()
    assert len(page["results"]) == min(50, history + 2)
    with django_assert_max_num_queries(DETAIL_MAX):
        assert api.get(f"/api/v1/messages/{page['results'][0]['id']}/").status_code == 200


# A reply with one tool round that proposes a write: the claim (2), history (2), the tool
# call's lookup and insert, the proposal's insert, a checkpoint before the tool call, done,
# then the ended reply (the message, its tool calls, its actions) for the light context.
TOOL_REPLY_MAX = 14 + 4  # and the two SAVEPOINT / RELEASE pairs of the test transaction (BEGIN / COMMIT in production)


@pytest.mark.parametrize("history", [10, 1000])
def test_a_reply_with_a_tool_round_and_a_proposal_costs_a_few_queries_whatever_the_history(
    api, conversation, django_assert_max_num_queries, history, scripted_llm
):
    _history(api, conversation, history)
    scripted_llm.reply_tool_call("create_expense", {"amount": 50, "description": "mercado"})
    scripted_llm.reply_text("Registro R$ 50,00 no mercado?")
    reply_id = api.post(
        f"/api/v1/conversations/{conversation['id']}/messages/", {"content": "Gastei 50 reais no mercado"}, format="json"
    ).json()["assistant_message"]["id"]
    with django_assert_max_num_queries(TOOL_REPLY_MAX):
        generate_reply(reply_id)
    reply = Message.objects.get(pk=reply_id)
    assert reply.status == "done" and reply.pending_actions.get().tool == "create_expense"


def test_the_202_shows_a_new_message_s_relations_without_asking_for_them(api, conversation, django_assert_num_queries) -> None:
    """A message just created has no tool calls, pending actions or documents (but those it
    was given): the answer says so from memory, not from a query per relation."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as post:
        response = api.post(f"/api/v1/conversations/{conversation['id']}/messages/", {"content": "Oi, tudo bem?"}, format="json")

    body = response.json()
    for message in (body["user_message"], body["assistant_message"]):
        assert message["tool_calls"] == [] and message["pending_actions"] == [] and message["documents"] == []
    relations = ('"chat_toolcall"', '"chat_pendingaction"', '"documents_chatdocument"')
    assert not [q["sql"] for q in post.captured_queries if q["sql"].startswith("SELECT") and any(r in q["sql"].split("WHERE")[0] for r in relations)]
