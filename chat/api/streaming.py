"""``GET /api/v1/messages/{id}/events/``: a reply's event log as Server-Sent Events.

An async view (served under ASGI): the ownership check and the database reads run in
``sync_to_async`` before streaming and the connection is closed, so while it waits on
the log (``XREAD BLOCK``) the view's code holds no database connection and runs no thread.
Its synchronous steps (the middleware's too) run on the process's shared stream lanes
(``lifeassistant.stream_lanes``), not on a thread of the request's own that would idle
as long as the stream is open (``bash bench/concurrency.sh --open-streams 1000``).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseBase, JsonResponse, StreamingHttpResponse
from django.utils import translation
from django.utils.translation import gettext_lazy, gettext as _
from django.views.decorators.csrf import csrf_exempt
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.request import Request

from lifeassistant.db import one_row, release_connections
from lifeassistant.event_log import Event, EventLog, EventLogUnavailable, event_log, parse_id
from lifeassistant.observability.metrics import counted_stream
from lifeassistant.stream_lanes import shares_threads
from ..models import FINAL_STATUSES, Message
from ..replies import fail_if_overdue, is_overdue
from ..reply_progress import ended_reply, publish_final
from .serializers import MessageSerializer
from .authentication import TokenAuthentication

UNAVAILABLE = gettext_lazy("Live updates are unavailable right now; poll GET /api/v1/messages/{pk}/ instead.")
DELETED = gettext_lazy("This reply was deleted with its conversation.")


@dataclass(frozen=True)
class Opening:
    """What the view decided before streaming: an error response, or where to start."""

    error: HttpResponseBase | None = None
    after: str | None = None


# Only GET streams; any other method is a JSON 405 from the view, not the CSRF check's
# HTML 403 (a token-authenticated POST carries no CSRF token). Nothing here writes.
# Its synchronous steps are short and release their connection: it shares threads.
@shares_threads
@csrf_exempt
async def reply_events(request: HttpRequest, pk: int) -> HttpResponseBase:
    if request.method != "GET":
        refused = JsonResponse({"detail": _('Method "{method}" not allowed.').format(method=request.method)}, status=405)
        refused["Allow"] = "GET"
        return refused
    opening = await sync_to_async(_open)(request, pk)
    if opening.error is not None:
        return opening.error
    # The stream is read after the middleware has returned: it keeps the reader's language.
    stream = counted_stream(_stream(event_log(), pk, opening.after, translation.get_language()))
    # SSE is UTF-8 by definition; saying so keeps non-browser clients from guessing Latin-1.
    response = StreamingHttpResponse(stream, content_type="text/event-stream; charset=utf-8")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # nginx: pass each event on at once
    return response


def _open(request: HttpRequest, pk: int) -> Opening:
    """Who asks, whose reply, and which ``after``; then the connection is closed."""
    try:
        return _check(request, pk)
    finally:
        release_connections()  # nothing of the database is held while the stream waits


def _check(request: HttpRequest, pk: int) -> Opening:
    user = request.user if request.user.is_authenticated else None
    try:
        token = TokenAuthentication().authenticate(Request(request))
    except AuthenticationFailed as exc:
        return Opening(error=JsonResponse({"detail": str(exc.detail)}, status=401))
    if token is not None:
        user = token[0]
    if user is None:
        return Opening(error=JsonResponse({"detail": _("Authentication credentials were not provided.")}, status=401))
    message = one_row(Message.objects.filter(pk=pk, conversation__owner=user, role=Message.Role.ASSISTANT))
    if message is None:
        return Opening(error=JsonResponse({"detail": _("Not found.")}, status=404))
    # The header first: an EventSource opened with ?after= sends the newest id it has in
    # Last-Event-ID when it reconnects, to the same address.
    after = request.headers.get("Last-Event-ID") or request.GET.get("after") or None
    # The row just read says whether it is overdue: only then is it failed (a query).
    if is_overdue(message) and fail_if_overdue(pk):
        message.refresh_from_db()  # failed now, its end published: the stream replays it
    if after is None and not message.has_ended:
        return Opening()  # followed from its start: nothing to look up in the log first
    log = event_log()
    try:
        if message.has_ended and not log.exists(pk):
            # Finished long ago (the log expired): the final event comes from the database.
            publish_final(pk)
            return Opening()
        seen = _event_of(log, pk, after) if after is not None else None
        if after is not None and seen is None:
            return Opening(error=JsonResponse({"detail": _("'after' is not an event id of reply %(pk)s.") % {"pk": pk}}, status=400))
        if seen is not None and seen.final:
            # The reader has the reply's end (an EventSource reconnects after the stream
            # closes): nothing more will come, and a 204 tells it to stop reconnecting.
            return Opening(error=HttpResponse(status=204))
    except EventLogUnavailable:
        return Opening(after=after)  # the stream says so in an error event
    return Opening(after=after)


def _event_of(log: EventLog, pk: int, event_id: str) -> Event | None:
    try:
        parse_id(event_id)
    except ValueError:
        return None
    return log.find(pk, event_id)


async def _stream(log: EventLog, pk: int, after: str | None, language: str | None) -> AsyncIterator[str]:
    """Replay after ``after``, then follow, until the final event; heartbeats between.

    Its own ``error`` events, and the message a final event carries, are in ``language``,
    the reader's."""
    try:
        async for events in log.follow(pk, after, settings.EVENTS_HEARTBEAT_SECONDS):
            if not events:
                yield ": keep-alive\n\n"
                # A reply can end without its writer publishing (a worker that vanished,
                # a reply stopped meanwhile): the database says so, the log then gets it.
                # One deleted with its conversation never ends: the stream does, not waiting on.
                if not await sync_to_async(_end_from_database)(pk):
                    yield _error_event(after, DELETED, language)
                    return
                continue
            for event in events:
                if event.type == "deleted":
                    yield _error_event(after, DELETED, language)
                    return
                if event.type == "stopping":
                    continue  # the reply's own marker; its final event follows
                if event.final:
                    event = Event(event.id, event.type, await sync_to_async(final_message)(pk, language))
                yield format_event(event)
                after = event.id
                if event.final:
                    return
    except EventLogUnavailable:
        yield _error_event(after, UNAVAILABLE, language, pk=pk)


def final_message(pk: int, language: str | None) -> dict[str, Any]:
    """The ended reply as ``GET /api/v1/messages/{id}/`` shows it, in the reader's language
    (a failed reply's ``error`` is its code's sentence)."""
    try:
        ended = ended_reply(pk)
        if ended is None:  # deleted since: the final event still says how it ended
            return {"id": pk}
        with translation.override(language):
            return dict(MessageSerializer(ended.message, context={"relations": ended.relations}).data)
    finally:
        release_connections()


def _error_event(after: str | None, text: Any, language: str | None, **values: Any) -> str:
    with translation.override(language):
        return format_event(Event(after or "0-0", "error", {"detail": str(text).format(**values)}))


def _end_from_database(pk: int) -> bool:
    """Publish the reply's final event if the database says it ended, or fail it when it
    is overdue (``fail_if_overdue``); False when the reply no longer exists. A running
    reply costs two queries per heartbeat."""
    try:
        status = one_row(Message.objects.filter(pk=pk).values_list("status", flat=True))
        if status in FINAL_STATUSES:
            publish_final(pk)
        elif status is not None:
            fail_if_overdue(pk)  # publishes its end when it was
        return status is not None
    finally:
        release_connections()


def format_event(event: Event) -> str:
    data = json.dumps(event.data, ensure_ascii=False, separators=(",", ":"))
    return f"id: {event.id}\nevent: {event.type}\ndata: {data}\n\n"


EVENT_TYPES = "delta, tool_started, tool_finished, status, done, failed, cancelled, error"


def add_to_schema(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: the SSE endpoint is a plain async view, not a
    DRF one, so the generator does not see it; this adds it as ``text/event-stream``."""
    error = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
    result.setdefault("paths", {})["/api/v1/messages/{id}/events/"] = {
        "get": {
            "operationId": "messages_events_retrieve",
            "summary": "Follow a reply as it is written (Server-Sent Events)",
            "description": (
                "Replays the reply's event log from the start, or after `Last-Event-ID` / `?after=`, then "
                "follows it live until the final event. Each event has an `id:`, an `event:` type "
                f"({EVENT_TYPES}) and JSON `data:`. `delta` is `{{\"text\"}}` to append; `tool_started` is "
                "`{\"name\", \"status\", \"label\"}` (`label`: what to show meanwhile, in the reply's language), "
                "`tool_finished` `{\"name\", \"status\"}`; `status` is `{\"status\"}` (a `running` "
                "after text with `\"restarted\": true` means the reply started over: clear its text); "
                "`done` / `failed` / `cancelled` carry the message as `GET /api/v1/messages/{id}/` returns "
                "it, and the stream ends (resuming after that final event answers `204`). `error` means the "
                "log is unavailable: poll the message instead. "
                "A `: keep-alive` comment comes every 15 s."
            ),
            "tags": ["messages"],
            "parameters": [
                {"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}},
                {
                    "name": "after",
                    "in": "query",
                    "required": False,
                    "schema": {"type": "string", "pattern": "^[0-9]+-[0-9]+$"},
                    "description": "Resume after this event id, when no Last-Event-ID header is sent (the header wins).",
                },
                {"name": "Last-Event-ID", "in": "header", "required": False, "schema": {"type": "string"}},
            ],
            "security": [{"tokenAuth": []}, {"cookieAuth": []}],
            "responses": {
                "200": {
                    "description": "The event stream.",
                    "content": {"text/event-stream": {"schema": {"type": "string"}}},
                },
                "204": {"description": "`after` is the reply's final event: the reader has it all, nothing more will come."},
                "400": {"description": "`after` is not an event id of this reply.", "content": error},
                "401": {"description": "Not signed in.", "content": error},
                "404": {"description": "No such reply of yours.", "content": error},
            },
        }
    }
    return result
