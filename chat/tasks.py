"""Celery tasks: thin wrappers that load rows and call the answering code.

The worker runs on Celery's threads pool (the Procfile's ``worker`` line): a reply waits
on the model for seconds, not on the CPU, so one process holds hundreds at once. That pool
enforces no time limit: the reply enforces its own deadline (``chat.replies``).
"""

from __future__ import annotations

import contextvars
import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from celery.signals import worker_ready
from django.conf import settings
from django.db import connections
from django.utils import translation

from . import replies
from .answering import answer
from .erasure import apply_retention as delete_expired
from .failures import Failure
from .language import django_language
from .models import Message
from .reply_progress import publish_final
from lifeassistant.db import release_connections
from lifeassistant.llm import LLMError
from lifeassistant.observability import logs, metrics

logger = logging.getLogger(__name__)


# Late acknowledgement, and a task whose worker process dies is rejected back to the
# queue at once (settings: CELERY_TASK_ACKS_LATE, CELERY_TASK_REJECT_ON_WORKER_LOST).
@shared_task(bind=True, name="chat.generate_reply", acks_late=True, reject_on_worker_lost=True)
def generate_reply(self: Any, message_id: int, restarted: bool = False) -> None:
    """Answer the pending assistant message ``message_id`` (a second delivery is a no-op).

    ``restarted``: the watchdog queued it again after its worker died mid-reply."""
    replies.ensure_watchdog(requeue)
    redelivered = bool((self.request.delivery_info or {}).get("redelivered"))
    try:
        run_reply(message_id, redelivered=redelivered, restarted=restarted)
    finally:
        release_connections()  # a thread of the pool keeps no connection between replies


def run_reply(message_id: int, *, redelivered: bool = False, restarted: bool = False) -> None:
    release_connections()
    claimed = replies.claim_run(message_id, redelivered=redelivered)
    if claimed is None:
        # A reply stopped while its worker was gone still owes its log a final event.
        if publish_final(message_id) or Message.objects.filter(pk=message_id).exists():
            logger.info("message %s already claimed; skipping duplicate delivery", message_id)
        else:
            logger.info("message %s no longer exists (its conversation was deleted); nothing to answer", message_id)
        return
    message, over = claimed
    deadline = time.monotonic() + settings.REPLY_TIME_LIMIT_SECONDS
    ids = logs.bound(message_id=message.pk, conversation_id=message.conversation_id, user_id=message.conversation.owner_id)
    # Fixed texts of the reply (action summaries, notices) follow the user's message.
    with ids, translation.override(django_language(message.language)), metrics.reply_in_flight(), replies.running_here():
        try:
            answer(message, restarted=over or restarted, deadline=deadline)
        except LLMError as exc:
            replies.fail(message, Failure(exc.code), str(exc))
        except SoftTimeLimitExceeded:
            replies.fail(message, Failure.TIMEOUT, f"the task's soft time limit ({settings.CELERY_TASK_SOFT_TIME_LIMIT} s) passed")
        except Exception as exc:
            if not Message.objects.filter(pk=message_id).exists():
                # The user deleted the conversation while its reply ran (a tool's write then
                # fails on the missing row): nothing is left to save or to tell, and no crash.
                logger.info("message %s was deleted while its reply ran (%s)", message_id, type(exc).__name__)
                return
            logger.exception("tool loop for message %s crashed", message_id)
            replies.fail(message, Failure.INTERNAL, f"{type(exc).__name__}: {exc}")


def requeue(message_id: int, restarted: bool) -> None:
    """The watchdog's way to queue a reply again (``chat.replies.sweep``)."""
    queue_reply(message_id, restarted=restarted)


@worker_ready.connect
def start_the_watchdog(**_: Any) -> None:
    """A worker sweeps from its start: replies its predecessor left running, tasks a
    restarted broker lost (``chat.replies``)."""
    replies.ensure_watchdog(requeue)


def load_broker_transport() -> None:
    """Import the broker's transport and build the result backend, without connecting: a
    process's warm-up step (a queued reply reads the backend; building it scans the
    installed packages' entry points, ~15 ms)."""
    if generate_reply.app.conf.task_always_eager:
        return
    with generate_reply.app.connection_for_write() as broker:
        broker.transport  # noqa: B018 - the property imports and builds the transport
    generate_reply.app.backend  # noqa: B018 - shared by every thread (CELERY_RESULT_BACKEND_THREAD_SAFE)


_embedded_pool: ThreadPoolExecutor | None = None
_embedded_pool_lock = threading.Lock()


def queue_reply(message_id: int, *, restarted: bool = False) -> None:
    """Hand the reply to whatever runs replies, without waiting for it.

    With a broker, a Celery worker. On the embedded defaults Celery's eager mode would
    run the task on the request thread, so the task's function runs in a thread pool of
    this process instead (``EMBEDDED_REPLY_THREADS``, as many as the worker holds; 0 keeps
    it inline).
    """
    if not generate_reply.app.conf.task_always_eager or settings.EMBEDDED_REPLY_THREADS == 0:
        generate_reply.delay(message_id, **({"restarted": True} if restarted else {}))
        return
    replies.ensure_watchdog(requeue)
    # In a copy of this context: the reply's logs keep the request's id, its spans the trace.
    _pool().submit(contextvars.copy_context().run, _run_embedded, message_id, restarted)


def _pool() -> ThreadPoolExecutor:
    global _embedded_pool
    with _embedded_pool_lock:
        if _embedded_pool is None:
            _embedded_pool = ThreadPoolExecutor(settings.EMBEDDED_REPLY_THREADS, thread_name_prefix="reply")
        return _embedded_pool


def _run_embedded(message_id: int, restarted: bool) -> None:
    try:
        run_reply(message_id, restarted=restarted)
    except Exception:  # the task handles its own failures; this is the last resort
        logger.exception("embedded reply %s crashed", message_id)
    finally:
        connections.close_all()  # this thread's connections are its own


# Hours of deletions, on a large deployment's first run: not the reply tasks' limits.
@shared_task(name="chat.apply_retention", soft_time_limit=3 * 60 * 60, time_limit=3 * 60 * 60 + 60)
def apply_retention() -> int:
    """Delete the conversations idle past their owner's retention (daily, by Celery beat)."""
    deleted = delete_expired()
    logger.info("retention deleted %d conversations", deleted)
    return deleted
