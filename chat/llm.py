"""The one way the project talks to a language model: litellm, with timeouts and retries.

``LLM_MODEL`` is any litellm model string. Unset, it is the offline provider below,
registered through litellm's custom-provider mechanism, so the whole pipeline (HTTP
parsing aside) runs through the same litellm code paths with no key and no network.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import litellm
import openai
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from litellm import CustomLLM, ModelResponse

if TYPE_CHECKING:
    from litellm.types.llms.openai import ChatCompletionToolParam

logger = logging.getLogger(__name__)

# Llama-family names would otherwise download a Hugging Face tokenizer (and stall offline).
litellm.disable_hf_tokenizer_download = True
litellm.suppress_debug_info = True

OFFLINE_PROVIDER = "offline"
# Tokenizer used to count tokens for models litellm cannot tokenize itself.
FALLBACK_TOKENIZER_MODEL = "gpt-4o-mini"

TRANSIENT_ERRORS: tuple[type[Exception], ...] = (
    litellm.exceptions.Timeout,
    litellm.exceptions.APIConnectionError,
    litellm.exceptions.RateLimitError,
    litellm.exceptions.ServiceUnavailableError,
    litellm.exceptions.InternalServerError,
    litellm.exceptions.BadGatewayError,
)


class LLMError(Exception):
    """The model could not produce an answer; the message is safe to show to the user."""


@dataclass(frozen=True)
class PipelineNote:
    """What the pipeline decided for a request, passed to the model call as metadata."""

    skills: tuple[str, ...] = ()
    reason: str = ""


def is_offline(model: str | None = None) -> bool:
    """True when the configured model is the built-in offline provider."""
    return (model or settings.LLM_MODEL).startswith(f"{OFFLINE_PROVIDER}/")


def completion(
    messages: list[dict[str, Any]],
    *,
    tools: list[dict[str, Any]] | None = None,
    temperature: float | None = None,
    note: PipelineNote | None = None,
    response_format: dict[str, Any] | None = None,
    timeout: float | None = None,
) -> ModelResponse:
    """Call the configured model, retrying transient provider errors with backoff.

    Raises ``LLMError`` with a user-presentable message once retries are exhausted or
    the provider refuses the request.
    """
    kwargs: dict[str, Any] = {
        "model": settings.LLM_MODEL,
        "messages": messages,
        "timeout": timeout or settings.LLM_TIMEOUT_SECONDS,
        "num_retries": 0,  # retries are ours, so they are counted and logged in one place
    }
    if tools:
        kwargs["tools"] = tools
    if temperature is not None:
        kwargs["temperature"] = temperature
    if response_format is not None and not is_offline():
        kwargs["response_format"] = response_format
    if settings.LLM_API_BASE:
        kwargs["api_base"] = settings.LLM_API_BASE
    if settings.LLM_API_KEY:
        kwargs["api_key"] = settings.LLM_API_KEY
    if note is not None:
        kwargs["metadata"] = {"skills": list(note.skills), "reason": note.reason}

    attempts = settings.LLM_MAX_RETRIES + 1
    for attempt in range(1, attempts + 1):
        try:
            return litellm.completion(**kwargs)
        except TRANSIENT_ERRORS as exc:
            _reraise_time_limit(exc)
            if attempt == attempts:
                raise LLMError(
                    f"The language model is unavailable ({type(exc).__name__}) after {attempts} attempts."
                ) from exc
            delay = settings.LLM_RETRY_BACKOFF_SECONDS * 2 ** (attempt - 1)
            logger.warning("llm transient error %s, attempt %d/%d, retrying in %.1fs",
                           type(exc).__name__, attempt, attempts, delay)
            time.sleep(delay)
        except openai.OpenAIError as exc:  # litellm's provider errors all derive from it
            raise LLMError(f"The language model refused the request ({type(exc).__name__}).") from exc
    raise AssertionError("unreachable")  # pragma: no cover


def _reraise_time_limit(exc: BaseException) -> None:
    """litellm wraps Celery's soft time limit in a connection error; let it through unretried."""
    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, SoftTimeLimitExceeded):
            raise cause
        cause = cause.__cause__ or cause.__context__


def count_tokens(*, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> int:
    """Tokens of ``messages`` plus tool definitions for the configured model, counted offline."""
    model = FALLBACK_TOKENIZER_MODEL if is_offline() else settings.LLM_MODEL
    # The tool definitions are plain dicts in the OpenAI tool format litellm declares as a TypedDict.
    tool_params = cast("list[ChatCompletionToolParam] | None", tools or None)
    return int(litellm.token_counter(model=model, messages=messages, tools=tool_params))


def max_input_tokens() -> int:
    """The configured model's context window; ``LLM_MAX_INPUT_TOKENS`` when litellm does not know it."""
    if is_offline():
        return settings.LLM_MAX_INPUT_TOKENS
    try:
        info = litellm.get_model_info(settings.LLM_MODEL)
    except Exception:  # litellm raises for unknown and retired models
        return settings.LLM_MAX_INPUT_TOKENS
    return int(info.get("max_input_tokens") or info.get("max_tokens") or settings.LLM_MAX_INPUT_TOKENS)


def response_cost(response: ModelResponse) -> float | None:
    """The provider cost of a response in USD, or None when litellm has no price for it."""
    if is_offline():
        return 0.0
    try:
        return float(litellm.completion_cost(completion_response=response))
    except Exception:  # unknown price: not an error for the user
        return None


class OfflineLLM(CustomLLM):
    """A deterministic stand-in model: says plainly that no model is configured.

    Its reply shows what the pipeline decided (skills, tools offered, temperature) so
    the product can be explored, and tested, without a key or a network.
    """

    def completion(self, model: str, messages: list, *args: Any, **kwargs: Any) -> ModelResponse:
        optional_params: dict[str, Any] = kwargs.get("optional_params") or {}
        litellm_params: dict[str, Any] = kwargs.get("litellm_params") or {}
        metadata: dict[str, Any] = litellm_params.get("metadata") or {}
        text = offline_reply(messages, optional_params.get("tools") or [], optional_params.get("temperature"), metadata)
        prompt_tokens = int(litellm.token_counter(model=FALLBACK_TOKENIZER_MODEL, messages=messages))
        completion_tokens = int(litellm.token_counter(model=FALLBACK_TOKENIZER_MODEL, text=text))
        return ModelResponse(
            model=model,
            choices=[{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
            usage={
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        )


def offline_reply(
    messages: list[dict[str, Any]], tools: list[dict[str, Any]], temperature: float | None, metadata: dict[str, Any]
) -> str:
    """The offline model's answer: a plain statement plus the pipeline's decisions."""
    last_user = next((m.get("content") or "" for m in reversed(messages) if m.get("role") == "user"), "")
    tool_names = [t.get("function", {}).get("name", "?") for t in tools]
    skills = metadata.get("skills") or []
    lines = [
        "No language model is configured (LLM_MODEL is unset), so this is the offline assistant.",
        f"Skills: {', '.join(skills) if skills else 'none'}"
        + (f" ({metadata['reason']})" if metadata.get("reason") else ""),
        f"Tools offered: {', '.join(tool_names) if tool_names else 'none'}",
        f"Temperature: {temperature if temperature is not None else 'provider default'}",
        f"You said: {_shorten(str(last_user), 200)}",
    ]
    return "\n".join(lines)


def _shorten(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def register_offline_provider() -> None:
    """Register the offline provider with litellm (idempotent)."""
    if not any(entry.get("provider") == OFFLINE_PROVIDER for entry in litellm.custom_provider_map):
        litellm.custom_provider_map = [
            *litellm.custom_provider_map,
            {"provider": OFFLINE_PROVIDER, "custom_handler": OfflineLLM()},
        ]
        # litellm builds its provider table from the map when it is set through this hook.
        litellm.utils.custom_llm_setup()


register_offline_provider()
