"""The message service: one user message, from the API to a dispatched reply.

Read top to bottom, ``submit_message`` is the spine of the product (see README).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone

from documents.services import (
    analyze_message,
    attach_documents,
    document_tools,
    documents_section,
    resolve_reference,
)
from lifeassistant.models import Profile
from skills.router import semantic_router
from skills.services import current_catalog, plan_skills
from skills.skills_context import skills_prompt

from .actions import apply_confirmation
from .commands import plan_commands
from .context import context_tools, prompt_section_for
from .models import Conversation, IdempotencyRecord, Message
from .preprocessor import execute as preprocess


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
    preprocessed = preprocess(
        content, resolve_reference=lambda name: resolve_reference(user=user, conversation=conversation, name=name)
    )
    commands = plan_commands(
        preprocessed, skills=catalog.skills, preferences=profile.preferences, is_staff=user.is_staff
    )
    analysis = analyze_message(commands.model_text or content, previous_language=profile.language)
    with transaction.atomic():
        # Locking the conversation serialises concurrent messages of one conversation,
        # so the skill-inertia state is read and written atomically.
        locked = Conversation.objects.select_for_update().get(pk=conversation.pk)
        previous_skills = list(locked.active_skills or [])
        plan = plan_skills(
            conversation=locked,
            text=analysis.intent,
            preferences=profile.preferences,
            explicit=commands.explicit_skill,
            explicit_args=commands.skill_args,
            explicit_raw_arguments=commands.skill_raw_arguments,
            extra_tools=(*document_tools(locked, adding=len(analysis.items)), *context_tools(locked)),
            router=semantic_router() if commands.reply is None else None,
        )
        user_message = Message.objects.create(
            conversation=locked,
            role=Message.Role.USER,
            status=Message.Status.DONE,
            content=content,
            intent=analysis.intent if analysis.intent != content else "",
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
                analysis.intent,
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

