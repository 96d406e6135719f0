"""A running reply's progress: the text so far in the database, its events in the log.

The worker's tool loop reports here (``chat.tool_loop.Progress``). Text is batched
(``EVENTS_BATCH_SECONDS``): each batch is one conditional UPDATE of the reply's content,
which is also how the worker learns that the user stopped the reply (the row is no
longer ``running``), then one ``delta`` event. The event log is best effort: when it is
unavailable the reply still finishes and is saved; clients fall back to polling.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.db.models import Prefetch, prefetch_related_objects

from documents.models import ChatDocument
from lifeassistant.event_log import EventLog, EventLogUnavailable, event_log
from lifeassistant.observability.metrics import FirstToken

from .api.serializers import MessageSerializer
from .models import Message, PendingAction

logger = logging.getLogger(__name__)


class ReplyProgress:
    """``Progress`` for one reply: batched deltas, tool events, and the stop check."""

    def __init__(
        self, message_id: int, log: EventLog, *, batch_seconds: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.message_id = message_id
        self.log = log
        self.batch_seconds = batch_seconds
        self.clock = clock
        self.content = ""
        self._pending: list[str] = []
        self._flushed_at = clock()
        self._stopped = False
        self._log_broken = False
        self.first_token = FirstToken(settings.LLM_MODEL)  # once, not per chunk

    # -- the loop's side -----------------------------------------------------------

    def text(self, piece: str) -> None:
        self.first_token.seen()
        self._pending.append(piece)
        if self.clock() - self._flushed_at >= self.batch_seconds:
            self.flush()

    def tool_started(self, name: str) -> None:
        self.publish("tool_started", {"name": name, "status": "running"})

    def tool_finished(self, name: str, status: str) -> None:
        self.publish("tool_finished", {"name": name, "status": status})

    def cancelled(self) -> bool:
        return self._stopped

    def checkpoint(self) -> bool:
        """Before a tool call: save the text so far and ask the database whether to stop."""
        self.flush(force_check=True)
        return self._stopped

    # -- batching ------------------------------------------------------------------

    def flush(self, *, force_check: bool = False, save: bool = True) -> None:
        """Save the pending text (and learn whether the reply was stopped), then publish it.

        ``save=False`` only publishes: for the last batch, when the caller saves the
        whole text itself at once (one UPDATE, not two).
        """
        delta = "".join(self._pending)
        self._pending.clear()
        self._flushed_at = self.clock()
        if not delta and not force_check:
            return
        if save or force_check:
            still_running = Message.objects.filter(pk=self.message_id, status=Message.Status.RUNNING).update(
                content=self.content + delta
            )
            if not still_running:
                # Stopped meanwhile: the reply keeps the text it had when the user stopped
                # it (what the stop's answer showed); this batch is neither saved nor sent.
                self._stopped = True
                return
        self.content += delta
        if delta:
            self.publish("delta", {"text": delta})

    def publish(self, type: str, data: dict[str, Any]) -> None:
        if self._log_broken:
            return
        try:
            self.log.append(self.message_id, type, data)
        except EventLogUnavailable:
            # One warning, then the reply goes on without its log; SSE clients get an
            # error event and poll the message instead.
            logger.warning("event log unavailable; reply %s goes on without streaming", self.message_id, exc_info=True)
            self._log_broken = True


def new_progress(message_id: int) -> ReplyProgress:
    return ReplyProgress(message_id, event_log(), batch_seconds=settings.EVENTS_BATCH_SECONDS)


def clear_events(message_id: int) -> None:
    """Drop the reply's log (best effort): its next run starts a new one."""
    try:
        event_log().clear(message_id)
    except EventLogUnavailable:
        logger.warning("event log unavailable; the old events of reply %s stay until they expire", message_id)


def publish_deleted(message_ids: list[int]) -> None:
    """End the logs of replies deleted while they ran (best effort: else their readers
    learn it at the next heartbeat)."""
    try:
        log = event_log()
        for message_id in message_ids:
            log.append(message_id, "deleted", {})
    except EventLogUnavailable:
        logger.warning("event log unavailable; readers of deleted replies %s learn it at their next heartbeat", message_ids)


def publish_status(message_id: int, status: str, **extra: Any) -> None:
    """A ``status`` event (best effort)."""
    try:
        event_log().append(message_id, "status", {"status": status, **extra})
    except EventLogUnavailable:
        logger.warning("event log unavailable; status of reply %s not published", message_id)


def ended_reply(message_id: int) -> Message | None:
    """The reply with what the API shows of it (tool calls, actions, documents, the
    message it answers), or None while it has not ended.

    Ended on every reply, so it reads no relation that must be empty: a reply holds no
    documents (pasted content is attached to the user's message), and only a tool call
    proposes an action, so a reply without tool calls has none.
    """
    message = (
        Message.objects.filter(pk=message_id)
        .select_related("conversation", "reply_to")
        .prefetch_related("tool_calls", Prefetch("documents", queryset=ChatDocument.objects.none()))
        .first()
    )
    if message is None or not message.has_ended:
        return None
    actions = None if message.tool_calls.all() else PendingAction.objects.none()
    prefetch_related_objects([message], Prefetch("pending_actions", queryset=actions))
    return message


def publish_final(message_id: int) -> bool:
    """The reply's final event, carrying the message as the API shows it, if it ended.

    Safe to call from every place a reply can end (worker, cancel, a redelivered task,
    the SSE view finding a log without its end): the log keeps only the first final event.
    Returns whether the reply has ended.
    """
    return publish_ended(ended_reply(message_id))


def publish_ended(message: Message | None) -> bool:
    """``publish_final`` for a reply already loaded by ``ended_reply``."""
    if message is None:
        return False
    try:
        event_log().append(message.pk, message.status, dict(MessageSerializer(message).data))
    except EventLogUnavailable:
        logger.warning("event log unavailable; the end of reply %s not published", message.pk)
    return True
