"""The one way the project talks to a language model: litellm, with timeouts and retries.

``LLM_MODEL`` is any litellm model string. Unset, it is the offline provider
(``offline_model.py``), registered through litellm's custom-provider mechanism, so the
whole pipeline (HTTP parsing aside) runs through the same litellm code paths with no key
and no network.

litellm is imported on the first model call, never at module import: importing it
costs seconds and ~140 MiB, and the web process does not need it (tokens are
estimated in ``tokens.py``, context windows read from litellm's bundled JSON). The Celery worker
imports it once at start-up (``lifeassistant.celery``), before its pool forks.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings

from .failures import FailureCode
from .tokens import count_tokens, estimate_text_tokens

if TYPE_CHECKING:
    from litellm import ModelResponse

logger = logging.getLogger(__name__)

OFFLINE_PROVIDER = "offline"


class LLMError(Exception):
    """The model could not produce an answer.

    The message is for the logs and the admin (it names the provider's error class);
    ``code`` says what kind of failure it was, as ``chat.failures.Failure`` spells it.
    """

    def __init__(self, message: str, *, code: str = FailureCode.MODEL_UNAVAILABLE) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class PipelineNote:
    """What the pipeline decided for a request, passed to the model call as metadata."""

    skills: tuple[str, ...] = ()
    reason: str = ""


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


def _load_litellm() -> ModuleType:
    with deferred_pydantic_model_builds():
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
    skip_the_sdk_type_walk_for_plain_requests()
    release_the_parsed_anthropic_tokenizer()
    drop_the_stream_finalizer()
    price_streams_once_they_end()
    return litellm


@contextmanager
def deferred_pydantic_model_builds() -> Iterator[None]:
    """Let pydantic build a model's validator on its first use, not as its class is defined.

    litellm and the OpenAI SDK define a few thousand pydantic models at import, for every
    provider and endpoint; a chat completion uses a few dozen. Built eagerly they hold
    ~21 MiB of every worker process (``defer_build`` is pydantic's own per-model option;
    this sets its default while litellm is imported, and restores it). A model still
    validates exactly as before: the first validation builds it.
    """
    from pydantic._internal import _config

    earlier = _config.config_defaults["defer_build"]
    _config.config_defaults["defer_build"] = True
    try:
        yield
    finally:
        _config.config_defaults["defer_build"] = earlier


def price_streams_once_they_end() -> None:
    """Skip litellm's cost estimate of a stream as it opens (idempotent).

    As a streamed call opens, litellm prices the stream wrapper, which has no output yet:
    it counts the whole prompt with the model's tokenizer (building cl100k, ~40 MiB per
    process, on the first call) for a figure nothing reads. The cost the project records
    is priced from the finished response's usage (``response_cost``), as is litellm's
    end-of-stream log.
    """
    from litellm.litellm_core_utils.litellm_logging import Logging
    from litellm.litellm_core_utils.streaming_handler import CustomStreamWrapper

    price = Logging._response_cost_calculator
    if getattr(price, "skips_open_streams", False):
        return

    def _response_cost_calculator(self: Any, result: Any, *args: Any, **kwargs: Any) -> float | None:
        if isinstance(result, CustomStreamWrapper):
            return None
        return price(self, result, *args, **kwargs)

    _response_cost_calculator.skips_open_streams = True  # type: ignore[attr-defined]
    Logging._response_cost_calculator = _response_cost_calculator  # type: ignore[method-assign]


def drop_the_stream_finalizer() -> None:
    """Remove ``CustomStreamWrapper.__del__``, which sets two context variables.

    A stream wrapper sits in a reference cycle, so the cyclic collector finalizes it at
    whatever allocation triggers a collection. Up to Python 3.11 that can be an
    allocation inside ``ContextVar.set`` (asgiref sets every context variable on each
    sync/async hop); the finalizer's own ``set`` then frees the mapping the outer call is
    still walking (CPython gh-148891): a segmentation fault, or a context variable such
    as the decimal context reading back as ``None``. The finalizer restores log
    correlation ids for abandoned *async* streams only (litellm's docstring: a no-op
    for sync streams); this project opens sync streams only.
    """
    from litellm.litellm_core_utils.streaming_handler import CustomStreamWrapper

    if "__del__" in vars(CustomStreamWrapper):
        del CustomStreamWrapper.__del__


def release_the_parsed_anthropic_tokenizer() -> None:
    """Drop ``litellm.utils.json_data``: at import litellm parses its bundled Anthropic
    tokenizer (a 13 MiB dict) only to serialise it again into ``claude_json_str``, which
    is what its token counting reads; the dict itself is never read again. Every worker
    process would otherwise carry it."""
    import litellm.utils

    if isinstance(getattr(litellm.utils, "json_data", None), dict):
        litellm.utils.json_data = None


JSON_SCALARS = (str, int, float, bool, type(None))


def is_plain_json(data: object) -> bool:
    """True when ``data`` holds only dicts with string keys, lists and JSON scalars."""
    if isinstance(data, JSON_SCALARS):
        return True
    if isinstance(data, dict):
        return all(isinstance(key, str) and is_plain_json(value) for key, value in data.items())
    if isinstance(data, list):
        return all(is_plain_json(item) for item in data)
    return False


def skip_the_sdk_type_walk_for_plain_requests() -> None:
    """Let the OpenAI SDK send a plain-JSON chat request as it is (idempotent).

    Before each chat completion the SDK walks the whole body against its TypedDicts
    (``openai._utils._transform``) to rename aliased keys, format dates and files, dump
    pydantic models and turn iterables into lists. The chat completion parameters have
    no aliases and no formats, so for a body of plain dicts, lists and scalars (what
    litellm builds from our messages and tools) the walk returns an equal body; it cost
    ~10 ms of CPU per call, a third of a reply. Any other body still takes the walk.
    ``tests/lifeassistant/test_llm.py`` checks the two agree on a request with history,
    tool calls and tools.
    """
    from openai._utils import is_given
    from openai.resources.chat.completions import completions

    walk = completions.maybe_transform
    if getattr(walk, "skips_plain_json", False):
        return

    def maybe_transform(data: object, expected_type: object) -> Any:
        if isinstance(data, dict):
            # The SDK marks parameters not given with sentinels; the walk drops them too.
            given = {key: value for key, value in data.items() if is_given(value)}
            if is_plain_json(given):
                return given
        return walk(data, expected_type)

    maybe_transform.skips_plain_json = True  # type: ignore[attr-defined]
    completions.maybe_transform = maybe_transform


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
) -> ModelResponse:
    """Call the configured model, retrying transient provider errors with backoff.

    ``timeout`` and ``max_retries`` default to ``LLM_TIMEOUT_SECONDS`` and
    ``LLM_MAX_RETRIES``; a call made while a request waits passes a short budget.
    Raises ``LLMError`` once retries are exhausted or the provider refuses the request.
    """
    kwargs = _call_arguments(
        messages, tools=tools, temperature=temperature, note=note, response_format=response_format, timeout=timeout
    )
    if max_tokens is not None:
        kwargs["max_tokens"] = max_tokens
    response: ModelResponse = _with_retries(kwargs, max_retries)
    return response


class CompletionStream:
    """One streamed completion: iterate it for the text as it arrives, then ``response()``.

    ``close()`` closes the provider connection, so a stopped reply stops costing tokens.
    """

    def __init__(self, wrapper: Any, messages: list[dict[str, Any]], deadline: float | None = None) -> None:
        self._wrapper = wrapper
        self._messages = messages
        self._chunks: list[Any] = []
        self._deadline = deadline

    def __iter__(self) -> Iterator[str]:
        import openai  # already imported by litellm

        # What can break an open stream: the transient errors, or a provider error mid-answer.
        broken: tuple[type[Exception], ...] = (*_transient_errors(litellm_module()), openai.OpenAIError)
        try:
            for chunk in self._wrapper:
                self._chunks.append(chunk)
                text = chunk.choices[0].delta.content if chunk.choices else None
                if text:
                    yield text
                if self._deadline is not None and time.monotonic() > self._deadline:
                    self.close()
                    raise LLMError("The reply's deadline passed while the model was answering.", code=FailureCode.TIMEOUT)
                if self._wrapper.sent_stream_usage:
                    # litellm's last chunk, the usage. Asking for one more makes it rebuild
                    # the whole response for its logging a second time (two deep copies and
                    # a logging job), ~10% of a reply's worker CPU, only to stop.
                    break
        except broken as exc:
            _reraise_time_limit(exc)
            # Text already reached the user, so a retry would repeat it: the reply fails instead.
            raise LLMError(
                f"The language model stopped in the middle of its answer ({type(exc).__name__}).", code="model_interrupted"
            ) from exc

    def close(self) -> None:
        provider_stream = getattr(self._wrapper, "completion_stream", None)
        close = getattr(provider_stream, "close", None)
        if close is not None:
            try:
                close()
            except Exception:  # closing a half-read connection is best effort
                logger.debug("closing the model stream failed", exc_info=True)

    def response(self) -> ModelResponse:
        """The chunks read so far as one response: text, tool calls and usage.

        A stream closed early (a stopped reply) has no usage chunk: the usage is then
        estimated here (``lifeassistant.tokens``). litellm would count it with tiktoken,
        loading an encoding into the worker for good (+38 MiB per Celery child).
        """
        litellm = litellm_module()
        if not self._chunks:
            empty: ModelResponse = litellm.ModelResponse(
                choices=[{"index": 0, "message": {"role": "assistant", "content": ""}}]
            )
            return empty
        chunks = self._chunks
        if not any(getattr(chunk, "usage", None) for chunk in chunks):
            chunks = [*chunks, self._estimated_usage_chunk(litellm)]
        built: ModelResponse = litellm.stream_chunk_builder(chunks, messages=self._messages)
        return built

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


def stream_completion(
    messages: list[dict[str, Any]],
    *,
    tools: list[dict[str, Any]] | None = None,
    temperature: float | None = None,
    note: PipelineNote | None = None,
    deadline: float | None = None,
) -> CompletionStream:
    """``completion`` as a stream (usage included); opening it is retried like a call.

    ``deadline`` (``time.monotonic``) bounds the whole stream: a silent model waits at most
    until then, and a stream still going then is cut (``LLMError`` with ``timeout``)."""
    timeout = None
    if deadline is not None:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise LLMError("The reply's deadline passed before the model was asked.", code=FailureCode.TIMEOUT)
        timeout = min(settings.LLM_TIMEOUT_SECONDS, remaining)
    kwargs = _call_arguments(messages, tools=tools, temperature=temperature, note=note, timeout=timeout)
    kwargs.update(stream=True, stream_options={"include_usage": True})
    return CompletionStream(_with_retries(kwargs), messages, deadline)


def _call_arguments(
    messages: list[dict[str, Any]],
    *,
    tools: list[dict[str, Any]] | None,
    temperature: float | None,
    note: PipelineNote | None,
    response_format: dict[str, Any] | None = None,
    timeout: float | None = None,
) -> dict[str, Any]:
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
    return kwargs


def _with_retries(kwargs: dict[str, Any], max_retries: int | None = None) -> Any:
    import openai  # already imported by litellm; litellm's provider errors all derive from it

    litellm = litellm_module()
    transient = _transient_errors(litellm)
    attempts = (settings.LLM_MAX_RETRIES if max_retries is None else max_retries) + 1
    for attempt in range(1, attempts + 1):
        try:
            return litellm.completion(**kwargs)
        except transient as exc:
            _reraise_time_limit(exc)
            if attempt == attempts:
                raise LLMError(
                    f"The language model is unavailable ({type(exc).__name__}) after {attempts} attempts."
                ) from exc
            delay = settings.LLM_RETRY_BACKOFF_SECONDS * 2 ** (attempt - 1)
            logger.warning("llm transient error %s, attempt %d/%d, retrying in %.1fs",
                           type(exc).__name__, attempt, attempts, delay)
            time.sleep(delay)
        except openai.OpenAIError as exc:
            raise LLMError(f"The language model refused the request ({type(exc).__name__}).", code="model_refused") from exc
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


def response_cost(response: ModelResponse) -> float | None:
    """The provider cost of a response in USD, or None when litellm has no price for it."""
    if is_offline():
        return 0.0
    # stream_chunk_builder priced the streamed response already: not twice per model call.
    priced = getattr(response, "_hidden_params", {}).get("response_cost")
    if isinstance(priced, (int, float)):
        return float(priced)
    try:
        return float(litellm_module().completion_cost(completion_response=response))
    except Exception:  # unknown price: not an error for the user
        return None
