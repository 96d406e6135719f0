"""The message service: one user message, from the API to a dispatched reply.

Read top to bottom, ``submit_message`` is the spine of the product (see README).
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from documents.services import (
    analyze_message,
    attach_documents,
    document_tools,
    documents_section,
    reference_blocks,
)
from lifeassistant.models import Profile
from skills.services import current_catalog, plan_skills, route_if_unmatched
from skills.skills_context import skills_prompt

from .actions import apply_confirmation, withdraw_for_failed_reply
from .commands import plan_commands
from .context import context_tools, prompt_section_for
from .models import Conversation, IdempotencyRecord, Message
from .preprocessor import execute as preprocess


logger = logging.getLogger(__name__)

# How long past the task's hard time limit a reply must wait before it counts as stuck.
STUCK_GRACE_SECONDS = 30


@dataclass(frozen=True)
class Submission:
    user_message: Message
    assistant_message: Message | None


class IdempotencyConflict(Exception):
    """The Idempotency-Key was already used with a different request."""


def submit_message(*, user: Any, conversation: Conversation, content: str) -> Submission:
    """Store the user's message and its reply, queueing the tool loop when the model must answer.

    1. preprocess  `/skill args`, `!shell`, `@document` references      (chat.preprocessor)
    2. commands    help / unknown command / shell output answer at once (chat.commands)
    3. analyze     clean intent, pasted context → documents, language   (documents.services)
    4. skills      triggers → inertia (on the locked conversation) → composition
    5. context     light context cleared, or shown when the message refers back
    6. persist     user message, documents, pending reply: one transaction
    7. dispatch    the tool loop on Celery, after commit
    """
    profile = Profile.for_user(user)
    catalog = current_catalog()
    preprocessed = preprocess(content)
    commands = plan_commands(
        preprocessed, skills=catalog.skills, preferences=profile.preferences, is_staff=user.is_staff
    )
    analysis = analyze_message(commands.model_text or content, previous_language=profile.language)
    # Referenced documents are added after the analysis, so they are not extracted again.
    referenced = reference_blocks(user=user, conversation=conversation, references=preprocessed.references)
    intent = join_sections(analysis.intent, referenced.text)
    routed = None
    if commands.reply is None:
        routed = route_if_unmatched(
            conversation=conversation, text=intent, preferences=profile.preferences, explicit=commands.explicit_skill
        )
    with transaction.atomic():
        # Locking the conversation serialises concurrent messages of one conversation,
        # so the skill-inertia state is read and written atomically.
        locked = Conversation.objects.select_for_update().get(pk=conversation.pk)
        previous_skills = list(locked.active_skills or [])
        plan = plan_skills(
            conversation=locked,
            text=intent,
            preferences=profile.preferences,
            explicit=commands.explicit_skill,
            explicit_args=commands.skill_args,
            explicit_raw_arguments=commands.skill_raw_arguments,
            extra_tools=(
                *document_tools(locked, needed=bool(analysis.items) or referenced.needs_reader),
                *context_tools(locked),
            ),
            routed=routed,
        )
        user_message = Message.objects.create(
            conversation=locked,
            role=Message.Role.USER,
            status=Message.Status.DONE,
            content=content,
            intent=intent if intent != content else "",
            language=analysis.language or "",
        )
        attach_documents(user_message, analysis.items)
        ledger = plan.ledger_fields()
        ledger["system_prompt"] = join_sections(
            ledger["system_prompt"],
            skills_prompt(catalog.skills, profile.preferences),
            documents_section(locked),
            prompt_section_for(
                locked,
                intent,
                previous_skills=previous_skills,
                new_skills=ledger["active_skills"],
                reason=plan.reason,
            ),
        )
        assistant_message = Message.objects.create(
            conversation=locked,
            role=Message.Role.ASSISTANT,
            status=Message.Status.PENDING if commands.reply is None else Message.Status.DONE,
            reply_to=user_message,
            content=commands.reply or "",
            finished_at=None if commands.reply is None else timezone.now(),
            **ledger,
        )
        if assistant_message.status == Message.Status.PENDING:
            # "sim" / "não" answers the actions the last reply proposed; the model sees the outcome.
            apply_confirmation(conversation=locked, text=content, user=user, reply=assistant_message)
        if commands.reply is None or commands.explicit_skill:
            plan.apply_state(locked)  # /help, shell output and unknown commands leave inertia alone
        if not locked.title:
            locked.title = _title_from(content)
        locked.save()
        if commands.reply is None:
            dispatch_reply(assistant_message)
    if analysis.language and analysis.language != profile.language:
        Profile.objects.filter(pk=profile.pk).update(language=analysis.language)
    return Submission(user_message, assistant_message)


def join_sections(*sections: str) -> str:
    """System-prompt sections joined by blank lines, empty ones left out."""
    return "\n\n".join(section for section in sections if section.strip())


def dispatch_reply(assistant_message: Message) -> None:
    """Queue the tool loop for ``assistant_message`` after the current transaction commits.

    A broker that refuses the task fails the reply at once, so the user sees an error
    and can retry instead of waiting on a reply nothing will ever answer.
    """
    from .answering import fail
    from .tasks import run_tool_loop  # the task module imports this one

    def send() -> None:
        try:
            run_tool_loop.delay(assistant_message.pk)
        except Exception:
            logger.exception("could not queue reply %s", assistant_message.pk)
            fail(assistant_message, "The assistant could not be reached. Please retry.")

    transaction.on_commit(send)


def can_retry(message: Message) -> bool:
    """A failed reply can be retried, and so can one stuck longer than a task may run."""
    if message.role != Message.Role.ASSISTANT:
        return False
    if message.status == Message.Status.FAILED:
        return True
    stuck_since = timezone.now() - timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT + STUCK_GRACE_SECONDS)
    waiting_since = message.started_at or message.created_at
    return message.status in (Message.Status.PENDING, Message.Status.RUNNING) and waiting_since < stuck_since


def retry_reply(assistant_message: Message) -> Message:
    """Put a failed (or stuck) reply back in the queue; see ``can_retry``."""
    with transaction.atomic():
        locked = Message.objects.select_for_update().get(pk=assistant_message.pk)
        if can_retry(locked):
            # The new run starts over: the old run's offers must not run, and its tool
            # calls go (confirmed writes, iteration 0, stay).
            withdraw_for_failed_reply(locked)
            locked.tool_calls.filter(iteration__gte=1).delete()
            Message.objects.filter(pk=locked.pk).update(
                status=Message.Status.PENDING, error="", started_at=None, finished_at=None, content=""
            )
            dispatch_reply(locked)
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

