"""Answering one pending assistant message: history → streamed tool loop → stored reply."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from typing import Any

from django.conf import settings

from documents.listing import AVAILABLE_DOCUMENTS_HEADING
from documents.services import READ_DOCUMENT_TOOL, documents_section
from lifeassistant import llm, tokens
from lifeassistant.db import release_connections
from lifeassistant.event_log import event_log
from lifeassistant.text import join_sections
from .light_context_store import remember_round
from .limits import bounded
from .actions import is_proposal, propose, replayed_proposal
from .models import Conversation, Message, PendingAction, ToolCall
from .titles import model_title, title_prompt
from .confirmation import answer_before, confirmation_intent
from .history import fit_history, group_turns
from .reply_progress import (
    ReplyProgress, batch_interval, clear_events, gather_interval, log_has_ended, publish_end, publish_status,
)
from . import replies
from .tool_loop import ToolResult, run_tool_loop
from lifeassistant.tools import REGISTRY, ToolContext
from lifeassistant.models import Profile
from lifeassistant.tools.registry import ToolOutcome, parse_arguments
from lifeassistant.observability import metrics, tracing

logger = logging.getLogger(__name__)

# The title call is a nicety run while the user waits for the final event: a short
# budget, no retries; the first message's title stays when it fails.
TITLE_TIMEOUT_SECONDS = 5.0
TITLE_MAX_TOKENS = 24
# Only the whole title is wanted: its stream is read in gathers (a wake-up per chunk cost
# a burst's worker as much CPU as a fifth of its replies' own streaming).
TITLE_GATHER_SECONDS = 0.25


def answer(message: Message, *, restarted: bool = False, deadline: float | None = None) -> None:
    """Stream the tool loop for a claimed reply, then store the answer and its usage.

    Progress (text, tool events) goes to the reply's event log as it happens; a reply
    the user stopped keeps the text its readers were sent and the usage spent
    (``chat.reply_progress``). ``deadline`` (``time.monotonic``) bounds the run: the
    stream is cut there and the reply fails with ``timeout``. No database connection is
    held while the model answers: it goes back to the pool before each model call.
    """
    deadline = deadline if deadline is not None else time.monotonic() + settings.REPLY_TIME_LIMIT_SECONDS
    conversation = message.conversation
    context = ToolContext(user=conversation.owner, conversation=conversation, message=message)
    catalog = REGISTRY.catalog()
    tools = [catalog[name] for name in message.tools_offered if name in catalog]
    note = llm.PipelineNote(
        skills=tuple(message.active_skills), reason=message.skill_reason, today=Profile.of(conversation.owner).today().isoformat()
    )
    progress = new_progress(message.pk)
    if not restarted or log_has_ended(message.pk):
        # A log left under this id (a database reset, Redis kept), or one that ended while the
        # row still says running, is not this run's: it would refuse the run's text.
        clear_events(message.pk)
    # After text, "running" again means the run started over (its worker died): clients clear the text.
    publish_status(message.pk, Message.Status.RUNNING, **({"restarted": True} if restarted else {}))

    def complete(messages: list[dict[str, Any]], tools_enabled: bool) -> llm.CompletionStream:
        release_connections()  # the model takes seconds: nothing of the database waits with it
        return tracing.model_round(lambda: llm.stream_completion(
            messages, tools=tools if tools_enabled else None, temperature=message.temperature, note=note, deadline=deadline,
            gather_seconds=gather_interval(progress.batch_seconds),  # the text waits for its batch anyway
        ), model=settings.LLM_MODEL, messages=messages, temperature=message.temperature)

    def execute(iteration: int, call_id: str, name: str, arguments: str) -> ToolResult:
        return tracing.tool_call(name, call_id, arguments, lambda: execute_tool_call(
            message, context, iteration=iteration, call_id=call_id, name=name, arguments=arguments, rerun=restarted
        ))

    try:
        result = run_tool_loop(
            build_llm_messages(message),
            complete=complete,
            execute=execute,
            offered=[tool["function"]["name"] for tool in tools],
            max_iterations=settings.TOOL_LOOP_MAX_ITERATIONS,
            time_budget_seconds=min(settings.TOOL_LOOP_TIME_BUDGET_SECONDS, max(0.0, deadline - time.monotonic())),
            progress=progress,
        )
    except BaseException:
        progress.flush()
        replies.save_text(message.pk, progress.content)  # the text so far stays with the reply that failed
        raise
    progress.flush()  # the last batch; refused when the user stopped the reply meanwhile
    stopped = result.cancelled or progress.cancelled()
    finished = replies.finish(
        message,
        content=progress.content if stopped else result.content,  # a stopped reply: what its readers saw
        model=result.model,
        prompt_tokens=result.prompt_tokens,
        completion_tokens=result.completion_tokens,
        cost=result.cost,
        stopped=stopped,
    )
    if finished:
        # Before the final event: a follow-up sent the moment the reply ends finds the round.
        # From what the claim loaded: the round's tool calls are read there (a confirmed
        # action's call is the reply's too), its pending actions only when it has calls.
        remember_round(message)
    publish_end(message.pk, Message.Status.DONE if finished else Message.Status.CANCELLED)
    if finished:
        # After it: the title is a second model call (up to TITLE_TIMEOUT_SECONDS) that the
        # person waiting for the reply's end has no reason to wait for.
        name_conversation(message, result.content)


def new_progress(
    message_id: int, *, kind: type[ReplyProgress] = ReplyProgress, batch_seconds: float | None = None
) -> ReplyProgress:
    """The reply's progress: its event log, and checkpoints that keep no connection."""
    return kind(
        message_id,
        event_log(),
        batch_seconds=current_batch_seconds() if batch_seconds is None else batch_seconds,
        pace=current_batch_seconds if batch_seconds is None else None,
        checkpoint_seconds=settings.REPLY_CHECKPOINT_SECONDS,
        save=lambda text: released(replies.save_text, message_id, text),
        still_running=lambda: released(replies.is_running, message_id),
    )


def current_batch_seconds() -> float:
    """The interval between a reply's batches for the replies in flight here now."""
    return batch_interval(settings.EVENTS_BATCH_SECONDS, replies.in_flight_here())


def released(query: Callable[..., Any], *args: Any) -> Any:
    """Run a short query while the model streams, without keeping the connection."""
    try:
        return query(*args)
    finally:
        release_connections()


def name_conversation(message: Message, reply: str) -> None:
    """Let the model title a conversation after its first reply, when one is configured.

    Only a title made from the first message (``title_source`` "message") is replaced:
    one the user set stays, and the update re-checks that, so a rename meanwhile wins.
    Offline, the first message's title stays. A failure is logged, never the reply's.
    """
    conversation = message.conversation
    user_message = message.reply_to
    if conversation.title_source != Conversation.TitleSource.MESSAGE or user_message is None or llm.is_offline():
        return
    earlier = Message.objects.filter(
        conversation=conversation, role=Message.Role.USER, superseded_at__isnull=True, created_at__lt=user_message.created_at
    )
    if earlier.exists():
        return  # not the first exchange
    release_connections()  # the model takes a while: the pool's connection is not kept waiting
    try:
        response = llm.completion(
            title_prompt(user_text(user_message), reply),
            temperature=0.2,
            timeout=TITLE_TIMEOUT_SECONDS,
            max_retries=0,
            max_tokens=TITLE_MAX_TOKENS,
            gather_seconds=TITLE_GATHER_SECONDS,
        )
        title = model_title(response.text)
    except Exception:
        logger.warning("title for conversation %s not generated", conversation.pk, exc_info=True)
        return
    if title:
        Conversation.objects.filter(pk=conversation.pk, title_source=Conversation.TitleSource.MESSAGE).update(
            title=title, title_source=Conversation.TitleSource.MODEL
        )


def execute_tool_call(
    message: Message, context: ToolContext, *, iteration: int, call_id: str, name: str, arguments: str, rerun: bool = True
) -> ToolResult:
    """Run one tool call once: a run started over (``rerun``) gets a stored result back.

    A writing tool does not run: it becomes a pending action the user must confirm,
    and the model is told so (``chat.actions``).
    """
    existing = ToolCall.objects.filter(message=message, call_id=call_id).first() if rerun else None
    if existing is not None:
        return ToolResult(_stored_content(existing), _status_of(existing))
    registered = REGISTRY.get(name)
    if registered is not None and registered.needs_confirmation:
        outcome = propose(message=message, context=context, call_id=call_id, name=name, arguments=arguments)
    else:
        outcome = REGISTRY.execute(name, arguments, context)
    metrics.record_tool_call(metrics.tool_label(name, REGISTRY.names()), metrics.primary_skill(message.active_skills), _status_of(outcome))
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
    return ToolResult(outcome.as_tool_content(), _status_of(outcome))


def _status_of(call: ToolCall | ToolOutcome) -> str:
    """For progress events: "proposed" for a write awaiting confirmation, else ok or error."""
    if not call.ok:
        return "error"
    return "proposed" if is_proposal(call.result) else "ok"


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
    """System prompt, then as much recent history as the model's window allows, then the
    user's message (and what it confirmed).

    The history's budget is the model's input window minus the reserved output, the
    tool schemas, the system prompt and this message, less a safety margin
    (``history_budget``); whole turns are replayed newest first (``chat.history``).
    Token counts are estimates (``tokens.count_tokens``): the margin covers their error.
    """
    user_message = message.reply_to
    history = _recent_history(message)
    calls = _calls_by_message(history)
    # Actions the user confirmed with this very message ran before the model's first step
    # (only a yes or a no records any: other messages need no query).
    answered = user_message is not None and confirmation_intent(user_message.content) is not None
    confirmed = list(message.tool_calls.filter(iteration=0).order_by("id")) if answered else []
    actions = _proposed_actions([call for group in calls.values() for call in group] + confirmed)
    system: list[dict[str, Any]] = [{"role": "system", "content": model_system_prompt(message)}]
    current: list[dict[str, Any]] = []
    if user_message is not None:
        answer_part, rest = _confirmation_parts(user_message, bool(confirmed))
        current.append({"role": "user", "content": answer_part})
        current.extend(_tool_turns(confirmed, actions))
        if rest:  # "sim, e anota também 30 de uber": the new request comes after the confirmed actions
            current.append({"role": "user", "content": rest})
    opening, opening_shown = _opening(message, history)
    replayed = fit_history(
        group_turns([_replay(past, calls.get(past.pk, []), actions) for past in history], [past.role for past in history]),
        budget_tokens=history_budget(system + current, _offered_tools(message)),
        count=lambda turn: tokens.count_tokens(messages=turn),
        opening=opening,
        opening_shown=opening_shown,
    )
    return [*system, *replayed, *current]


def model_system_prompt(message: Message) -> str:
    """The reply's stored system prompt, then the documents its conversation held when the
    reply was created (AVAILABLE_DOCUMENTS).

    The listing is added here rather than stored: every paste changes it, and stored it
    made each paste's prompt a new row of several KB (docs/performance.md). A document deleted since
    is not listed, and could not be read anyway. A reply that was not offered
    ``read_document`` had no documents to list: no query. A prompt stored before the
    listing moved here holds its own (a regenerated old reply reuses its prompt): it is
    not listed twice. (User text in a stored prompt is JSON-quoted, so it cannot start a
    line with the heading.)
    """
    legacy = f"\n\n{AVAILABLE_DOCUMENTS_HEADING}\n" in message.system_prompt
    if READ_DOCUMENT_TOOL not in message.tools_offered or legacy:
        return message.system_prompt
    return join_sections(message.system_prompt, documents_section(message.conversation_id, until=message.created_at))


def _recent_history(message: Message) -> list[Message]:
    """The finished, live messages before ``message`` and its user message, oldest first:
    at most ``HISTORY_SCAN_MESSAGES``, whatever the conversation's length (the budget then
    decides), and only the columns a replay reads (a row's JSON ledger columns are not)."""
    excluded = [message.pk, message.reply_to_id or 0]
    history = list(
        Message.objects.filter(conversation_id=message.conversation_id, status=Message.Status.DONE, superseded_at__isnull=True)
        .exclude(pk__in=excluded)
        .filter(created_at__lte=message.created_at)
        .only("id", "role", "content", "intent", "created_at")
        .order_by("-created_at", "-id")[: settings.HISTORY_SCAN_MESSAGES]
    )
    history.reverse()
    return history


def _calls_by_message(history: list[Message]) -> dict[int, list[ToolCall]]:
    """The tool calls of the replies in ``history``, by message id, in one query.

    Not ``prefetch_related``: it builds a related manager and a queryset per message, which
    was most of the cost of replaying a long conversation.
    """
    replies = [past.pk for past in history if past.role == Message.Role.ASSISTANT]
    grouped: dict[int, list[ToolCall]] = {}
    if replies:
        for call in ToolCall.objects.filter(message_id__in=replies).order_by("id"):
            grouped.setdefault(call.message_id, []).append(call)
    return grouped


def _proposed_actions(calls: list[ToolCall]) -> dict[int, PendingAction]:
    """What became of the actions these calls proposed (confirmed, declined, expired), by id."""
    ids = [call.result["action_id"] for call in calls if is_proposal(call.result)]
    return {action.pk: action for action in PendingAction.objects.filter(pk__in=ids)} if ids else {}


def history_budget(fixed: list[dict[str, Any]], tools: list[dict[str, Any]]) -> int:
    """Tokens left for the history once the reply, the tools and ``fixed`` have their share."""
    window = llm.max_input_tokens()
    margin = int(window * settings.HISTORY_SAFETY_MARGIN)
    taken = settings.LLM_MAX_OUTPUT_TOKENS + tokens.count_tokens(messages=fixed, tools=tools or None)
    return max(window - margin - taken, 0)


def _offered_tools(message: Message) -> list[dict[str, Any]]:
    catalog = REGISTRY.catalog()
    return [catalog[name] for name in message.tools_offered if name in catalog]


def _opening(message: Message, history: list[Message]) -> tuple[str, bool]:
    """The conversation's first user message, and whether ``history`` starts with it."""
    first = _first_user_message(message, history)
    if first is None or first.pk == message.reply_to_id:
        return "", True
    shown = bool(history) and history[0].pk == first.pk
    return bounded(user_text(first), settings.HISTORY_MESSAGE_MAX_CHARS), shown


def _first_user_message(message: Message, history: list[Message]) -> Message | None:
    """The conversation's first live user message: read from ``history`` when its scan
    reached the conversation's start (fewer rows than the cap), else queried."""
    if len(history) < settings.HISTORY_SCAN_MESSAGES:
        # User messages are always done, so the scan holds every live one before this
        # reply except the one it answers, which may be older (a regenerated reply).
        candidates = [past for past in history if past.role == Message.Role.USER][:1]
        asked = message.reply_to
        if asked is not None and asked.superseded_at is None:
            candidates.append(asked)
        return min(candidates, key=lambda row: (row.created_at, row.pk), default=None)
    return (
        Message.objects.filter(conversation=message.conversation, role=Message.Role.USER, superseded_at__isnull=True)
        .order_by("created_at", "id")
        .only("content", "intent")
        .first()
    )


def _confirmation_parts(user_message: Message, confirmed: bool) -> tuple[str, str]:
    """The user's text, split in the answer and the request after it when it confirmed
    actions and went on ("sim, e anota também 30 de uber" → "sim", "anota também 30 de uber")."""
    text = user_text(user_message)
    reading = confirmation_intent(user_message.content) if confirmed else None
    if reading is None or not reading.rest or not user_message.content.endswith(reading.rest):
        return text, ""
    head = user_message.content[: -len(reading.rest)]
    return answer_before(head), reading.rest


def user_text(user_message: Message) -> str:
    """What the model sees of a user message: the clean intent, else the raw text."""
    return user_message.intent.strip() or user_message.content


def _replay(past: Message, calls: list[ToolCall], actions: dict[int, PendingAction]) -> list[dict[str, Any]]:
    # Each replayed message is capped (HISTORY_MESSAGE_MAX_CHARS): one huge old message
    # must not fill the next request.
    cap = settings.HISTORY_MESSAGE_MAX_CHARS
    if past.role == Message.Role.USER:
        return [{"role": "user", "content": bounded(user_text(past), cap)}]
    turns = _tool_turns(calls, actions, cap=cap)
    turns.append({"role": "assistant", "content": bounded(past.content, cap)})
    return turns


def _capped(text: str, cap: int | None) -> str:
    return text if cap is None else bounded(text, cap)


def _tool_turns(
    calls: list[ToolCall], actions: dict[int, PendingAction], *, cap: int | None = None
) -> list[dict[str, Any]]:
    """Stored calls as providers expect them: per step, the assistant's calls, then each result
    (each result cut to ``cap`` characters when given)."""
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
        turns.extend(
            {"role": "tool", "tool_call_id": c.call_id, "content": _capped(_stored_content(c, actions), cap)}
            for c in batch
        )
    return turns

