"""The one way the project talks to a language model: litellm, with timeouts and retries.

``LLM_MODEL`` is any litellm model string. Unset, it is the offline provider
(``offline_model.py``), registered through litellm's custom-provider mechanism, so the
whole pipeline (HTTP parsing aside) runs through the same litellm code paths with no key
and no network.

Every call returns the project's own ``Completion`` (``completions.py``), never litellm's
objects. A streamed call to an OpenAI-compatible endpoint (``openai/<name>`` with
``LLM_API_BASE``, OpenAI, Groq, OpenRouter, vLLM, Ollama's ``/v1`` ...) is read by the
lean reader (``openai_stream.py``, ~1/100 of litellm's CPU a chunk) unless
``LLM_LEAN_STREAMING`` is off; litellm still resolves and prices it. Every other
provider, and every call that is not a stream, goes through litellm.

litellm is imported on the first model call, never at module import: importing it
costs seconds and ~140 MiB, and the web process does not need it (tokens are
estimated in ``tokens.py``, context windows read from litellm's bundled JSON). The Celery worker
imports it once at start-up (``lifeassistant.celery``), before its pool forks.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib.util
import json
import logging
import math
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, TypeVar

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings

from . import litellm_patches
from .completions import Completion, CompletionStream, LLMError, OpenFailed, ToolCallRequest
from .failures import FailureCode
from .tokens import count_tokens, estimate_text_tokens

if TYPE_CHECKING:
    from .openai_stream import Endpoint

__all__ = ["Completion", "CompletionStream", "LLMError", "PipelineNote", "ToolCallRequest", "completion", "stream_completion"]

logger = logging.getLogger(__name__)

OFFLINE_PROVIDER = "offline"

Opened = TypeVar("Opened")


@dataclass(frozen=True)
class PipelineNote:
    """What the pipeline decided for a request, passed to the model call as metadata."""

    skills: tuple[str, ...] = ()
    reason: str = ""
    # The user's date (ISO) in their time zone: near midnight it is not the server's (UTC).
    today: str = ""


def is_offline(model: str | None = None) -> bool:
    """True when the configured model is the built-in offline provider."""
    return (model or settings.LLM_MODEL).startswith(f"{OFFLINE_PROVIDER}/")


_litellm_loaded: ModuleType | None = None
_litellm_lock = threading.Lock()


def litellm_module() -> ModuleType:
    """litellm, imported and set up on first use (with the offline provider registered).

    Replies run in several threads on the embedded defaults; two of them importing
    litellm at once deadlock in the import system, so the first import is serialised.
    """
    global _litellm_loaded
    if _litellm_loaded is None:
        with _litellm_lock:
            if _litellm_loaded is None:
                _litellm_loaded = _load_litellm()
    return _litellm_loaded


def load_for_replies() -> None:
    """What a process that answers replies loads before its first: litellm, and on an
    OpenAI-compatible endpoint the lean reader's endpoint and its HTTP client (its TLS
    context alone is tens of milliseconds, which the first burst's replies waited for
    behind a lock)."""
    litellm_module()
    if _lean_endpoint() is not None:
        from . import openai_stream

        openai_stream.shared_client()


def _load_litellm() -> ModuleType:
    with litellm_patches.deferred_pydantic_model_builds():
        import litellm

    # Llama-family names would otherwise download a Hugging Face tokenizer (and stall offline).
    litellm.disable_hf_tokenizer_download = True
    litellm.suppress_debug_info = True
    # Otherwise every streamed chunk is handed to litellm's logging thread pool, for
    # callbacks this project does not register: ~30% of a streamed reply's worker CPU
    # (manage.py benchmark --section streaming). The end-of-stream success log still runs.
    litellm.disable_streaming_logging = True
    from .offline_model import register_offline_provider  # needs litellm: imported with it

    register_offline_provider(litellm, OFFLINE_PROVIDER)
    litellm_patches.apply_all(litellm)
    # The lean stream reader comes with litellm: a worker's parent imports both before it forks.
    from . import openai_stream  # noqa: F401
    return litellm


def _transient_errors(litellm: ModuleType) -> tuple[type[Exception], ...]:
    exceptions = litellm.exceptions
    return (
        exceptions.Timeout,
        exceptions.APIConnectionError,
        exceptions.RateLimitError,
        exceptions.ServiceUnavailableError,
        exceptions.InternalServerError,
        exceptions.BadGatewayError,
    )


def completion(
    messages: list[dict[str, Any]],
    *,
    tools: list[dict[str, Any]] | None = None,
    temperature: float | None = None,
    note: PipelineNote | None = None,
    response_format: dict[str, Any] | None = None,
    timeout: float | None = None,
    max_retries: int | None = None,
    max_tokens: int | None = None,
    gather_seconds: float = 0.0,
) -> Completion:
    """Call the configured model (through litellm), retrying transient provider errors with backoff.

    ``timeout`` and ``max_retries`` default to ``LLM_TIMEOUT_SECONDS`` and
    ``LLM_MAX_RETRIES``; a call made while a request waits passes a short budget.
    Raises ``LLMError`` once retries are exhausted or the provider refuses the request.

    On an OpenAI-compatible endpoint a call without ``response_format`` is read as a lean
    stream to its end (a conversation's title after its first reply: ~30 ms of litellm's
    CPU per call otherwise, as much as the whole reply's streaming). ``gather_seconds``: read
    that stream at most this often once text arrived (``stream_completion``), for a caller
    that wants only the whole answer and can wait that much longer for it.
    """
    endpoint = _lean_endpoint() if response_format is None else None
    if endpoint is not None:
        from . import openai_stream

        stream = _open_with_retries(
            lambda seconds: openai_stream.open_stream(
                endpoint, messages, tools=tools, temperature=temperature, timeout=seconds, max_tokens=max_tokens,
                gather_seconds=gather_seconds,
            ),
            timeout=timeout,
            max_retries=max_retries,
        )
        try:
            for _ in stream:
                pass
        finally:
            stream.close()
        return stream.result()
    kwargs = _call_arguments(messages, tools=tools, temperature=temperature, note=note, response_format=response_format)
    if max_tokens is not None:
        kwargs["max_tokens"] = max_tokens
    response = _open_with_retries(
        lambda seconds: _litellm_call({**kwargs, "timeout": seconds}), timeout=timeout, max_retries=max_retries
    )
    usage = getattr(response, "usage", None)
    reported = bool(usage and (usage.prompt_tokens or usage.completion_tokens))
    return _completion_of(response, usage_reported=reported, cost=_cost(response))


def stream_completion(
    messages: list[dict[str, Any]],
    *,
    tools: list[dict[str, Any]] | None = None,
    temperature: float | None = None,
    note: PipelineNote | None = None,
    deadline: float | None = None,
    gather_seconds: float = 0.0,
) -> CompletionStream:
    """``completion`` as a stream (usage included); opening it is retried like a call.

    ``deadline`` (a ``time.monotonic()`` instant) bounds the whole call: no attempt
    starts or waits past it, and a stream still running then is closed and fails with
    ``LLMError(code=FailureCode.TIMEOUT)``; the text read so far stays in ``result()``. ``note`` is
    metadata for litellm's logging callbacks, which the lean reader does not run.
    ``gather_seconds``: the lean reader reads the socket at most this often once text
    arrived (a caller that publishes in batches of that interval loses nothing by it).
    """
    until = math.inf if deadline is None else deadline
    endpoint = _lean_endpoint()
    if endpoint is not None:
        from . import openai_stream  # loaded with litellm: the web process alone never imports it

        return _open_with_retries(
            lambda seconds: openai_stream.open_stream(
                endpoint, messages, tools=tools, temperature=temperature, timeout=seconds, deadline=until,
                gather_seconds=gather_seconds,
            ),
            deadline=until,
        )
    kwargs = _call_arguments(messages, tools=tools, temperature=temperature, note=note)
    kwargs.update(stream=True, stream_options={"include_usage": True})
    wrapper = _open_with_retries(lambda seconds: _litellm_call({**kwargs, "timeout": seconds}), deadline=until)
    return LitellmStream(wrapper, messages, until)


def _lean_endpoint() -> Endpoint | None:
    """The endpoint the lean reader streams from, None when the stream goes through litellm."""
    if not settings.LLM_LEAN_STREAMING or is_offline():
        return None
    litellm_module()  # loaded and patched before litellm resolves the provider
    from . import openai_stream

    return openai_stream.endpoint_for(settings.LLM_MODEL, settings.LLM_API_BASE, settings.LLM_API_KEY)


class LitellmStream:
    """A stream read through litellm: iterate it for the text as it arrives, then ``result()``.

    ``close()`` closes the provider connection, so a stopped reply stops costing tokens.
    """

    def __init__(self, wrapper: Any, messages: list[dict[str, Any]], deadline: float = math.inf) -> None:
        self._wrapper = wrapper
        self._messages = messages
        self._deadline = deadline
        self._chunks: list[Any] = []
        self._broken = False

    def __iter__(self) -> Iterator[str]:
        import openai  # already imported by litellm

        # What can break an open stream: the transient errors, or a provider error mid-answer.
        broken: tuple[type[Exception], ...] = (*_transient_errors(litellm_module()), openai.OpenAIError)
        deadline, clock = self._deadline, time.monotonic
        try:
            for chunk in self._wrapper:
                if clock() > deadline:
                    self.close()
                    raise LLMError("The language model did not finish before the reply's deadline.", code=FailureCode.TIMEOUT)
                self._chunks.append(chunk)
                text = chunk.choices[0].delta.content if chunk.choices else None
                if text:
                    yield text
                if self._wrapper.sent_stream_usage:
                    # litellm's last chunk, the usage. Asking for one more makes it rebuild
                    # the whole response for its logging a second time (two deep copies and
                    # a logging job), ~10% of a reply's worker CPU, only to stop.
                    if not self._provider_reported_usage():
                        # litellm counted it with the model's tokenizer: estimated here
                        # instead, as the lean reader does (result()).
                        self._chunks.pop()
                    break
        except broken as exc:
            _reraise_time_limit(exc)
            self._broken = True
            if clock() > deadline:
                raise LLMError("The language model did not finish before the reply's deadline.", code=FailureCode.TIMEOUT) from exc
            # Text already reached the user, so a retry would repeat it: the reply fails instead.
            raise LLMError(
                f"The language model stopped in the middle of its answer ({type(exc).__name__}).", code=FailureCode.MODEL_INTERRUPTED
            ) from exc

    def _provider_reported_usage(self) -> bool:
        """Whether the provider sent a usage: litellm hands it on only in its own last chunk,
        which it also sends, counted with a tokenizer, when the provider sent none."""
        raw = getattr(self._wrapper, "chunks", None)
        return raw is None or any(getattr(chunk, "usage", None) for chunk in raw)

    def close(self) -> None:
        provider_stream = getattr(self._wrapper, "completion_stream", None)
        close = getattr(provider_stream, "close", None)
        if close is not None:
            try:
                close()
            except Exception:  # closing a half-read connection is best effort
                logger.debug("closing the model stream failed", exc_info=True)

    def result(self) -> Completion:
        """The chunks read so far as one completion: text, tool calls and usage.

        A stream closed early (a stopped reply) has no usage chunk: the usage is then
        estimated here (``lifeassistant.tokens``). litellm would count it with tiktoken,
        loading an encoding into the worker for good (+38 MiB per Celery child).
        """
        litellm = litellm_module()
        chunks = self._chunks
        if not chunks:
            prompt = count_tokens(messages=self._messages)
            return Completion(prompt_tokens=prompt, model=settings.LLM_MODEL, cost=_price(settings.LLM_MODEL, prompt, 0))
        reported = any(getattr(chunk, "usage", None) for chunk in chunks)
        if not reported:
            chunks = [*chunks, self._estimated_usage_chunk(litellm)]
        built = litellm.stream_chunk_builder(chunks, messages=self._messages)
        completion = _completion_of(built, usage_reported=reported, cost=_cost(built))
        if self._broken:  # litellm's builder says "stop" for a stream that broke
            completion = dataclasses.replace(completion, finish_reason=None)
        return completion

    def _estimated_usage_chunk(self, litellm: Any) -> Any:
        text = "".join(
            chunk.choices[0].delta.content or "" for chunk in self._chunks if chunk.choices
        )
        prompt, completion = count_tokens(messages=self._messages), estimate_text_tokens(text)
        return litellm.ModelResponseStream(
            id=self._chunks[-1].id,
            model=self._chunks[-1].model,
            choices=[],
            usage=litellm.Usage(prompt_tokens=prompt, completion_tokens=completion, total_tokens=prompt + completion),
        )


def _completion_of(response: Any, *, usage_reported: bool, cost: float | None) -> Completion:
    """litellm's response in the project's terms."""
    choice = response.choices[0] if response.choices else None
    message = getattr(choice, "message", None)
    usage = getattr(response, "usage", None)
    return Completion(
        text=getattr(message, "content", None) or "",
        tool_calls=[
            ToolCallRequest(id=call.id or "", name=call.function.name or "", arguments=call.function.arguments or "{}")
            for call in getattr(message, "tool_calls", None) or []
        ],
        finish_reason=getattr(choice, "finish_reason", None),
        prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
        completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
        usage_reported=usage_reported,
        model=getattr(response, "model", None) or "",
        cost=cost,
    )


def _cost(response: Any) -> float | None:
    """The provider cost of a litellm response in USD, or None when litellm has no price for it."""
    if is_offline():
        return 0.0
    # stream_chunk_builder priced the streamed response already: not twice per model call.
    priced = getattr(response, "_hidden_params", {}).get("response_cost")
    if isinstance(priced, (int, float)):
        return float(priced)
    usage = getattr(response, "usage", None)
    return _price(
        settings.LLM_MODEL, int(getattr(usage, "prompt_tokens", 0) or 0), int(getattr(usage, "completion_tokens", 0) or 0)
    )


def _price(model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
    """The cost from litellm's price table (no tokenizer, no response object), None when unknown."""
    if is_offline(model):
        return 0.0
    try:
        prompt_cost, completion_cost = litellm_module().cost_per_token(
            model=model, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens
        )
    except Exception:  # unknown price: not an error for the user
        return None
    return float(prompt_cost + completion_cost)


def _call_arguments(
    messages: list[dict[str, Any]],
    *,
    tools: list[dict[str, Any]] | None,
    temperature: float | None,
    note: PipelineNote | None,
    response_format: dict[str, Any] | None = None,
) -> dict[str, Any]:
    kwargs: dict[str, Any] = {
        "model": settings.LLM_MODEL,
        "messages": messages,
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
        kwargs["metadata"] = {"skills": list(note.skills), "reason": note.reason, "today": note.today}
    return kwargs


def _litellm_call(kwargs: dict[str, Any]) -> Any:
    """One litellm call; its failures sorted into worth-retrying and refused."""
    import openai  # already imported by litellm; litellm's provider errors all derive from it

    litellm = litellm_module()
    try:
        return litellm.completion(**kwargs)
    except _transient_errors(litellm) as exc:
        _reraise_time_limit(exc)
        raise OpenFailed(type(exc).__name__, transient=True) from exc
    except openai.OpenAIError as exc:
        raise OpenFailed(type(exc).__name__, transient=False) from exc


def _open_with_retries(
    open_once: Callable[[float], Opened],
    *,
    timeout: float | None = None,
    max_retries: int | None = None,
    deadline: float = math.inf,
) -> Opened:
    """``open_once(seconds)``, retried with backoff while its failures are transient.

    Each attempt gets ``timeout`` (``LLM_TIMEOUT_SECONDS``) seconds, or what is left
    before ``deadline``; past the deadline the call fails with the ``timeout`` code.
    """
    seconds = timeout or settings.LLM_TIMEOUT_SECONDS
    attempts = (settings.LLM_MAX_RETRIES if max_retries is None else max_retries) + 1
    for attempt in range(1, attempts + 1):
        left = deadline - time.monotonic()
        if left <= 0:
            raise LLMError("The language model did not answer before the reply's deadline.", code=FailureCode.TIMEOUT)
        try:
            return open_once(min(seconds, left))
        except OpenFailed as exc:
            if not exc.transient:
                raise LLMError(f"The language model refused the request ({exc.name}).", code=FailureCode.MODEL_REFUSED) from exc
            if time.monotonic() >= deadline:
                raise LLMError(
                    f"The language model did not answer before the reply's deadline ({exc.name}).", code=FailureCode.TIMEOUT
                ) from exc
            if attempt == attempts:
                raise LLMError(f"The language model is unavailable ({exc.name}) after {attempts} attempts.") from exc
            delay = min(settings.LLM_RETRY_BACKOFF_SECONDS * 2 ** (attempt - 1), max(deadline - time.monotonic(), 0))
            logger.warning("llm transient error %s, attempt %d/%d, retrying in %.1fs", exc.name, attempt, attempts, delay)
            time.sleep(delay)
    raise AssertionError("unreachable")  # pragma: no cover


def _reraise_time_limit(exc: BaseException) -> None:
    """litellm wraps Celery's soft time limit in a connection error; let it through unretried."""
    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, SoftTimeLimitExceeded):
            raise cause
        cause = cause.__cause__ or cause.__context__


def max_input_tokens() -> int:
    """The configured model's context window; ``LLM_MAX_INPUT_TOKENS`` when litellm does not know it."""
    if is_offline():
        return settings.LLM_MAX_INPUT_TOKENS
    return _known_context_window(settings.LLM_MODEL) or settings.LLM_MAX_INPUT_TOKENS


@functools.cache
def _known_context_window(model: str) -> int | None:
    """The context window litellm's bundled model map gives ``model`` (read once per model).

    Read from the JSON file litellm ships, so asking costs no litellm import.
    """
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "model_prices_and_context_window_backup.json"
    try:
        table = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    for name in (model, model.split("/", 1)[-1]):
        info = table.get(name)
        if isinstance(info, dict) and not name.startswith("sample_spec"):
            window = info.get("max_input_tokens") or info.get("max_tokens")
            if window:
                return int(window)
    return None
