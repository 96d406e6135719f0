"""Answering one pending assistant message: history → tool loop → stored reply."""

from __future__ import annotations

import json
from datetime import timedelta
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from . import llm
from .context import remember_round
from .actions import is_proposal, propose, replayed_proposal, withdraw_for_failed_reply
from .models import Message, PendingAction, ToolCall
from .tool_loop import run_tool_loop
from .tools import REGISTRY, ToolContext
from .tools.registry import ToolOutcome, parse_arguments


def claim(message_id: int) -> Message | None:
    """Move a pending reply to running; None when another delivery already has it.

    A reply stuck in ``running`` longer than the task's hard time limit belongs to a
    worker that died, so it can be claimed again.
    """
    stale = timezone.now() - timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT)
    claimed = Message.objects.filter(
        Q(status=Message.Status.PENDING) | Q(status=Message.Status.RUNNING, started_at__lt=stale),
        pk=message_id,
        role=Message.Role.ASSISTANT,
    ).update(status=Message.Status.RUNNING, started_at=timezone.now())
    if not claimed:
        return None
    return Message.objects.select_related("conversation__owner", "reply_to").get(pk=message_id)


def fail(message: Message, error: str) -> None:
    """Mark the reply failed with a message the user can read; the user's message stays."""
    Message.objects.filter(pk=message.pk).update(
        status=Message.Status.FAILED, error=error, finished_at=timezone.now()
    )
    withdraw_for_failed_reply(message)


def answer(message: Message) -> None:
    """Run the tool loop for a claimed reply and store the answer and its usage."""
    conversation = message.conversation
    context = ToolContext(user=conversation.owner, conversation=conversation, message=message)
    catalog = REGISTRY.catalog()
    tools = [catalog[name] for name in message.tools_offered if name in catalog]
    note = llm.PipelineNote(skills=tuple(message.active_skills), reason=message.skill_reason)

    def complete(messages: list[dict[str, Any]]) -> Any:
        return llm.completion(messages, tools=tools, temperature=message.temperature, note=note)

    def execute(iteration: int, call_id: str, name: str, arguments: str) -> str:
        return execute_tool_call(message, context, iteration=iteration, call_id=call_id, name=name, arguments=arguments)

    result = run_tool_loop(
        build_llm_messages(message),
        complete=complete,
        execute=execute,
        cost_of=llm.response_cost,
        max_iterations=settings.TOOL_LOOP_MAX_ITERATIONS,
        time_budget_seconds=settings.TOOL_LOOP_TIME_BUDGET_SECONDS,
    )
    Message.objects.filter(pk=message.pk).update(
        status=Message.Status.DONE,
        content=result.content,
        model=result.model or settings.LLM_MODEL,
        prompt_tokens=result.prompt_tokens,
        completion_tokens=result.completion_tokens,
        cost=None if result.cost is None else Decimal(str(round(result.cost, 6))),
        finished_at=timezone.now(),
    )
    remember_round(message)


def execute_tool_call(
    message: Message, context: ToolContext, *, iteration: int, call_id: str, name: str, arguments: str
) -> str:
    """Run one tool call once: a redelivered task gets the stored result back.

    A writing tool does not run: it becomes a pending action the user must confirm,
    and the model is told so (``chat.actions``).
    """
    existing = ToolCall.objects.filter(message=message, call_id=call_id).first()
    if existing is not None:
        return _stored_content(existing)
    registered = REGISTRY.get(name)
    if registered is not None and registered.writes:
        outcome = propose(message=message, context=context, call_id=call_id, name=name, arguments=arguments)
    else:
        outcome = REGISTRY.execute(name, arguments, context)
    ToolCall.objects.create(
        message=message,
        call_id=call_id,
        iteration=iteration,
        tool=name[:64],  # the model may invent any name; unknown tools still get a row
        arguments=_arguments_for_storage(arguments),
        result=outcome.result if outcome.ok else None,
        ok=outcome.ok,
        error=outcome.error,
        duration_ms=outcome.duration_ms,
    )
    return outcome.as_tool_content()


def _stored_content(call: ToolCall, actions: dict[int, PendingAction] | None = None) -> str:
    result = call.result
    if actions is not None and is_proposal(result):
        result = replayed_proposal(result, actions.get(result["action_id"]))
    return ToolOutcome(call.ok, result, call.error, call.duration_ms).as_tool_content()


def _arguments_for_storage(arguments: str) -> Any:
    try:
        return parse_arguments(arguments)
    except ValueError:
        return {"_raw": arguments}


def build_llm_messages(message: Message) -> list[dict[str, Any]]:
    """System prompt, then the recent history with its tool turns, then the user's message."""
    user_message = message.reply_to
    history = list(
        Message.objects.filter(conversation=message.conversation, status=Message.Status.DONE)
        .exclude(pk__in=[message.pk, user_message.pk if user_message else 0])
        .filter(created_at__lte=message.created_at)
        .prefetch_related("tool_calls")
        .order_by("-created_at", "-id")[: settings.HISTORY_MESSAGES]
    )
    history.reverse()
    # What became of the actions proposed in the history (confirmed, declined, expired).
    actions = {
        action.pk: action
        for action in PendingAction.objects.filter(message__in=[m for m in history if m.role == Message.Role.ASSISTANT])
    }
    messages: list[dict[str, Any]] = [{"role": "system", "content": message.system_prompt}]
    for past in history:
        messages.extend(_replay(past, actions))
    if user_message is not None:
        messages.append({"role": "user", "content": user_text(user_message)})
    # Actions the user confirmed with this very message ran before the model's first step.
    confirmed = list(message.tool_calls.filter(iteration=0).order_by("id"))
    if confirmed:
        messages.extend(_tool_turns(confirmed, actions))
    return messages


def user_text(user_message: Message) -> str:
    """What the model sees of a user message: the clean intent, else the raw text."""
    return user_message.intent.strip() or user_message.content


def _replay(past: Message, actions: dict[int, PendingAction]) -> list[dict[str, Any]]:
    if past.role == Message.Role.USER:
        return [{"role": "user", "content": user_text(past)}]
    turns = _tool_turns(list(past.tool_calls.all()), actions)
    turns.append({"role": "assistant", "content": past.content})
    return turns


def _tool_turns(calls: list[ToolCall], actions: dict[int, PendingAction]) -> list[dict[str, Any]]:
    """Stored calls as providers expect them: per step, the assistant's calls, then each result."""
    turns: list[dict[str, Any]] = []
    calls = sorted(calls, key=lambda c: (c.iteration, c.id))
    for iteration in sorted({c.iteration for c in calls}):
        batch = [c for c in calls if c.iteration == iteration]
        turns.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": c.call_id,
                        "type": "function",
                        "function": {"name": c.tool, "arguments": json.dumps(c.arguments, ensure_ascii=False)},
                    }
                    for c in batch
                ],
            }
        )
        turns.extend({"role": "tool", "tool_call_id": c.call_id, "content": _stored_content(c, actions)} for c in batch)
    return turns

