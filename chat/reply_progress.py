"""A running reply as its readers see it: the reply's event log.

The text so far lives in the log (a Redis Stream, or in-process on the embedded defaults):
text is published in batches (``EVENTS_BATCH_SECONDS``), and the message row is written
only when the reply starts, at each tool round, at most every ``REPLY_CHECKPOINT_SECONDS``
(so a crash loses little) and at its end: O(1) writes per reply, whatever its length.

The user's stop is a marker in the log (``EventLog.stop``): the batch appended after it is
refused, which is how the worker learns of it without asking the database, and the text
before the marker is what the stop answered. When the log is unavailable the reply still
finishes and is saved (the database then tells of a stop, asked once a second), and
clients fall back to polling.

The final event carries only the reply's status: the SSE view adds the message as the API
shows it, in its reader's language (``chat.api.streaming``), so the worker needs no serializer.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from dataclasses import dataclass

from django.conf import settings

from lifeassistant.db import one_row
from lifeassistant.event_log import EventLog, EventLogUnavailable, event_log
from lifeassistant.observability.metrics import FirstToken

from .models import FINAL_STATUSES, Message, PendingAction, ToolCall
from .tool_labels import tool_label

logger = logging.getLogger(__name__)

# With the log lost, the worker asks the database whether the reply was stopped this often.
STOP_CHECK_SECONDS = 1.0
# Under load the batches grow: past this many replies in flight in the process, each one
# more stretches the interval, so the appends (and the events every reader relays) a
# second stay about constant; never past MAX_BATCH_SECONDS, still a smooth stream (two
# to three updates a second at 100 replies in flight, ~13 chunks of text each). Each
# batch costs the worker an append and every web process one relay per reader: at 50
# they were a third of a 100-person burst's CPU (docs/performance.md, seventh pass).
REPLIES_PER_BASE_BATCH = 20
MAX_BATCH_SECONDS = 0.5
# A stream read in gathers (lifeassistant.gathered_reads) is read at least this often,
# however long the batches: the model's last chunk waits for the next read, so with reads a
# batch apart every reply ended up to 0.375 s late at 100 in flight (0.26-0.31 s at the
# median). 0.15 s halves that for ~10 µs more worker CPU a chunk; 0.1 s cost 12-30 µs.
# docs/performance.md, tenth pass.
MAX_GATHER_SECONDS = 0.15


def batch_interval(base: float, in_flight: int) -> float:
    """Seconds between two published batches of a reply, ``in_flight`` replies running here."""
    if base >= MAX_BATCH_SECONDS:
        return base  # configured that slow: left as it is
    return min(MAX_BATCH_SECONDS, max(base, base * in_flight / REPLIES_PER_BASE_BATCH))


def gather_interval(batch_seconds: float) -> float:
    """How often a reply's model stream is read, its batches ``batch_seconds`` apart."""
    return min(batch_seconds, MAX_GATHER_SECONDS)


class ReplyProgress:
    """``chat.tool_loop.Progress`` for one reply: batched deltas, tool events, the stop.

    ``save(text)`` checkpoints the text in the row and answers False when the reply no
    longer runs; ``still_running()`` asks the database (used only when the log is lost).
    ``pace()``, when given, is asked after each batch for the next interval (the load
    changes while a reply streams: a burst's first replies start with few in flight); a
    stream read in gathers (``lifeassistant.gathered_reads``) follows it.
    """

    def __init__(
        self,
        message_id: int,
        log: EventLog,
        *,
        batch_seconds: float,
        checkpoint_seconds: float,
        save: Callable[[str], bool],
        still_running: Callable[[], bool],
        pace: Callable[[], float] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.message_id = message_id
        self.log = log
        self.batch_seconds = batch_seconds
        self.checkpoint_seconds = checkpoint_seconds
        self.save = save
        self.still_running = still_running
        self.pace = pace
        self.clock = clock
        self.content = ""  # what readers were sent: the text the stop answers with
        self._saved = ""  # the text the row holds (the claim emptied it)
        self._pending: list[str] = []
        self._flushed_at = clock()
        self._saved_at = clock()
        self._checked_at = clock()
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
        self.publish("tool_started", {"name": name, "status": "running", "label": tool_label(name)})

    def tool_finished(self, name: str, status: str) -> None:
        self.publish("tool_finished", {"name": name, "status": status})

    def cancelled(self) -> bool:
        return self._stopped

    def checkpoint(self) -> bool:
        """Before a tool call: publish and save the text so far; whether to stop."""
        self.flush()
        if self._stopped:
            return True
        if self.content == self._saved and not self._log_broken:
            self._stopped = self._log_says_stopped()  # nothing to save: the log alone tells
        else:
            self._save()
        return self._stopped

    def _log_says_stopped(self) -> bool:
        try:
            return self.log.stopped(self.message_id)
        except EventLogUnavailable:
            self._log_broken = True
            return not self.still_running()

    # -- batching ------------------------------------------------------------------

    def flush(self) -> None:
        """Publish the pending text; a log that refuses it was stopped."""
        delta = "".join(self._pending)
        self._pending.clear()
        now = self._flushed_at = self.clock()
        if self.pace is not None:
            self._follow_pace(self.pace())
        if self._stopped:
            return
        if self._log_broken and now - self._checked_at >= STOP_CHECK_SECONDS:
            self._checked_at = now
            if not self.still_running():
                self._stopped = True
                return
        if delta:
            if self.publish("delta", {"text": delta}) is False:
                self._stopped = True  # the stop's marker came first: this batch is not the reply's
                return
            self.content += delta
        if now - self._saved_at >= self.checkpoint_seconds:
            self._save()

    def _follow_pace(self, seconds: float) -> None:
        if seconds == self.batch_seconds:
            return
        self.batch_seconds = seconds
        # Imported here: it brings httpcore, which the web processes (they stream no model,
        # and only this module of the two) would otherwise load for nothing: 5.9 MiB each.
        from lifeassistant.gathered_reads import gather_seconds, set_gather_seconds

        if gather_seconds() > 0:  # inside a stream read in gathers: its reads follow the batches
            set_gather_seconds(gather_interval(seconds))

    def _save(self) -> None:
        self._saved_at = self._checked_at = self.clock()
        self._saved = self.content
        if not self.save(self.content):
            self._stopped = True

    def publish(self, type: str, data: dict[str, Any]) -> bool | None:
        """Append an event: True; False when the log refused it (stopped or ended); None
        when the log is unavailable (the reply goes on without it)."""
        if self._log_broken:
            return None
        try:
            return self.log.append(self.message_id, type, data) is not None
        except EventLogUnavailable:
            # One warning, then the reply goes on without its log; SSE clients get an
            # error event and poll the message instead.
            logger.warning("event log unavailable; reply %s goes on without streaming", self.message_id, exc_info=True)
            self._log_broken = True
            return None


def clear_events(message_id: int) -> None:
    """Drop the reply's log (best effort): its next run starts a new one."""
    try:
        event_log().clear(message_id)
    except EventLogUnavailable:
        logger.warning("event log unavailable; the old events of reply %s stay until they expire", message_id)


def log_has_ended(message_id: int) -> bool:
    """Whether the reply's log was stopped or ended (False when it cannot tell)."""
    try:
        return event_log().stopped(message_id)
    except EventLogUnavailable:
        return False


def stop_events(message_id: int) -> str | None:
    """Mark the reply's log stopped; the text its readers were sent, or None when the log
    had ended or is unavailable (then the row's last checkpoint is the text)."""
    try:
        return event_log().stop(message_id)
    except EventLogUnavailable:
        logger.warning("event log unavailable; reply %s is stopped through the database", message_id)
        return None


def live_text(message_id: int) -> str | None:
    """A running reply's text so far, from its log; None when the log cannot tell."""
    try:
        log = event_log()
        if not log.exists(message_id):
            return None
        return log.text(message_id)
    except EventLogUnavailable:
        return None


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


def publish_end(message_id: int, status: str) -> None:
    """The reply's final event (best effort). Safe to call from every place a reply can
    end (worker, cancel, a redelivered task, the SSE view finding a log without its end):
    the log keeps only the first final event."""
    try:
        event_log().append(message_id, status, {"status": status})
    except EventLogUnavailable:
        logger.warning("event log unavailable; the end of reply %s not published", message_id)


def publish_final(message_id: int) -> bool:
    """``publish_end`` for a reply whose status is read here; whether it has ended."""
    status = one_row(Message.objects.filter(pk=message_id).values_list("status", flat=True))
    if status not in FINAL_STATUSES:
        return False
    publish_end(message_id, status)
    return True


@dataclass(frozen=True)
class EndedReply:
    """An ended reply with what the API shows of it: its tool calls and pending actions
    (read), its documents (a reply has none), by id for ``MessageSerializer``'s context."""

    message: Message
    tool_calls: list[ToolCall]
    pending_actions: list[PendingAction]

    @property
    def relations(self) -> dict[int, dict[str, list[Any]]]:
        return {self.message.pk: {"tool_calls": self.tool_calls, "pending_actions": self.pending_actions, "documents": []}}


def ended_reply(message_id: int) -> EndedReply | None:
    """The reply and what the API shows of it, or None while it has not ended.

    Ended on every reply, so it reads no relation that must be empty: a reply holds no
    documents (pasted content is attached to the user's message), and only a tool call
    proposes an action, so a reply without tool calls has none.
    """
    # The API shows its conversation and the message it answers by id alone.
    message = one_row(Message.objects.filter(pk=message_id))
    if message is None or not message.has_ended:
        return None
    tool_calls = list(message.tool_calls.all())
    return EndedReply(message, tool_calls, list(message.pending_actions.all()) if tool_calls else [])
