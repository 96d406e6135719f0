"""A reply's life in one place: its states, its transitions and its one deadline.

::

    pending ──claim──► running ──finish──► done
       │                  ├─────stop────► cancelled   (the user; the text is what the stop answered)
       │                  └─────fail────► failed      (a model error, the deadline, a crash)
       └──stop / fail ──► cancelled / failed
    failed, or overdue ──retry──► pending

**One deadline.** A run lasts at most ``REPLY_TIME_LIMIT_SECONDS`` from its claim (or, while
pending, from its queueing): the reply enforces it itself (the model stream checks it per
chunk, the tool loop before each model call), because Celery's threads pool enforces no
time limit. A reply still pending or running ``OVERDUE_GRACE_SECONDS`` past its deadline has
nobody left to finish it: it is *overdue*, and failed.

**Who runs it.** The claim records the claiming process (``runner_id``), which proves it is
alive in the shared cache every few seconds (``heartbeat``). The watchdog (``sweep``, in every
process that runs replies) queues again a running reply whose runner stopped proving it (the
worker was killed: the new run starts over and reuses the stored tool results), and a pending
one whose task was lost (a broker restarted without persistence); the claim keeps a reply
from running twice.

What a reply's readers see of these moves is in ``chat.reply_progress`` (its event log).
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db.models import Q
from django.utils import timezone

from lifeassistant.db import one_row, release_connections
from lifeassistant.observability import metrics

from .actions import withdraw_for_failed_reply, withdraw_for_stopped_reply
from .failures import Failure
from .limits import bounded
from .models import Message
from .reply_progress import publish_end

logger = logging.getLogger(__name__)

# Past its deadline a run still stores its end and publishes it: a few seconds.
OVERDUE_GRACE_SECONDS = 15
# A pending reply queued longer than this is queued again (its task may be lost).
REQUEUE_AFTER_SECONDS = 30


# --------------------------------------------------------------------------- the deadline


def time_limit() -> timedelta:
    return timedelta(seconds=settings.REPLY_TIME_LIMIT_SECONDS)


def deadline(message: Message) -> datetime:
    """When the reply's current run (or its wait in the queue) must have ended."""
    return (message.started_at or message.created_at) + time_limit()


def overdue_cutoff(now: datetime | None = None) -> datetime:
    """A reply pending or running since before this is overdue."""
    return (now or timezone.now()) - time_limit() - timedelta(seconds=OVERDUE_GRACE_SECONDS)


def is_overdue(message: Message, now: datetime | None = None) -> bool:
    if message.status not in (Message.Status.PENDING, Message.Status.RUNNING):
        return False
    return (message.started_at or message.created_at) < overdue_cutoff(now)


def _overdue() -> Q:
    cutoff = overdue_cutoff()
    return Q(status=Message.Status.RUNNING, started_at__lt=cutoff) | Q(
        status=Message.Status.PENDING, started_at__isnull=True, created_at__lt=cutoff
    ) | Q(status=Message.Status.PENDING, started_at__lt=cutoff)


# --------------------------------------------------------------------------- runners


_runner: tuple[int, str] | None = None


def runner_id() -> str:
    """This process, as the runner of the replies it claims (computed after a fork)."""
    global _runner
    pid = os.getpid()
    if _runner is None or _runner[0] != pid:
        _runner = (pid, f"{socket.gethostname()[:60]}:{pid}:{int(time.time())}")
    return _runner[1]


def _heartbeat_key(runner: str) -> str:
    return f"reply-runner:{runner}"


def heartbeat() -> None:
    try:
        # Missing for four beats, the runner is taken for dead.
        cache.set(_heartbeat_key(runner_id()), 1, timeout=max(1, round(4 * settings.REPLY_HEARTBEAT_SECONDS)))
    except Exception:  # the cache is down: the sweep then takes nobody for dead either
        logger.warning("reply runner heartbeat not stored", exc_info=True)


def runners_alive(runners: set[str]) -> set[str] | None:
    """The runners that proved they are alive; None when that cannot be known (the cache
    is not shared between processes, or is down): then nobody is taken for dead."""
    if "redis" not in settings.CACHES["default"]["BACKEND"].lower():
        # A per-process cache shows this process's heartbeat only: nobody else can be judged.
        return None
    try:
        found = cache.get_many([_heartbeat_key(runner) for runner in runners])
    except Exception:
        logger.warning("reply runner heartbeats unreadable; no reply is taken over", exc_info=True)
        return None
    return {runner for runner in runners if _heartbeat_key(runner) in found}


# --------------------------------------------------------------------------- this process's load

_in_flight = 0
_in_flight_lock = threading.Lock()


def in_flight_here() -> int:
    """Replies running in this process now."""
    return _in_flight


@contextmanager
def running_here() -> Iterator[None]:
    """Count a reply as running in this process for the block (``in_flight_here``)."""
    global _in_flight
    with _in_flight_lock:
        _in_flight += 1
    try:
        yield
    finally:
        with _in_flight_lock:
            _in_flight -= 1


# --------------------------------------------------------------------------- transitions


def claim(message_id: int, *, redelivered: bool = False) -> Message | None:
    """``claim_run`` without saying whether the run starts over."""
    claimed = claim_run(message_id, redelivered=redelivered)
    return None if claimed is None else claimed[0]


def claim_run(message_id: int, *, redelivered: bool = False) -> tuple[Message, bool] | None:
    """Move a pending reply to running for this process, and say whether the run starts
    over; None when another run has it, or the reply is gone (its conversation was deleted).

    A running reply can be claimed again when its task was redelivered because its worker
    process died (prefork's reject-on-worker-lost), or when it is overdue: that run starts
    the text over and reuses the stored tool results.
    """
    fields = {"status": Message.Status.RUNNING, "started_at": timezone.now(), "content": "", "runner": runner_id()}
    replies = Message.objects.filter(pk=message_id, role=Message.Role.ASSISTANT)
    if replies.filter(status=Message.Status.PENDING).update(**fields):
        over = False
    elif replies.filter(Q(status=Message.Status.RUNNING) if redelivered else _overdue()).update(**fields):
        over = True
    else:
        return None
    # The owner's profile with it: the tools run in the user's time zone and currency.
    # None too when the conversation was deleted in the moment since the claim.
    message = one_row(Message.objects.select_related("conversation__owner__profile", "reply_to", "prompt").filter(pk=message_id))
    return None if message is None else (message, over)


def finish(message: Message, *, content: str, model: str, prompt_tokens: int, completion_tokens: int,
           cost: float | None, stopped: bool) -> bool:
    """Store the answer and its usage: done (True); or, for a reply the user stopped, the
    text it had when stopped and the usage spent (False)."""
    fields: dict[str, Any] = {
        "model": model or settings.LLM_MODEL,
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "cost": None if cost is None else Decimal(str(round(cost, 6))),
    }
    text = bounded(content, settings.REPLY_MAX_CHARS)
    metrics.record_reply_usage(settings.LLM_MODEL, message.active_skills, prompt_tokens, completion_tokens, cost)
    if not stopped and Message.objects.filter(pk=message.pk, status=Message.Status.RUNNING).update(
        status=Message.Status.DONE, finished_at=timezone.now(), content=text, **fields
    ):
        metrics.record_reply_finished("done", settings.LLM_MODEL, "", metrics.seconds_since(message.started_at))
        logger.info("reply %s done: %d prompt and %d completion tokens", message.pk, prompt_tokens, completion_tokens)
        return True
    metrics.record_reply_finished("cancelled", settings.LLM_MODEL, "", metrics.seconds_since(message.started_at))
    # Stopped: by the user's cancel (already cancelled), or the worker saw the stop in the
    # log before the cancel's transaction committed (still running: it ends it the same way).
    Message.objects.filter(pk=message.pk, status=Message.Status.RUNNING).update(
        status=Message.Status.CANCELLED, finished_at=timezone.now(), content=text
    )
    Message.objects.filter(pk=message.pk, status=Message.Status.CANCELLED).update(**fields)
    withdraw_for_stopped_reply(message)
    return False


def fail(message: Message, code: Failure, detail: str) -> None:
    """Mark the reply failed: ``code`` for the user (the API shows its sentence), ``detail``
    for the logs and the admin. The user's message stays; a reply the user stopped
    meanwhile stays stopped. The text so far, if given to ``save_text``, is kept."""
    logger.warning("reply %s failed (%s): %s", message.pk, code.value, detail)
    failed = Message.objects.filter(
        pk=message.pk, status__in=[Message.Status.PENDING, Message.Status.RUNNING]
    ).update(status=Message.Status.FAILED, error_code=code, error=detail[:2000], finished_at=timezone.now())
    withdraw_for_failed_reply(message)
    if failed:
        metrics.record_reply_finished("failed", settings.LLM_MODEL, code.value, metrics.seconds_since(message.started_at))
        publish_end(message.pk, Message.Status.FAILED)


def save_text(message_id: int, text: str) -> bool:
    """A checkpoint of a running reply's text; False when it no longer runs (stopped)."""
    return bool(
        Message.objects.filter(pk=message_id, status=Message.Status.RUNNING).update(
            content=bounded(text, settings.REPLY_MAX_CHARS)
        )
    )


def is_running(message_id: int) -> bool:
    return Message.objects.filter(pk=message_id, status=Message.Status.RUNNING).exists()


def fail_if_overdue(message_id: int) -> bool:
    """Fail a reply still pending or running past its deadline (and the grace), so its
    reader gets the end and a Retry instead of "thinking" forever. True if it did."""
    overdue = one_row(Message.objects.filter(_overdue(), pk=message_id, role=Message.Role.ASSISTANT))
    if overdue is None:
        return False
    _fail_overdue(overdue)
    return True


def _fail_overdue(message: Message) -> None:
    code = Failure.TIMEOUT if message.status == Message.Status.RUNNING else Failure.NOT_QUEUED
    fail(message, code, f"overdue: still {message.status} {settings.REPLY_TIME_LIMIT_SECONDS + OVERDUE_GRACE_SECONDS} s after it started")


def can_retry(message: Message) -> bool:
    """A failed reply can be retried, and so can an overdue one."""
    if message.role != Message.Role.ASSISTANT or message.superseded_at is not None:
        return False
    return message.status == Message.Status.FAILED or is_overdue(message)


# --------------------------------------------------------------------------- the watchdog

Requeue = Callable[[int, bool], None]  # (message id, restarted)


def sweep(requeue: Requeue) -> dict[str, int]:
    """One pass of the watchdog; how many replies it failed, queued again and took over."""
    counts = {"failed": 0, "requeued": 0, "taken_over": 0}
    for message in Message.objects.filter(_overdue(), role=Message.Role.ASSISTANT).only(
        "pk", "status", "started_at", "created_at"
    )[:500]:
        _fail_overdue(message)
        counts["failed"] += 1
    now = timezone.now()
    queued_before = now - timedelta(seconds=REQUEUE_AFTER_SECONDS)
    waiting = Message.objects.filter(role=Message.Role.ASSISTANT, status=Message.Status.PENDING).filter(
        Q(started_at__lt=queued_before) | Q(started_at__isnull=True, created_at__lt=queued_before)
    )
    for pk in list(waiting.values_list("pk", flat=True)[:500]):
        # The new queueing time goes in started_at, so the next pass waits again.
        if Message.objects.filter(pk=pk, status=Message.Status.PENDING).update(started_at=now):
            # Its task was lost (a broker restarted without persistence) or waits behind
            # a backlog: either way an operator wants to know.
            logger.warning("reply %s still pending after %d s; queued again", pk, REQUEUE_AFTER_SECONDS)
            requeue(pk, False)
            counts["requeued"] += 1
    running = dict(
        Message.objects.filter(role=Message.Role.ASSISTANT, status=Message.Status.RUNNING)
        .exclude(runner="")
        .values_list("pk", "runner")[:2000]
    )
    alive = runners_alive(set(running.values())) if running else None
    if alive is not None:
        for pk, runner in running.items():
            if runner in alive:
                continue
            # Its worker died mid-reply: back to the queue, to start over elsewhere.
            if Message.objects.filter(pk=pk, status=Message.Status.RUNNING, runner=runner).update(
                status=Message.Status.PENDING, runner="", started_at=now
            ):
                logger.warning("reply %s: its runner %s stopped proving it is alive; queued again", pk, runner)
                requeue(pk, True)
                counts["taken_over"] += 1
    return counts


_watchdog_pid: int | None = None
_watchdog_lock = threading.Lock()


def ensure_watchdog(requeue: Requeue) -> None:
    """Start this process's watchdog thread (idempotent; once per process, after a fork)."""
    global _watchdog_pid
    if not settings.REPLY_SWEEP_SECONDS:
        return
    with _watchdog_lock:
        if _watchdog_pid == os.getpid():
            return
        _watchdog_pid = os.getpid()
    heartbeat()
    threading.Thread(target=_watch, args=(requeue,), name="reply-watchdog", daemon=True).start()


def _watch(requeue: Requeue) -> None:
    next_sweep = time.monotonic() + settings.REPLY_SWEEP_SECONDS
    while True:
        time.sleep(min(settings.REPLY_HEARTBEAT_SECONDS, settings.REPLY_SWEEP_SECONDS))
        heartbeat()
        if time.monotonic() < next_sweep:
            continue
        next_sweep = time.monotonic() + settings.REPLY_SWEEP_SECONDS
        try:
            counts = sweep(requeue)
            if any(counts.values()):
                logger.info("reply watchdog: %s", counts)
        except Exception:
            logger.exception("reply watchdog pass failed")
        finally:
            release_connections()  # back to the pool until the next pass
