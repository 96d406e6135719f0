"""Celery tasks: thin wrappers that load rows and call the answering code."""

from __future__ import annotations

import logging

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded

from .answering import answer, claim, fail
from .llm import LLMError

logger = logging.getLogger(__name__)


@shared_task(name="chat.run_tool_loop", acks_late=True)
def run_tool_loop(message_id: int) -> None:
    """Answer the pending assistant message ``message_id`` (a second delivery is a no-op)."""
    message = claim(message_id)
    if message is None:
        logger.info("message %s already claimed; skipping duplicate delivery", message_id)
        return
    try:
        answer(message)
    except LLMError as exc:
        fail(message, str(exc))
    except SoftTimeLimitExceeded:
        fail(message, "The assistant took too long to answer. Please retry.")
    except Exception:
        logger.exception("tool loop for message %s crashed", message_id)
        fail(message, "An internal error stopped the assistant. Please retry.")
