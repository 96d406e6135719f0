"""The lean reader of OpenAI-compatible chat streams: httpx, httpx-sse and orjson.

litellm reads a streamed chunk through its wrapper, the OpenAI SDK and pydantic models:
~1 ms of CPU a chunk, so one core streams ~20 replies at once. For a provider that
speaks OpenAI's chat-completions protocol as it is, this reader does the same work with
httpx's connection pool, httpx-sse's event decoder and orjson: a few µs a chunk
(``python -m bench.stream_reading``). litellm still resolves the provider, its base URL
and key (once per model) and prices the answer (once per completion); every other
provider, and every call that is not a stream, stays on litellm (``lifeassistant.llm``).

One ``httpx.Client`` serves every stream of the process: it is thread-safe, and its
pool holds as many connections as the replies a worker runs at once.
"""

from __future__ import annotations

import functools
import logging
import math
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import orjson
from httpx_sse import EventSource

from .gathered_reads import GatheringTransport, set_gather_seconds
from .completions import Completion, LLMError, OpenFailed, ToolCallRequest
from .failures import FailureCode
from .tokens import count_tokens, estimate_text_tokens

logger = logging.getLogger(__name__)

# Providers whose chat endpoint is OpenAI's protocol, request and stream, as litellm sends it.
LEAN_PROVIDERS = frozenset(
    {
        "openai",
        "hosted_vllm",
        "lm_studio",
        "groq",
        "openrouter",
        "deepseek",
        "together_ai",
        "fireworks_ai",
        "deepinfra",
        "xai",
        "cerebras",
    }
)
# OpenAI's own models whose request litellm sends unchanged; its o-series and GPT-5
# configurations rename and drop parameters, so those models stay on litellm.
PLAIN_OPENAI_CONFIGS = frozenset({"OpenAIGPTConfig", "OpenAIUnknownModelConfig"})
# Where litellm finds no base URL of its own for a provider (it reads these in its clients).
DEFAULT_BASES = {"openai": "https://api.openai.com/v1", "openrouter": "https://openrouter.ai/api/v1"}
BASE_VARIABLES = {"openai": ("OPENAI_BASE_URL", "OPENAI_API_BASE"), "openrouter": ("OPENROUTER_API_BASE",)}
KEY_VARIABLES = {"openai": ("OPENAI_API_KEY",), "openrouter": ("OPENROUTER_API_KEY", "OR_API_KEY")}

# A worker runs a few hundred replies at once, each holding one stream.
MAX_CONNECTIONS = 1000
MAX_IDLE_CONNECTIONS = 500
IDLE_SECONDS = 30.0

# Statuses worth another attempt (as litellm and the OpenAI SDK retry them); any other
# 4xx is a refusal. The names are litellm's exception classes for the same status, so a
# failure reads the same in the logs whichever path met it.
TRANSIENT_STATUSES = frozenset({408, 409, 429})
STATUS_NAMES = {
    400: "BadRequestError",
    401: "AuthenticationError",
    403: "PermissionDeniedError",
    404: "NotFoundError",
    408: "Timeout",
    409: "ConflictError",
    422: "UnprocessableEntityError",
    429: "RateLimitError",
    500: "InternalServerError",
    502: "BadGatewayError",
    503: "ServiceUnavailableError",
}


@dataclass(frozen=True)
class Endpoint:
    """Where a model's chat stream is read from, as litellm resolves it."""

    url: str
    model: str  # the name the provider knows
    provider: str
    headers: dict[str, str] = field(repr=False)  # holds the key: never in a log line


@functools.cache
def endpoint_for(model: str, api_base: str, api_key: str) -> Endpoint | None:
    """The OpenAI-compatible endpoint of ``model``, or None when litellm must read it.

    Resolved once per (model, base, key): litellm's ``get_llm_provider`` names the
    provider, the model's own name, and the base URL and key it would use.
    """
    import litellm  # loaded (and patched) by lifeassistant.llm before any call comes here
    from litellm.utils import ProviderConfigManager

    try:
        name, provider, key, base = litellm.get_llm_provider(model, api_base=api_base or None, api_key=api_key or None)
    except Exception:  # a model string litellm does not know: its own call will say so
        return None
    if provider not in LEAN_PROVIDERS:
        return None
    if provider == "openai":
        config = ProviderConfigManager.get_provider_chat_config(name, litellm.LlmProviders.OPENAI)
        if type(config).__name__ not in PLAIN_OPENAI_CONFIGS:
            return None
    base = base or _first_variable(BASE_VARIABLES.get(provider, ())) or DEFAULT_BASES.get(provider)
    if not base:
        return None
    key = key or api_key or _first_variable(KEY_VARIABLES.get(provider, ()))
    headers = {"Content-Type": "application/json", "Accept": "text/event-stream"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    return Endpoint(url=f"{base.rstrip('/')}/chat/completions", model=name, provider=provider, headers=headers)


def _first_variable(names: tuple[str, ...]) -> str:
    return next((os.environ[name] for name in names if os.environ.get(name)), "")


_client: httpx.Client | None = None
_client_pid = 0
_client_lock = threading.Lock()


def shared_client() -> httpx.Client:
    """The process's one HTTP client (made again in a forked child: a pool is not shared)."""
    global _client, _client_pid
    if _client is None or _client_pid != os.getpid():
        with _client_lock:
            if _client is None or _client_pid != os.getpid():
                limits = httpx.Limits(
                    max_connections=MAX_CONNECTIONS,
                    max_keepalive_connections=MAX_IDLE_CONNECTIONS,
                    keepalive_expiry=IDLE_SECONDS,
                )
                _client, _client_pid = httpx.Client(transport=GatheringTransport(limits)), os.getpid()
    return _client


def open_stream(
    endpoint: Endpoint,
    messages: list[dict[str, Any]],
    *,
    tools: list[dict[str, Any]] | None,
    temperature: float | None,
    timeout: float,
    deadline: float = math.inf,
    max_tokens: int | None = None,
    gather_seconds: float = 0.0,
) -> LeanStream:
    """Send the request and read the response's status; the body is read as it is iterated.

    Raises ``OpenFailed`` when the provider cannot be reached or answers with an error.
    ``timeout`` bounds the connection and each read (a model silent that long is cut).
    ``gather_seconds``: once the first text arrived, the socket is read at most this often
    (``lifeassistant.gathered_reads``), for a caller that publishes the text in batches.
    """
    body: dict[str, Any] = {
        "model": endpoint.model,
        "messages": messages,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    if tools:
        body["tools"] = tools
    if temperature is not None:
        body["temperature"] = temperature
    if max_tokens is not None:
        body["max_tokens"] = max_tokens
    client = shared_client()
    request = client.build_request(
        "POST", endpoint.url, content=orjson.dumps(body), headers=endpoint.headers, timeout=httpx.Timeout(timeout)
    )
    try:
        response = client.send(request, stream=True)
    except httpx.TimeoutException as exc:
        raise OpenFailed("Timeout", transient=True, detail=str(exc)) from exc
    except httpx.TransportError as exc:
        raise OpenFailed("APIConnectionError", transient=True, detail=str(exc)) from exc
    status = response.status_code
    if status >= 400 or "text/event-stream" not in response.headers.get("content-type", ""):
        detail = _error_body(response)
        if status < 400:  # a plain answer to a streamed request: this server does not stream
            raise OpenFailed("BadRequestError", transient=False, detail=f"not an event stream: {detail}")
        raise OpenFailed(
            STATUS_NAMES.get(status, f"HTTP {status}"),
            transient=status in TRANSIENT_STATUSES or status >= 500,
            detail=detail,
        )
    return LeanStream(response, endpoint, messages, deadline, gather_seconds)


def _error_body(response: httpx.Response) -> str:
    try:
        return response.read().decode("utf-8", "replace")[:300]
    except httpx.HTTPError:
        return ""
    finally:
        response.close()


class _Broken(Exception):
    """The stream broke after it opened: an error event, a malformed chunk, a cut."""


class LeanStream:
    """An open OpenAI-compatible stream: iterate it for the text, then ``result()``."""

    def __init__(self, response: httpx.Response, endpoint: Endpoint, messages: list[dict[str, Any]], deadline: float,
                 gather_seconds: float = 0.0) -> None:
        self._response = response
        self._gather_seconds = gather_seconds
        self._endpoint = endpoint
        self._messages = messages
        self._deadline = deadline
        self._texts: list[str] = []
        self._calls: dict[int, list[Any]] = {}  # index -> [id, name, argument pieces]
        self._finish_reason: str | None = None
        self._usage: dict[str, Any] | None = None
        self._result: Completion | None = None

    def __iter__(self) -> Iterator[str]:
        texts, deadline, clock, loads = self._texts, self._deadline, time.monotonic, orjson.loads
        ended = False
        previous_gather: float | None = None  # this thread's interval before the first text
        try:
            events = EventSource(self._response).iter_sse()
            for event in events:
                data = event.data
                if data == "[DONE]":
                    ended = True
                    for _ in events:  # read to the end, so the connection goes back to the pool
                        pass
                    break
                if clock() > deadline:
                    self.close()
                    raise LLMError("The language model did not finish before the reply's deadline.", code=FailureCode.TIMEOUT)
                if event.event == "error":
                    raise _Broken(f"an error event: {data[:200]}")
                chunk = loads(data)
                if chunk.get("error"):
                    raise _Broken(f"an error event: {str(chunk['error'])[:200]}")
                if chunk.get("usage"):
                    self._usage = chunk["usage"]
                for choice in chunk.get("choices") or ():
                    if choice.get("index", 0):
                        continue  # one answer is asked for: another choice is not read
                    delta = choice.get("delta") or {}
                    text = delta.get("content")
                    if text:
                        texts.append(text)
                        if previous_gather is None and self._gather_seconds > 0:
                            previous_gather = set_gather_seconds(self._gather_seconds)  # the first text came at once
                        yield text
                    if delta.get("tool_calls"):
                        self._add_tool_calls(delta["tool_calls"])
                    if choice.get("finish_reason"):
                        self._finish_reason = choice["finish_reason"]
                        if previous_gather is not None:
                            # The answer is whole: its usage, end marker and the body's end are
                            # read as they come (a gathered read made each wait, and the final
                            # event with them: docs/performance.md, tenth pass).
                            set_gather_seconds(0.0)
        except (httpx.HTTPError, httpx.StreamError) as exc:
            self.close()
            if clock() > deadline:
                raise LLMError("The language model did not finish before the reply's deadline.", code=FailureCode.TIMEOUT) from exc
            raise _interrupted(type(exc).__name__) from exc
        except _Broken as exc:
            self.close()
            raise _interrupted(str(exc)) from exc
        except (ValueError, TypeError, AttributeError, KeyError) as exc:  # orjson's error is a ValueError
            self.close()
            raise _interrupted(f"a malformed chunk, {type(exc).__name__}") from exc
        finally:
            if previous_gather is not None:
                set_gather_seconds(previous_gather)
        if not ended and self._finish_reason is None:
            # A stream cut where the connection's close ends the body reads as a normal end.
            self.close()
            raise _interrupted("the stream ended before its end marker")

    def _add_tool_calls(self, deltas: list[dict[str, Any]]) -> None:
        """A call's id, name and argument pieces arrive in chunks, keyed by its index."""
        for delta in deltas:
            call = self._calls.setdefault(delta.get("index", 0), [None, None, []])
            if delta.get("id"):
                call[0] = delta["id"]
            function = delta.get("function") or {}
            if function.get("name"):
                call[1] = function["name"]
            if function.get("arguments"):
                call[2].append(function["arguments"])

    def close(self) -> None:
        try:
            self._response.close()
        except Exception:  # closing a half-read connection is best effort
            logger.debug("closing the model stream failed", exc_info=True)

    def result(self) -> Completion:
        """What was read so far; the usage is estimated when the provider sent none."""
        if self._result is None:
            self._result = self._completion()
        return self._result

    def _completion(self) -> Completion:
        text = "".join(self._texts)
        calls = [
            ToolCallRequest(id=call_id, name=name, arguments="".join(pieces) or "{}")
            for call_id, name, pieces in (self._calls[index] for index in sorted(self._calls))
            if call_id and name  # a call cut before its id and name is not a call
        ]
        usage = self._usage
        if usage:
            prompt, completion = int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)
        else:
            prompt, completion = count_tokens(messages=self._messages), estimate_text_tokens(text)
        return Completion(
            text=text,
            tool_calls=calls,
            finish_reason=self._finish_reason,
            prompt_tokens=prompt,
            completion_tokens=completion,
            usage_reported=bool(usage),
            model=self._endpoint.model,
            cost=price(self._endpoint.model, self._endpoint.provider, prompt, completion),
        )


def _interrupted(why: str) -> LLMError:
    # Text already reached the user, so a retry would repeat it: the reply fails instead.
    return LLMError(f"The language model stopped in the middle of its answer ({why}).", code=FailureCode.MODEL_INTERRUPTED)


def price(model: str, provider: str, prompt_tokens: int, completion_tokens: int) -> float | None:
    """The cost in USD from litellm's price table, None for a model it has no price for."""
    import litellm

    try:
        prompt_cost, completion_cost = litellm.cost_per_token(
            model=model, custom_llm_provider=provider, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens
        )
    except Exception:  # unknown price: not an error for the user
        return None
    return float(prompt_cost + completion_cost)
