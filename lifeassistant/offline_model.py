"""The offline model: a deterministic stand-in registered as a litellm custom provider.

Imported by ``llm.litellm_module`` on the first model call only, since it needs litellm.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any, cast

from django.conf import settings
from django.utils.translation import gettext as _
from litellm import CustomLLM, ModelResponse
from litellm.types.utils import GenericStreamingChunk

from .tokens import count_tokens, estimate_text_tokens


class OfflineLLM(CustomLLM):
    """A deterministic stand-in model: says plainly that no model is configured.

    Its reply shows what the pipeline decided (skills, tools offered, temperature) so
    the product can be explored, and tested, without a key or a network.
    """

    def completion(self, model: str, messages: list, *args: Any, **kwargs: Any) -> ModelResponse:
        text, usage = self._answer(messages, kwargs)
        return ModelResponse(
            model=model,
            choices=[{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
            usage=usage,
        )

    def streaming(self, model: str, messages: list, *args: Any, **kwargs: Any) -> Iterator[GenericStreamingChunk]:
        """The same answer a word at a time, ``LLM_OFFLINE_TOKEN_DELAY_SECONDS`` apart, so the
        embedded defaults show a reply streaming."""
        text, usage = self._answer(messages, kwargs)
        words = re.findall(r"\S+\s*|\s+", text)
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
    def _answer(messages: list, kwargs: dict[str, Any]) -> tuple[str, dict[str, int]]:
        optional_params: dict[str, Any] = kwargs.get("optional_params") or {}
        litellm_params: dict[str, Any] = kwargs.get("litellm_params") or {}
        metadata: dict[str, Any] = litellm_params.get("metadata") or {}
        text = offline_reply(messages, optional_params.get("tools") or [], optional_params.get("temperature"), metadata)
        prompt_tokens = count_tokens(messages=messages)
        completion_tokens = estimate_text_tokens(text)
        usage = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        }
        return text, usage


def offline_reply(
    messages: list[dict[str, Any]], tools: list[dict[str, Any]], temperature: float | None, metadata: dict[str, Any]
) -> str:
    """The offline model's answer: a plain statement plus the pipeline's decisions."""
    last_user = next((m.get("content") or "" for m in reversed(messages) if m.get("role") == "user"), "")
    tool_names = [t.get("function", {}).get("name", "?") for t in tools]
    skills = metadata.get("skills") or []
    none = _("none")
    lines = [
        # In the reader's language, labels included; the values are the pipeline's own names.
        _("No language model is configured (LLM_MODEL is unset), so this is the offline assistant."),
        _("Skills: %(skills)s") % {"skills": ", ".join(skills) if skills else none}
        + (f" ({metadata['reason']})" if metadata.get("reason") else ""),
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
