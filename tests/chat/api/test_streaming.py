"""Streaming replies over the API: the SSE endpoint, stopping a reply, polling the text so far.

These run on the embedded defaults (SQLite, the in-process event log, replies inline).
The same endpoints over Redis with a real worker are in tests/chat/test_streaming_worker.py.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from django.test import AsyncClient
from chat.api_tokens import issue_token

from chat import answering
from lifeassistant.event_log import event_log
from chat.models import Message
from chat.models import PendingAction
from chat.reply_progress import ReplyProgress
from chat.services import cancel_reply
from lifeassistant.models import Expense

pytestmark = pytest.mark.django_db


def parse_sse(body: str) -> list[dict[str, Any]]:
    """The events of an SSE body: [{"id", "event", "data"}], comments left out."""
    events = []
    for block in body.split("\n\n"):
        fields: dict[str, Any] = {}
        for line in block.splitlines():
            if line.startswith(":"):
                continue
            name, _, value = line.partition(": ")
            fields[name] = value
        if fields:
            fields["data"] = json.loads(fields["data"])
            events.append(fields)
    return events


def get_events(user: Any, path: str, **headers: str) -> tuple[int, Any]:
    """GET an SSE endpoint through the ASGI handler: (status, events or JSON error)."""
    return async_to_sync(sync_to_async_get_events)(user, path, **headers)


async def sync_to_async_get_events(user: Any, path: str, **headers: str) -> tuple[int, Any]:
    """``get_events`` for a caller already in the event loop."""

    async def go() -> tuple[int, Any]:
        client = AsyncClient()
        if user is not None:
            await client.aforce_login(user)
        response = await client.get(path, headers=headers)
        if not response.streaming:
            return response.status_code, json.loads(response.content) if response.content else None
        assert response["Content-Type"] == "text/event-stream; charset=utf-8"
        assert response["X-Accel-Buffering"] == "no"
        body = b"".join([chunk async for chunk in response.streaming_content]).decode()
        return response.status_code, parse_sse(body)

    return await go()


@pytest.fixture
def reply(
    scripted_llm: Any, conversation: dict[str, Any], api: Any, send: Any, shipped_skills: None
) -> dict[str, Any]:
    """A finished reply that called a tool, then answered in several words."""
    scripted_llm.reply_tool_call("get_finance_summary", {})
    scripted_llm.reply_text("Você gastou R$ 0,00 este mês. Tudo em ordem!")
    submitted = send(api, conversation["id"], {"content": "Como estão minhas finanças?"}).json()
    return api.get(f"/api/v1/messages/{submitted['assistant_message']['id']}/").json()


def test_the_stream_replays_a_reply_from_the_start_and_ends_with_the_message(
    reply: dict[str, Any], user: Any, api: Any
) -> None:
    status, events = get_events(user, f"/api/v1/messages/{reply['id']}/events/")

    assert status == 200
    types = [e["event"] for e in events]
    assert types[0] == "status" and events[0]["data"] == {"status": "running"}
    assert types[-1] == "done" and types.count("done") == 1
    assert events[-1]["data"] == api.get(f"/api/v1/messages/{reply['id']}/").json()
    tool_events = [(e["event"], e["data"]) for e in events if e["event"].startswith("tool_")]
    assert tool_events == [
        # The label is in the reply's language: the page shows it as it comes.
        ("tool_started", {"name": "get_finance_summary", "status": "running", "label": "Somando suas finanças…"}),
        ("tool_finished", {"name": "get_finance_summary", "status": "ok"}),
    ]
    assert "".join(e["data"]["text"] for e in events if e["event"] == "delta") == reply["content"]
    assert reply["content"] == "Você gastou R$ 0,00 este mês. Tudo em ordem!"


def test_the_stream_resumes_after_an_id_given_as_query_or_header(reply: dict[str, Any], user: Any) -> None:
    _, events = get_events(user, f"/api/v1/messages/{reply['id']}/events/")
    middle = events[len(events) // 2]

    _, by_query = get_events(user, f"/api/v1/messages/{reply['id']}/events/?after={middle['id']}")
    _, by_header = get_events(user, f"/api/v1/messages/{reply['id']}/events/", **{"Last-Event-ID": middle["id"]})

    assert by_query == events[len(events) // 2 + 1 :]
    assert by_header == by_query
    # An EventSource opened with ?after= reconnects to the same address with a newer
    # Last-Event-ID: the header wins, or the events in between would come twice.
    first = events[0]["id"]
    _, both = get_events(user, f"/api/v1/messages/{reply['id']}/events/?after={first}", **{"Last-Event-ID": middle["id"]})
    assert both == by_header


def test_after_that_is_not_an_id_of_this_reply_is_a_400(reply: dict[str, Any], user: Any) -> None:
    for after in ["garbage", "1-0", "99999999999999-0"]:
        status, body = get_events(user, f"/api/v1/messages/{reply['id']}/events/?after={after}")
        assert status == 400, after
        assert "'after'" in body["detail"]  # in the user's language: pt-BR, from their messages


def test_resuming_after_the_final_event_is_a_204_so_an_event_source_stops_reconnecting(
    reply: dict[str, Any], user: Any
) -> None:
    _, events = get_events(user, f"/api/v1/messages/{reply['id']}/events/")
    final = events[-1]["id"]

    assert get_events(user, f"/api/v1/messages/{reply['id']}/events/?after={final}") == (204, None)
    assert get_events(user, f"/api/v1/messages/{reply['id']}/events/", **{"Last-Event-ID": final}) == (204, None)
    # One event earlier, the final event is still to come.
    _, rest = get_events(user, f"/api/v1/messages/{reply['id']}/events/?after={events[-2]['id']}")
    assert [e["event"] for e in rest] == ["done"]


def test_a_method_other_than_get_is_a_json_405_not_a_csrf_page(reply: dict[str, Any], user: Any) -> None:
    _, token = issue_token(user)

    async def send(method: str) -> Any:
        client = AsyncClient(enforce_csrf_checks=True)
        return await client.generic(
            method, f"/api/v1/messages/{reply['id']}/events/", headers={"Authorization": f"Token {token}"}
        )

    for method in ("POST", "PUT", "PATCH", "DELETE"):
        response = async_to_sync(send)(method)
        assert response.status_code == 405, method
        assert response["Content-Type"] == "application/json" and response["Allow"] == "GET"
        assert method in response.json()["detail"]


def test_another_users_reply_is_a_404_and_no_login_a_401(reply: dict[str, Any], other_user: Any) -> None:
    assert get_events(other_user, f"/api/v1/messages/{reply['id']}/events/")[0] == 404
    assert get_events(other_user, "/api/v1/messages/999999/events/")[0] == 404
    assert get_events(None, f"/api/v1/messages/{reply['id']}/events/")[0] == 401


def test_a_token_opens_the_stream(reply: dict[str, Any], user: Any) -> None:
    _, token = issue_token(user)

    status, events = get_events(None, f"/api/v1/messages/{reply['id']}/events/", Authorization=f"Token {token}")

    assert status == 200 and events[-1]["event"] == "done"
    assert get_events(None, f"/api/v1/messages/{reply['id']}/events/", Authorization="Token nope")[0] == 401


def test_a_token_reader_gets_the_streams_errors_in_their_profile_language(reply: dict[str, Any], user: Any) -> None:
    """The stream checked tokens with DRF's class, which leaves the language alone: a
    token user whose profile says pt-BR got its errors in the request's language."""
    from lifeassistant.models import Profile

    Profile.for_user(user)
    Profile.objects.filter(user=user).update(language="pt")
    auth = {"Authorization": f"Token {issue_token(user)[1]}"}  # and Accept-Language: en

    assert get_events(None, "/api/v1/messages/999999/events/", **auth) == (404, {"detail": "Não encontrado."})
    status, body = get_events(None, f"/api/v1/messages/{reply['id']}/events/?after=zzz", **auth)
    assert status == 400 and body["detail"] == f"'after' não é o id de um evento da resposta {reply['id']}."


def test_a_reply_whose_log_expired_gets_its_final_event_from_the_database(reply: dict[str, Any], user: Any) -> None:
    event_log().clear(reply["id"])

    status, events = get_events(user, f"/api/v1/messages/{reply['id']}/events/?after=1-0")

    assert status == 200
    assert [e["event"] for e in events] == ["done"]
    assert events[0]["data"]["content"] == reply["content"]


def test_the_schema_documents_the_stream_as_text_event_stream(api: Any) -> None:
    schema = api.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    operation = schema["paths"]["/api/v1/messages/{message_id}/events/"]["get"]

    assert "text/event-stream" in operation["responses"]["200"]["content"]
    assert {"400", "404"} <= set(operation["responses"])
    assert "/api/v1/messages/{message_id}/cancel/" in schema["paths"]


# --------------------------------------------------------------------------- stopping


def pending_reply(api: Any, conversation: dict[str, Any], django_capture_on_commit_callbacks: Any, text: str) -> dict[str, Any]:
    """A reply still pending: its task has not been dispatched."""
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = api.post(f"/api/v1/conversations/{conversation['id']}/messages/", {"content": text}, format="json")
    assert response.status_code == 202
    return {"reply": response.json()["assistant_message"], "dispatch": callbacks}


def test_stopping_a_pending_reply_ends_it_and_its_task_never_asks_the_model(
    scripted_llm: Any, api: Any, user: Any, conversation: dict[str, Any], django_capture_on_commit_callbacks: Any
) -> None:
    pending = pending_reply(api, conversation, django_capture_on_commit_callbacks, "Oi")

    response = api.post(f"/api/v1/messages/{pending['reply']['id']}/cancel/")
    for dispatch in pending["dispatch"]:
        dispatch()  # the task arrives after the stop

    assert response.status_code == 200
    assert response.json()["status"] == "cancelled"
    assert scripted_llm.requests == []
    _, events = get_events(user, f"/api/v1/messages/{pending['reply']['id']}/events/")
    assert [e["event"] for e in events] == ["cancelled"]


def test_stopping_is_idempotent_and_a_finished_reply_comes_back_unchanged(reply: dict[str, Any], api: Any) -> None:
    first = api.post(f"/api/v1/messages/{reply['id']}/cancel/")
    second = api.post(f"/api/v1/messages/{reply['id']}/cancel/")

    assert first.status_code == second.status_code == 200
    assert first.json() == second.json() == api.get(f"/api/v1/messages/{reply['id']}/").json()
    assert first.json()["status"] == "done"


def test_only_your_own_reply_can_be_stopped(reply: dict[str, Any], other_api: Any, api: Any) -> None:
    assert other_api.post(f"/api/v1/messages/{reply['id']}/cancel/").status_code == 404
    user_message = reply["reply_to"]
    response = api.post(f"/api/v1/messages/{user_message}/cancel/")
    assert response.status_code == 409 and "detail" in response.json()


class StopsAfter(ReplyProgress):
    """The user presses Stop after ``pieces`` pieces of text have arrived (same thread)."""

    pieces = 3

    def text(self, piece: str) -> None:
        super().text(piece)
        self.seen = getattr(self, "seen", 0) + 1
        if self.seen == self.pieces:
            StopsAfter.stop_answered = cancel_reply(Message.objects.get(pk=self.message_id)).content


def stop_midway(monkeypatch: pytest.MonkeyPatch, pieces: int) -> None:
    real = answering.new_progress
    stop = type("Stop", (StopsAfter,), {"pieces": pieces})
    monkeypatch.setattr(answering, "new_progress", lambda message_id: real(message_id, kind=stop, batch_seconds=0))


def test_a_reply_stopped_mid_stream_keeps_its_text_so_far_and_its_usage(
    scripted_llm: Any, api: Any, user: Any, conversation: dict[str, Any], send: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    scripted_llm.reply_text("um dois três quatro cinco seis sete oito nove dez", prompt_tokens=40)
    scripted_llm.token_delay = 0.02
    stop_midway(monkeypatch, pieces=3)

    submitted = send(api, conversation["id"], {"content": "Conte até dez"}).json()
    reply = api.get(f"/api/v1/messages/{submitted['assistant_message']['id']}/").json()

    assert reply["status"] == "cancelled"
    # What the stop answered is the reply's text: the batch in flight when the worker
    # noticed (here "quatro") was neither saved nor sent (it grew by 16-44 characters).
    assert reply["content"] == StopsAfter.stop_answered
    assert reply["content"].rstrip() == "um dois três"
    assert reply["usage"]["completion_tokens"] > 0 and reply["usage"]["prompt_tokens"] > 0
    _, events = get_events(user, f"/api/v1/messages/{reply['id']}/events/")
    assert [e["event"] for e in events].count("cancelled") == 1
    assert events[-1]["event"] == "cancelled" and events[-1]["data"]["content"] == reply["content"]
    assert "".join(e["data"]["text"] for e in events if e["event"] == "delta") == reply["content"]
    time.sleep(0.2)
    assert scripted_llm.streams_closed_early == 1  # the model's stream was closed, not read to the end


def test_a_write_proposed_before_a_stop_mid_tool_loop_never_runs(
    scripted_llm: Any, api: Any, conversation: dict[str, Any], send: Any, monkeypatch: pytest.MonkeyPatch,
    shipped_skills: None,
) -> None:
    scripted_llm.reply_tool_calls(
        [("create_expense", {"amount": 50, "description": "mercado"}, "call_1"), ("get_finance_summary", {}, "call_2")]
    )
    scripted_llm.reply_text("Registro R$ 50,00?")
    proposed_then_stopped = []

    real = answering.execute_tool_call

    def execute_then_stop(message: Message, *args: Any, **kwargs: Any) -> Any:
        outcome = real(message, *args, **kwargs)
        proposed_then_stopped.append(kwargs["name"])
        cancel_reply(message)  # the user presses Stop while the loop is between tool calls
        return outcome

    monkeypatch.setattr(answering, "execute_tool_call", execute_then_stop)

    submitted = send(api, conversation["id"], {"content": "Gastei 50 reais no mercado"}).json()
    reply = api.get(f"/api/v1/messages/{submitted['assistant_message']['id']}/").json()
    asked = len(scripted_llm.requests)
    confirmed = send(api, conversation["id"], {"content": "sim"})

    assert proposed_then_stopped == ["create_expense"]  # the second tool never ran
    assert asked == 1  # and the model was not asked again
    assert reply["status"] == "cancelled"
    assert PendingAction.objects.get().status == "expired"
    assert confirmed.status_code == 202
    assert not Expense.objects.exists()


def test_polling_a_running_reply_shows_the_text_so_far(
    scripted_llm: Any, api: Any, conversation: dict[str, Any], send: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    scripted_llm.reply_text("Primeiro isto, depois aquilo e por fim o resto.")
    seen: list[dict[str, Any]] = []

    class Peeks(ReplyProgress):
        def text(self, piece: str) -> None:
            super().text(piece)
            if len(seen) < 1 and "isto" in self.content:
                seen.append(api.get(f"/api/v1/messages/{self.message_id}/").json())

    real = answering.new_progress
    monkeypatch.setattr(answering, "new_progress", lambda message_id: real(message_id, kind=Peeks, batch_seconds=0))

    send(api, conversation["id"], {"content": "Explique"})

    assert seen[0]["status"] == "running"
    assert seen[0]["content"].startswith("Primeiro isto")
    assert seen[0]["content"] != "Primeiro isto, depois aquilo e por fim o resto."


@pytest.mark.django_db(transaction=True)
def test_on_the_embedded_defaults_the_send_answers_at_once_and_the_reply_streams_in_a_thread(
    api: Any, conversation: dict[str, Any], settings: Any
) -> None:
    settings.EMBEDDED_REPLY_THREADS = 2
    settings.LLM_OFFLINE_TOKEN_DELAY_SECONDS = 0.03  # the offline model's ~50 words take over a second

    response = api.post(f"/api/v1/conversations/{conversation['id']}/messages/", {"content": "Oi"}, format="json")
    reply_id = response.json()["assistant_message"]["id"]

    assert response.status_code == 202
    # Inline, the reply would be done before the send answered.
    assert api.get(f"/api/v1/messages/{reply_id}/").json()["status"] in ("pending", "running")
    seen_running_text = False
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        reply = api.get(f"/api/v1/messages/{reply_id}/").json()
        if reply["status"] == "running" and reply["content"]:
            seen_running_text = True
        if reply["status"] == "done":
            break
        time.sleep(0.05)
    assert reply["status"] == "done" and reply["content"].endswith("Oi")  # the offline model repeats it
    assert seen_running_text  # polled mid-reply: the text so far


def test_with_redis_down_the_reply_is_still_saved_and_the_stream_says_to_poll(
    scripted_llm: Any, api: Any, user: Any, conversation: dict[str, Any], send: Any, settings: Any
) -> None:
    settings.EVENTS_REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens there
    scripted_llm.reply_text("Tudo certo por aqui.")

    submitted = send(api, conversation["id"], {"content": "Oi"}).json()
    reply = api.get(f"/api/v1/messages/{submitted['assistant_message']['id']}/").json()
    status, events = get_events(user, f"/api/v1/messages/{reply['id']}/events/")

    assert reply["status"] == "done" and reply["content"] == "Tudo certo por aqui."
    assert status == 200
    assert [e["event"] for e in events] == ["error"]
    assert f"/api/v1/messages/{reply['id']}/" in events[0]["data"]["detail"]


def test_a_stream_whose_reply_is_deleted_with_its_conversation_ends_with_an_error_event(
    conversation: dict[str, Any], api: Any, user: Any, settings: Any, shipped_skills: None
) -> None:
    import asyncio

    from asgiref.sync import sync_to_async

    from chat.models import Conversation
    from lifeassistant.models import Profile

    settings.EVENTS_HEARTBEAT_SECONDS = 0.1
    # No worker runs here (the commit's dispatch is not executed): the reply stays pending.
    submitted = api.post(f"/api/v1/conversations/{conversation['id']}/messages/", {"content": "Oi"}, format="json")
    reply_id = submitted.json()["assistant_message"]["id"]
    Profile.objects.filter(user=user).update(language="pt")  # the reader's language

    async def follow_then_delete() -> list[dict[str, Any]]:
        client = AsyncClient()
        await client.aforce_login(user)
        response = await client.get(f"/api/v1/messages/{reply_id}/events/")
        # The user deletes the conversation in another tab while this one follows the reply.
        await sync_to_async(Conversation.objects.filter(pk=conversation["id"]).delete)()
        body = b"".join([chunk async for chunk in response.streaming_content]).decode()
        return parse_sse(body)

    async def within_ten_seconds() -> list[dict[str, Any]]:
        return await asyncio.wait_for(follow_then_delete(), 10)  # before the change: no end

    events = async_to_sync(within_ten_seconds)()

    assert [event["event"] for event in events] == ["error"]
    assert events[0]["data"] == {"detail": "Esta resposta foi excluída junto com a conversa."}


def test_deleting_the_conversation_ends_its_replys_stream_at_once_not_at_the_next_heartbeat(
    conversation: dict[str, Any], api: Any, user: Any, settings: Any, shipped_skills: None,
    django_capture_on_commit_callbacks: Any,
) -> None:
    """The web chat showed "thinking" for the heartbeat's 15 s after the delete."""
    import asyncio

    from asgiref.sync import sync_to_async

    settings.EVENTS_HEARTBEAT_SECONDS = 30
    submitted = api.post(f"/api/v1/conversations/{conversation['id']}/messages/", {"content": "Oi"}, format="json")
    reply_id = submitted.json()["assistant_message"]["id"]

    def delete_in_another_tab() -> None:
        with django_capture_on_commit_callbacks(execute=True):
            assert api.delete(f"/api/v1/conversations/{conversation['id']}/").status_code == 204

    async def follow_then_delete() -> list[dict[str, Any]]:
        client = AsyncClient()
        await client.aforce_login(user)
        response = await client.get(f"/api/v1/messages/{reply_id}/events/", headers={"Accept-Language": "en"})
        await sync_to_async(delete_in_another_tab)()
        body = b"".join([chunk async for chunk in response.streaming_content]).decode()
        return parse_sse(body)

    async def within_five_seconds() -> list[dict[str, Any]]:
        return await asyncio.wait_for(follow_then_delete(), 5)

    events = async_to_sync(within_five_seconds)()

    assert [event["event"] for event in events] == ["error"]
    assert events[0]["data"] == {"detail": "This reply was deleted with its conversation."}


def test_a_failed_replys_final_event_speaks_each_readers_language(reply: dict[str, Any], user: Any) -> None:
    """The worker published the end in Portuguese; each reader gets its own, as from GET."""
    from django.utils import translation

    from chat.reply_progress import publish_final

    event_log().clear(reply["id"])
    Message.objects.filter(pk=reply["id"]).update(status="failed", error_code="model_unavailable")
    with translation.override("pt-br"):
        publish_final(reply["id"])

    _, english = get_events(user, f"/api/v1/messages/{reply['id']}/events/", **{"Accept-Language": "en"})
    _, portuguese = get_events(user, f"/api/v1/messages/{reply['id']}/events/", **{"Accept-Language": "pt-BR"})

    assert english[-1]["event"] == "failed"
    assert english[-1]["data"]["error"] == "The assistant is unavailable right now. Please retry in a moment."
    assert portuguese[-1]["data"]["error"].startswith("O assistente está indisponível")


@pytest.mark.parametrize(("status", "code"), [("running", "timeout"), ("pending", "not_queued")])
def test_a_reply_nobody_will_finish_fails_so_its_reader_gets_an_end_and_retry(
    api: Any, conversation: dict[str, Any], user: Any, settings: Any, status: str, code: str
) -> None:
    """The web process running it died (embedded defaults) or its task was lost: it was
    "thinking" forever. Past the hard time limit and the redelivery's grace it fails."""
    import asyncio
    from datetime import timedelta

    from django.utils import timezone

    settings.EVENTS_HEARTBEAT_SECONDS = 0.1
    submitted = api.post(f"/api/v1/conversations/{conversation['id']}/messages/", {"content": "Oi"}, format="json")
    reply_id = submitted.json()["assistant_message"]["id"]
    long_ago = timezone.now() - timedelta(seconds=settings.REPLY_TIME_LIMIT_SECONDS + 16)
    Message.objects.filter(pk=reply_id).update(status=status, started_at=long_ago, created_at=long_ago)

    async def within_ten_seconds() -> tuple[int, Any]:
        return await asyncio.wait_for(sync_to_async_get_events(user, f"/api/v1/messages/{reply_id}/events/"), 10)

    _, events = async_to_sync(within_ten_seconds)()

    assert events[-1]["event"] == "failed" and events[-1]["data"]["error_code"] == code
    assert api.get(f"/api/v1/messages/{reply_id}/").json()["status"] == "failed"
    assert api.post(f"/api/v1/messages/{reply_id}/retry/").status_code == 202


def test_a_reply_long_abandoned_fails_as_its_stream_opens_not_at_the_first_heartbeat(
    api: Any, conversation: dict[str, Any], user: Any, settings: Any
) -> None:
    import asyncio
    from datetime import timedelta

    from django.utils import timezone

    settings.EVENTS_HEARTBEAT_SECONDS = 30
    submitted = api.post(f"/api/v1/conversations/{conversation['id']}/messages/", {"content": "Oi"}, format="json")
    reply_id = submitted.json()["assistant_message"]["id"]
    long_ago = timezone.now() - timedelta(seconds=settings.REPLY_TIME_LIMIT_SECONDS + 16)
    Message.objects.filter(pk=reply_id).update(status="running", started_at=long_ago)

    async def within_five_seconds() -> tuple[int, Any]:
        return await asyncio.wait_for(sync_to_async_get_events(user, f"/api/v1/messages/{reply_id}/events/"), 5)

    _, events = async_to_sync(within_five_seconds)()

    assert events[-1]["event"] == "failed" and events[-1]["data"]["error_code"] == "timeout"


def test_a_reply_running_within_its_time_limit_is_left_alone(api: Any, conversation: dict[str, Any]) -> None:
    from chat.replies import fail_if_overdue

    submitted = api.post(f"/api/v1/conversations/{conversation['id']}/messages/", {"content": "Oi"}, format="json")
    reply_id = submitted.json()["assistant_message"]["id"]
    Message.objects.filter(pk=reply_id).update(status="running")  # started_at: none yet, or now

    assert fail_if_overdue(reply_id) is False
    assert Message.objects.get(pk=reply_id).status == "running"


def test_opening_a_running_replys_stream_asks_the_database_twice_and_the_log_nothing(
    api: Any, conversation: dict[str, Any], user: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every reader of a burst opens a stream: who asks and whose reply, nothing more (an
    overdue check by query and a log lookup were two more round trips each)."""
    from django.contrib.auth.models import AnonymousUser
    from django.db import connection
    from django.test import RequestFactory
    from django.test.utils import CaptureQueriesContext
    from django.utils import timezone

    from chat.api import streaming

    submitted = api.post(f"/api/v1/conversations/{conversation['id']}/messages/", {"content": "Oi"}, format="json")
    reply_id = submitted.json()["assistant_message"]["id"]
    Message.objects.filter(pk=reply_id).update(status="running", started_at=timezone.now())
    _, key = issue_token(user)
    request = RequestFactory().get(f"/api/v1/messages/{reply_id}/events/", HTTP_AUTHORIZATION=f"Token {key}")
    request.user = AnonymousUser()
    monkeypatch.setattr(streaming, "event_log", lambda: pytest.fail("the log was asked before streaming"))

    with CaptureQueriesContext(connection) as queries:
        opening = streaming._check(request, reply_id)

    assert opening == streaming.Opening() and len(queries.captured_queries) == 2
