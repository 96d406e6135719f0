"""Pending actions: writing tool calls wait for the user's confirmation, then run exactly once.

The model never writes on its own (docs/specification.md, skills architecture: offer to record, never record without
confirmation). When it calls a writing tool, ``propose`` stores a ``PendingAction`` and
tells the model to ask. The user then confirms or declines by message ("sim, pode
registrar", "no, don't" — ``apply_confirmation``, classified by ``chat.confirmation``) or
through the API — ``accept`` / ``reject``.

Exactly once: running an action locks its conversation, then its row, and runs it only
if it is still pending; the outcome is written in one UPDATE. Every other request (a
double click, a redelivered task, a second "sim") waits for those locks, finds the
action decided, and runs nothing. Every writer takes the locks in that one order
(conversation, then action), so an accept racing a "sim" cannot deadlock.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any, TypeGuard

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone
from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from .confirmation import Intent, confirmation_intent
from .models import Conversation, Message, PendingAction, ToolCall, lock_conversation
from lifeassistant.tools import REGISTRY, ToolContext, ToolError, ToolOutcome
from lifeassistant.observability.metrics import primary_skill, record_tool_call, tool_label
from lifeassistant.consents import consents_of_user
from lifeassistant.privacy import withheld_tools

if TYPE_CHECKING:
    from django.contrib.auth.models import User

logger = logging.getLogger(__name__)

EXPIRED_MESSAGE = "This action expired"


# What accepting or rejecting an action that is no longer pending answers, per status.
ALREADY_DECIDED: dict[str, Promise] = {
    PendingAction.Status.ACCEPTED: gettext_lazy("This action was already accepted."),
    PendingAction.Status.REJECTED: gettext_lazy("This action was already rejected."),
    PendingAction.Status.EXECUTED: gettext_lazy("This action was already executed."),
    PendingAction.Status.FAILED: gettext_lazy("This action was already failed."),
}


class ActionConflict(Exception):
    """The action cannot be accepted or rejected in its current state (message is user-facing)."""


# ---------------------------------------------------------------------------- proposing


def propose(*, message: Message, context: ToolContext, call_id: str, name: str, arguments: str) -> ToolOutcome:
    """Turn a writing tool call into a pending action; nothing is written to the user's data.

    Arguments that could not work (schema, unknown id, bad amount) fail at once, so the
    model can fix them before asking the user.
    """
    started = time.perf_counter()
    try:
        clean, summary = REGISTRY.describe(name, arguments, context)
    except ToolError as exc:
        return ToolOutcome(False, None, str(exc), _ms(started))
    except Exception:
        logger.exception("summary of %s crashed", name)
        return ToolOutcome(False, None, f"The tool {name} failed unexpectedly.", _ms(started))
    with transaction.atomic():
        # Lock the reply so two runs of it cannot both miss each other's proposal.
        list(Message.objects.select_for_update(no_key=True).filter(pk=message.pk).values_list("pk", flat=True))
        action = _same_proposal(message, name, clean)
        if action is None:
            try:
                with transaction.atomic():  # a savepoint: the lookup below still runs after a conflict
                    action = PendingAction.objects.create(
                        message=message,
                        tool_call_id=call_id,
                        conversation_id=message.conversation_id,
                        tool=name,
                        arguments=clean,
                        summary=summary[:500],
                        expires_at=timezone.now() + timedelta(seconds=settings.PENDING_ACTION_TTL_SECONDS),
                    )
            except IntegrityError:  # this call id already proposed something else (a run started over)
                action = PendingAction.objects.get(message=message, tool_call_id=call_id)
    # A reused action may have been decided meanwhile; the model is told what became of it.
    return ToolOutcome(True, replayed_proposal(proposal_result(action), action), "", _ms(started))


def _same_proposal(message: Message, name: str, arguments: dict[str, Any]) -> PendingAction | None:
    """The action this reply already proposed for the same write, whatever its call id.

    A reply run again (a task reclaimed after a worker crash) gets new call ids from the
    provider; without this, one "sim" would run both copies of the same write.
    """
    # Waiting, running or done stands for the write; withdrawn, expired or failed may be proposed afresh.
    standing = Q(status=PendingAction.Status.PENDING, expires_at__gt=timezone.now()) | Q(
        status__in=[PendingAction.Status.ACCEPTED, PendingAction.Status.EXECUTED]
    )
    for action in PendingAction.objects.filter(standing, message=message, tool=name).order_by("id"):
        if action.arguments == arguments:
            return action
    return None


def proposal_result(action: PendingAction) -> dict[str, Any]:
    """What the model gets back for a writing call: the action is waiting for the user."""
    return {
        "status": "pending_confirmation",
        "action_id": action.pk,
        "summary": action.summary,
        "expires_at": action.expires_at.isoformat(),
        "instruction": "Nothing was saved yet. Tell the user exactly what will be saved and ask them to "
        "confirm; it runs only when they agree (for example by answering 'sim').",
    }


def is_proposal(result: Any) -> TypeGuard[dict[str, Any]]:
    return isinstance(result, dict) and result.get("status") == "pending_confirmation" and "action_id" in result


def replayed_proposal(stored: dict[str, Any], action: PendingAction | None) -> dict[str, Any]:
    """A proposal as the model sees it later: with what became of the action since."""
    if action is None or effective_status(action) == PendingAction.Status.PENDING:
        return stored
    status = effective_status(action)
    replay: dict[str, Any] = {"status": status, "action_id": action.pk, "summary": action.summary}
    if status == PendingAction.Status.EXECUTED:
        replay["result"] = action.result
        replay["note"] = "The user confirmed this action afterwards and it ran."
    elif status == PendingAction.Status.FAILED:
        replay["error"] = action.error
        replay["note"] = "The user confirmed this action afterwards, but it failed."
    elif status == PendingAction.Status.REJECTED:
        replay["note"] = "The user declined this action; nothing was saved."
    elif status == PendingAction.Status.EXPIRED:
        replay["note"] = "This action expired before the user confirmed it; nothing was saved."
    return replay


# ----------------------------------------------------------------------- user's answer


@dataclass
class ConfirmationResult:
    """What a yes/no message did to the actions the last reply proposed."""

    intent: Intent
    rest: str = ""  # the new request that followed the answer ("sim, e anota também 30 de uber")
    executed: list[PendingAction] = field(default_factory=list)
    failed: list[PendingAction] = field(default_factory=list)
    rejected: list[PendingAction] = field(default_factory=list)
    expired: list[PendingAction] = field(default_factory=list)

    @property
    def actions(self) -> list[PendingAction]:
        return [*self.executed, *self.failed, *self.rejected, *self.expired]


def _latest_reply_with_waiting_actions(replies: QuerySet[Message]) -> int | None:
    """The id of the newest finished reply among ``replies`` with an action still waiting."""
    return (
        PendingAction.objects.filter(
            message__in=replies.filter(status=Message.Status.DONE),
            status=PendingAction.Status.PENDING,
            expires_at__gt=timezone.now(),
        )
        .order_by("-message__created_at", "-message_id")
        .values_list("message_id", flat=True)
        .first()
    )


def apply_confirmation(
    *, conversation: Conversation, text: str, user: User, reply: Message | None = None
) -> ConfirmationResult | None:
    """Accept or reject the actions of the latest reply that has any waiting, when ``text``
    is a yes or a no.

    A question in between ("quanto gastei este mês?") does not strand a proposal: the yes
    goes to the newest reply whose actions still wait and have not expired. With none
    waiting, the latest reply's own (expired) proposals are answered, so the user hears
    that they expired; with nothing at all, a yes is just a message. When ``reply`` (the
    new assistant message) is given, each outcome is stored on it as a tool call of
    iteration 0, so the model sees what happened before it answers. Returns None when
    ``text`` is not a confirmation or nothing was waiting.
    """
    confirmation = confirmation_intent(text)
    if confirmation is None:
        return None
    intent = confirmation.intent
    replies = Message.objects.filter(conversation=conversation, role=Message.Role.ASSISTANT, superseded_at__isnull=True)
    if reply is not None:
        replies = replies.exclude(pk=reply.pk)
    previous = replies.order_by("-created_at", "-id").first()
    if previous is None or previous.status != Message.Status.DONE:
        return None  # the user cannot have seen proposals of a reply still being written
    target = _latest_reply_with_waiting_actions(replies) or previous.pk
    with transaction.atomic():
        waiting = list(
            PendingAction.objects.select_for_update()
            .filter(message_id=target, status=PendingAction.Status.PENDING)
            .order_by("id")
        )
        if not waiting:
            return None
        result = ConfirmationResult(intent, confirmation.rest)
        for action in waiting:
            if action.expires_at <= timezone.now():
                _expire(action)
                result.expired.append(action)
                if reply is not None and intent == "accept":
                    _record(reply, action, ToolOutcome(False, None, f"{EXPIRED_MESSAGE}; nothing was saved. Propose it again if the user still wants it.", 0.0))
            elif intent == "reject":
                if _decide(action, PendingAction.Status.REJECTED):
                    result.rejected.append(action)
            else:
                ran = run(action, reply=reply)
                if ran is not None:
                    (result.executed if ran.status == PendingAction.Status.EXECUTED else result.failed).append(ran)
    return result


# -------------------------------------------------------------------------------- API


def effective_status(action: PendingAction) -> str:
    """The status, with a pending action past its deadline reported as expired."""
    if action.status == PendingAction.Status.PENDING and action.expires_at <= timezone.now():
        return PendingAction.Status.EXPIRED
    return action.status


def accept(action: PendingAction) -> PendingAction:
    """Run a pending action once, as its conversation's owner; ``ActionConflict`` otherwise."""
    _check_pending(action)
    ran = run(action, reply=None)
    if ran is None:
        action.refresh_from_db()
        _check_pending(action)  # raises: someone else decided it first
        raise ActionConflict(_("This action was already decided."))
    return ran


def reject(action: PendingAction) -> PendingAction:
    """Decline a pending action: it will never run."""
    _check_pending(action)
    if not _decide(action, PendingAction.Status.REJECTED):
        action.refresh_from_db()
        _check_pending(action)
        raise ActionConflict(_("This action was already decided."))
    return action


def expire_stale(conversation: Conversation) -> int:
    """Mark the conversation's pending actions past their deadline as expired."""
    stale = PendingAction.objects.filter(
        conversation=conversation, status=PendingAction.Status.PENDING, expires_at__lte=timezone.now()
    )
    if not stale.exists():  # the common case takes no lock
        return 0
    with transaction.atomic():
        lock_conversation(conversation.pk)
        count_decided(list(stale.only("tool", "message_id")), "expired")
        return stale.update(status=PendingAction.Status.EXPIRED, decided_at=timezone.now())


def withdraw_for_failed_reply(message: Message) -> int:
    """A reply that failed cannot be answered: its proposals expire."""
    return _withdraw(message, "The reply failed before it was confirmed.")


def withdraw_for_stopped_reply(message: Message) -> int:
    """A reply the user stopped proposes nothing: its proposals expire, never run."""
    return _withdraw(message, "The user stopped the reply that proposed it.")


def withdraw_for_superseded_reply(message: Message) -> int:
    """A regenerated reply, or the reply to an edited message, is out of the thread: its
    proposals expire, so a "sim" cannot run an offer the user no longer sees."""
    return _withdraw(message, "The reply that proposed it was replaced.")


def _withdraw(message: Message, reason: str) -> int:
    withdrawn = PendingAction.objects.filter(message=message, status=PendingAction.Status.PENDING)
    tools = list(withdrawn.values_list("tool", flat=True))  # for the metrics; most replies propose nothing
    for tool in tools:
        record_tool_call(tool_label(tool, REGISTRY.names()), primary_skill(message.active_skills), "expired")
    return withdrawn.update(status=PendingAction.Status.EXPIRED, decided_at=timezone.now(), error=reason) if tools else 0


def count_decided(actions: list[PendingAction], outcome: str) -> None:
    """Proposals the user confirmed, rejected or let expire, in ``lifeassistant_tool_calls_total``
    under the skill of the reply that proposed them (one small read per decision)."""
    if not actions:
        return
    skills = dict(
        Message.objects.filter(pk__in={action.message_id for action in actions}).values_list("id", "active_skills")
    )
    for action in actions:
        record_tool_call(tool_label(action.tool, REGISTRY.names()), primary_skill(skills.get(action.message_id) or []), outcome)


# ---------------------------------------------------------------------------- running


def run(action: PendingAction, *, reply: Message | None) -> PendingAction | None:
    """Execute ``action`` once; None when it is no longer pending (another request decided it).

    Locks in the global order — the conversation, then the action row — checks that it
    is still pending and unexpired, runs the tool, and writes the outcome in one UPDATE.
    Of any number of concurrent or repeated attempts, exactly one runs the tool; the
    others wait for the locks and then find it decided.
    """
    # One transaction from the check to the final status: a crash in between rolls
    # back any half-done write, so the action is pending again. A failing tool is a
    # result (its own savepoint, status failed), not a crash.
    with transaction.atomic():
        conversation = lock_conversation(action.conversation_id)
        if _locked_if_pending(action) is None:
            return None
        context = ToolContext(user=conversation.owner, conversation=conversation, message=reply or action.message)
        if action.tool in withheld_tools(consents_of_user(conversation.owner_id).given):
            # Proposed while the user consented, accepted after they revoked it: not stored.
            outcome = ToolOutcome(False, None, NO_CONSENT, 0.0)
        else:
            outcome = REGISTRY.execute(action.tool, action.arguments, context)
        now = timezone.now()
        PendingAction.objects.filter(pk=action.pk).update(
            status=PendingAction.Status.EXECUTED if outcome.ok else PendingAction.Status.FAILED,
            decided_at=now,
            result=outcome.result if outcome.ok else None,
            error=outcome.error,
            executed_at=now,
        )
        if reply is not None:
            _record(reply, action, outcome)
    count_decided([action], "confirmed")
    action.refresh_from_db()
    return action


NO_CONSENT = "Not stored: the user does not consent to storing this kind of data (they can give it in Preferences)."


def _locked_if_pending(action: PendingAction) -> PendingAction | None:
    """The action's row locked (after its conversation's), if it is still pending and unexpired."""
    return (
        PendingAction.objects.select_for_update()
        .filter(pk=action.pk, status=PendingAction.Status.PENDING, expires_at__gt=timezone.now())
        .first()
    )


def execution_call_id(action: PendingAction) -> str:
    return f"action_{action.pk}"


def _record(reply: Message, action: PendingAction, outcome: ToolOutcome) -> None:
    """Store the outcome on the new reply as a tool call made before the model's first step."""
    ToolCall.objects.get_or_create(
        message=reply,
        call_id=execution_call_id(action),
        defaults={
            "iteration": 0,
            "tool": action.tool,
            "arguments": action.arguments,
            "result": outcome.result if outcome.ok else None,
            "ok": outcome.ok,
            "error": outcome.error,
            "duration_ms": outcome.duration_ms,
        },
    )


def _decide(action: PendingAction, status: str) -> bool:
    """Decide a pending, unexpired action without running it (locks: conversation, then action)."""
    with transaction.atomic():
        lock_conversation(action.conversation_id)
        now = timezone.now()
        decided = PendingAction.objects.filter(
            pk=action.pk, status=PendingAction.Status.PENDING, expires_at__gt=now
        ).update(status=status, decided_at=now)
    if decided:
        action.status, action.decided_at = status, now
        count_decided([action], status)
    return bool(decided)


def _expire(action: PendingAction) -> None:
    with transaction.atomic():
        lock_conversation(action.conversation_id)
        expired = PendingAction.objects.filter(pk=action.pk, status=PendingAction.Status.PENDING).update(
            status=PendingAction.Status.EXPIRED, decided_at=timezone.now()
        )
    if expired:
        count_decided([action], "expired")
    action.status = PendingAction.Status.EXPIRED


def _check_pending(action: PendingAction) -> None:
    status = effective_status(action)
    if status == PendingAction.Status.EXPIRED:
        if action.status == PendingAction.Status.PENDING:
            _expire(action)
        raise ActionConflict(_("This action expired"))
    if status != PendingAction.Status.PENDING:
        raise ActionConflict(str(ALREADY_DECIDED.get(status, ALREADY_DECIDED[PendingAction.Status.EXECUTED])))


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000
