"""The offline model: a deterministic stand-in registered as a litellm custom provider.

Imported by ``llm.litellm_module`` on the first model call only, since it needs litellm.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from datetime import date
from typing import Any, cast

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext as _, ngettext
from litellm import CustomLLM, ModelResponse
from litellm.types.utils import GenericStreamingChunk

from .offline_requests import METRIC_TOOL, ToolRequest, read_request
from .tokens import count_tokens, estimate_text_tokens


class OfflineLLM(CustomLLM):
    """A deterministic stand-in model that says plainly it is the offline demonstration.

    For a few everyday requests (``offline_requests``) it calls a tool the pipeline
    offered, as a model would, and then answers from the tool's result: an expense is
    proposed (the confirmation card appears), the month's spending is summed up, a fact
    is remembered. Anything else gets what the pipeline decided (skills, tools offered,
    temperature), so the product can be explored, and tested, without a key or a network.
    """

    def completion(self, model: str, messages: list, *args: Any, **kwargs: Any) -> ModelResponse:
        turn, usage = self._answer(messages, kwargs)
        if isinstance(turn, ToolRequest):
            call = _tool_call(turn, len(messages))
            message: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [call]}
            return ModelResponse(
                model=model, choices=[{"index": 0, "finish_reason": "tool_calls", "message": message}], usage=usage
            )
        return ModelResponse(
            model=model,
            choices=[{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": turn}}],
            usage=usage,
        )

    def streaming(self, model: str, messages: list, *args: Any, **kwargs: Any) -> Iterator[GenericStreamingChunk]:
        """The same answer a word at a time, ``LLM_OFFLINE_TOKEN_DELAY_SECONDS`` apart, so the
        embedded defaults show a reply streaming; a tool call comes whole, in one chunk."""
        turn, usage = self._answer(messages, kwargs)
        if isinstance(turn, ToolRequest):
            yield GenericStreamingChunk(
                text="",
                tool_use=cast(Any, {**_tool_call(turn, len(messages)), "index": 0}),
                is_finished=True,
                finish_reason="tool_calls",
                usage=cast(Any, usage),
                index=0,
            )
            return
        words = re.findall(r"\S+\s*|\s+", turn)
        for number, word in enumerate(words):
            if number:
                time.sleep(settings.LLM_OFFLINE_TOKEN_DELAY_SECONDS)
            last = number == len(words) - 1
            yield GenericStreamingChunk(
                text=word,
                tool_use=None,
                is_finished=last,
                finish_reason="stop" if last else "",
                usage=cast(Any, usage) if last else None,
                index=0,
            )

    @staticmethod
    def _answer(messages: list, kwargs: dict[str, Any]) -> tuple[str | ToolRequest, dict[str, int]]:
        optional_params: dict[str, Any] = kwargs.get("optional_params") or {}
        litellm_params: dict[str, Any] = kwargs.get("litellm_params") or {}
        metadata: dict[str, Any] = litellm_params.get("metadata") or {}
        turn = offline_turn(messages, optional_params.get("tools") or [], optional_params.get("temperature"), metadata)
        prompt_tokens = count_tokens(messages=messages)
        completion_tokens = estimate_text_tokens(turn if isinstance(turn, str) else json.dumps(turn.arguments))
        usage = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        }
        return turn, usage


def _tool_call(request: ToolRequest, position: int) -> dict[str, Any]:
    """``request`` as a provider's tool call; its id is unique within the conversation's turn."""
    return {
        "id": f"call_offline_{position}",
        "type": "function",
        "function": {"name": request.name, "arguments": json.dumps(request.arguments, ensure_ascii=False)},
    }


def offline_turn(
    messages: list[dict[str, Any]], tools: list[dict[str, Any]], temperature: float | None, metadata: dict[str, Any]
) -> str | ToolRequest:
    """What the offline model does next: call a tool, answer from the tools' results, or
    answer as it always did (:func:`offline_reply`)."""
    if messages and messages[-1].get("role") == "tool":
        return _from_results(messages, metadata)
    if messages and messages[-1].get("role") == "user":
        offered = {tool.get("function", {}).get("name") for tool in tools}
        request = read_request(_text_of(messages[-1]), offered, _today(metadata))
        if request is not None:
            return request
    return offline_reply(messages, tools, temperature, metadata)


def _today(metadata: dict[str, Any]) -> date:
    """The user's date, as the pipeline passed it; the server's without one."""
    try:
        return date.fromisoformat(metadata.get("today") or "")
    except ValueError:
        return timezone.localdate()


def _text_of(message: dict[str, Any]) -> str:
    content = message.get("content") or ""
    if isinstance(content, list):  # content parts
        return " ".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return str(content)


def _from_results(messages: list[dict[str, Any]], metadata: dict[str, Any]) -> str:
    """The answer to the last round of tool calls, from what the tools returned."""
    results: list[tuple[str, Any]] = []
    for message in reversed(messages):
        if message.get("role") != "tool":
            names = {call.get("id"): call.get("function", {}).get("name") for call in message.get("tool_calls") or []}
            results = [(names.get(call_id, ""), content) for call_id, content in reversed(results)]
            break
        try:
            content = json.loads(_text_of(message))
        except ValueError:
            content = _text_of(message)
        results.append((message.get("tool_call_id") or "", content))
    lines = [_("Offline demonstration: no language model is configured, so I act on a few everyday requests only.")]
    today = _today(metadata)
    lines += [_result_text(name, content, today) for name, content in results]
    lines.append(_skills_line(metadata))
    return "\n\n".join(lines)


def _result_text(name: str, result: Any, today: date) -> str:
    if not isinstance(result, dict):
        return _("Done.")
    if "error" in result:
        return _("I could not do it: %(error)s") % {"error": result["error"]}
    status = result.get("status")
    if status == "pending_confirmation":
        return _("I can save this for you: %(summary)s. Confirm it on the card below, or answer “yes”.") % {
            "summary": result.get("summary", "")
        }
    if name == "get_finance_summary":
        return _finance_summary_text(result, today)
    # A write the user confirmed: the model reads its result after their "yes".
    if name == "create_expense" and status == "recorded":
        expense = result.get("expense") or {}
        return _("Recorded: %(amount)s (%(description)s). Spent this month: %(total)s.") % {
            "amount": (expense.get("amount") or {}).get("formatted", ""),
            "description": expense.get("description", ""),
            "total": (result.get("month_total") or {}).get("formatted", ""),
        }
    if name == METRIC_TOOL and status == "recorded":
        metric = result.get("metric") or {}
        return _("Recorded: %(value)s %(unit)s.") % {"value": metric.get("value", ""), "unit": metric.get("unit", "")}
    if name == "add_knowledge" and status in ("saved", "already_known"):
        content = (result.get("item") or {}).get("content", "")
        if status == "already_known":
            return _("I already knew: “%(content)s”.") % {"content": content}
        return _("I will remember: “%(content)s”. You can review what I remember in your preferences.") % {
            "content": content
        }
    return _("Done.")


def _finance_summary_text(result: dict[str, Any], today: date) -> str:
    count = int(result.get("expense_count") or 0)
    spent = (result.get("spent") or {}).get("formatted", "")
    month = result.get("month", "")
    if month == today.strftime("%Y-%m"):
        text = ngettext(
            "This month you spent %(spent)s, in %(count)d expense.",
            "This month you spent %(spent)s, in %(count)d expenses.",
            count,
        ) % {"spent": spent, "count": count}
    else:
        text = ngettext(
            "In %(month)s you spent %(spent)s, in %(count)d expense.",
            "In %(month)s you spent %(spent)s, in %(count)d expenses.",
            count,
        ) % {"month": month, "spent": spent, "count": count}
    categories = [
        f"{row.get('category')} {row.get('total', {}).get('formatted', '')}" for row in result.get("by_category") or []
    ][:3]
    if categories:
        text += " " + _("Largest: %(categories)s.") % {"categories": ", ".join(categories)}
    bills = result.get("bills") or {}
    if bills.get("pending_count"):
        text += " " + ngettext(
            "%(count)d bill to pay, %(total)s.", "%(count)d bills to pay, %(total)s.", int(bills["pending_count"])
        ) % {"count": int(bills["pending_count"]), "total": (bills.get("pending_total") or {}).get("formatted", "")}
    return text


def _skills_line(metadata: dict[str, Any]) -> str:
    skills = metadata.get("skills") or []
    return _("Skills: %(skills)s") % {"skills": ", ".join(skills) if skills else _("none")} + (
        f" ({metadata['reason']})" if metadata.get("reason") else ""
    )


def offline_reply(
    messages: list[dict[str, Any]], tools: list[dict[str, Any]], temperature: float | None, metadata: dict[str, Any]
) -> str:
    """The offline model's answer: a plain statement plus the pipeline's decisions."""
    last_user = next((m.get("content") or "" for m in reversed(messages) if m.get("role") == "user"), "")
    tool_names = [t.get("function", {}).get("name", "?") for t in tools]
    none = _("none")
    lines = [
        # In the reader's language, labels included; the values are the pipeline's own names.
        _("No language model is configured (LLM_MODEL is unset), so this is the offline assistant."),
        _skills_line(metadata),
        _("Tools offered: %(tools)s") % {"tools": ", ".join(tool_names) if tool_names else none},
        _("Temperature: %(temperature)s")
        % {"temperature": temperature if temperature is not None else _("provider default")},
        _("You said: %(text)s") % {"text": _shorten(str(last_user), 200)},
    ]
    return "\n".join(lines)


def _shorten(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def register_offline_provider(litellm: Any, provider: str) -> None:
    """Register the offline model with ``litellm`` (the module) as ``provider`` (idempotent)."""
    if not any(entry.get("provider") == provider for entry in litellm.custom_provider_map):
        litellm.custom_provider_map = [
            *litellm.custom_provider_map,
            {"provider": provider, "custom_handler": OfflineLLM()},
        ]
        # litellm builds its provider table from the map when it is set through this hook.
        litellm.utils.custom_llm_setup()
