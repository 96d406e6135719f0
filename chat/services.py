"""The message service: one user message, from the API to a dispatched reply.

Read top to bottom, ``submit_message`` is the spine of the product (see README):
validate → plan skills → persist both messages in one transaction → dispatch the
tool loop to Celery once the transaction has committed.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from collections.abc import Callable
from typing import Any

from django.db import IntegrityError, transaction

from lifeassistant.models import Profile
from skills.services import plan_skills

from .models import Conversation, IdempotencyRecord, Message


@dataclass(frozen=True)
class Submission:
    user_message: Message
    assistant_message: Message | None


class IdempotencyConflict(Exception):
    """The Idempotency-Key was already used with a different request."""


def submit_message(*, user: Any, conversation: Conversation, content: str) -> Submission:
    """Store the user's message and a pending reply, and queue the reply's tool loop."""
    profile = Profile.for_user(user)
    with transaction.atomic():
        # Locking the conversation serialises concurrent messages of one conversation,
        # so the skill-inertia state is read and written atomically.
        locked = Conversation.objects.select_for_update().get(pk=conversation.pk)
        plan = plan_skills(conversation=locked, text=content, preferences=profile.preferences)
        user_message = Message.objects.create(
            conversation=locked, role=Message.Role.USER, status=Message.Status.DONE, content=content
        )
        assistant_message = Message.objects.create(
            conversation=locked,
            role=Message.Role.ASSISTANT,
            status=Message.Status.PENDING,
            reply_to=user_message,
            **plan.ledger_fields(),
        )
        plan.apply_state(locked)
        if not locked.title:
            locked.title = _title_from(content)
        locked.save()
        dispatch_reply(assistant_message)
    return Submission(user_message, assistant_message)


def dispatch_reply(assistant_message: Message) -> None:
    """Queue the tool loop for ``assistant_message`` after the current transaction commits."""
    from .tasks import run_tool_loop  # the task module imports this one

    message_id = assistant_message.pk
    transaction.on_commit(lambda: run_tool_loop.delay(message_id))


def retry_reply(assistant_message: Message) -> Message:
    """Put a failed reply back in the queue. Only failed replies can be retried."""
    with transaction.atomic():
        updated = Message.objects.filter(
            pk=assistant_message.pk, role=Message.Role.ASSISTANT, status=Message.Status.FAILED
        ).update(status=Message.Status.PENDING, error="", started_at=None, finished_at=None, content="")
        if updated:
            dispatch_reply(assistant_message)
    assistant_message.refresh_from_db()
    return assistant_message


def request_fingerprint(*, conversation_id: int, body: Any) -> str:
    """A stable hash of what a create request asked for, to tell a retry from a reuse."""
    canonical = json.dumps({"conversation": conversation_id, "body": body}, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def replay_or_none(*, user: Any, key: str, fingerprint: str) -> dict[str, Any] | None:
    """The stored first response for this key, None when the key is new.

    Raises ``IdempotencyConflict`` when the key was used for a different request.
    """
    record = IdempotencyRecord.objects.filter(owner=user, key=key).first()
    if record is None:
        return None
    if record.fingerprint != fingerprint:
        raise IdempotencyConflict("This Idempotency-Key was already used with a different request.")
    return dict(record.response_body)


def submit_message_once(
    *,
    user: Any,
    conversation: Conversation,
    content: str,
    key: str,
    fingerprint: str,
    render: Callable[[Submission], dict[str, Any]],
) -> tuple[dict[str, Any], bool]:
    """``submit_message`` guarded by an Idempotency-Key: (response body, created).

    The record is written in the same transaction as the messages, so two concurrent
    requests with one key write one pair of messages: the loser rolls back and replays.
    """
    stored = replay_or_none(user=user, key=key, fingerprint=fingerprint)
    if stored is not None:
        return stored, False
    try:
        with transaction.atomic():
            body = render(submit_message(user=user, conversation=conversation, content=content))
            IdempotencyRecord.objects.create(owner=user, key=key, fingerprint=fingerprint, response_body=body)
    except IntegrityError:
        stored = replay_or_none(user=user, key=key, fingerprint=fingerprint)
        if stored is None:
            raise
        return stored, False
    return body, True


def _title_from(content: str) -> str:
    words = " ".join(content.split())
    return words if len(words) <= 60 else words[:59].rstrip() + "…"

