"""The project's patches to litellm, the OpenAI SDK and pydantic internals, in one place.

Each one saves memory or CPU in the worker (what and why in its docstring) by changing
a private detail of one release. They are applied only to the releases they were
written for (``PATCHED_FOR``, the versions pinned in ``pyproject.toml``): on any other
version a patch is skipped with a logged warning, and the library runs unpatched (slower
or larger, never wrong), until the patch is checked against the new release.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from importlib import metadata
from types import ModuleType
from typing import Any

logger = logging.getLogger(__name__)

PATCHED_FOR = {"litellm": "1.105.3", "openai": "2.54.0", "pydantic": "2.14.4"}


def installed_version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def written_for_installed(patch: str, *packages: str) -> bool:
    """True when every package ``patch`` changes is at the version it was written for."""
    others = [
        f"{package} {installed_version(package)} (written for {PATCHED_FOR[package]})"
        for package in packages
        if installed_version(package) != PATCHED_FOR[package]
    ]
    if others:
        logger.warning("patch %s skipped: %s", patch, ", ".join(others))
    return not others


def _only_for(*packages: str) -> Callable[[Callable[[], None]], Callable[[], bool]]:
    """Apply the decorated patch only on the versions it was written for; True when applied."""

    def decorate(patch: Callable[[], None]) -> Callable[[], bool]:
        @functools.wraps(patch)
        def apply() -> bool:
            if not written_for_installed(patch.__name__, *packages):
                return False
            patch()
            return True

        return apply

    return decorate


def apply_all(litellm: ModuleType) -> None:
    """Everything below, once litellm is imported (each is idempotent)."""
    del litellm  # imported by the caller: the patches import its submodules themselves
    skip_the_sdk_type_walk_for_plain_requests()
    release_the_parsed_anthropic_tokenizer()
    drop_the_stream_finalizer()
    price_streams_once_they_end()


@contextmanager
def deferred_pydantic_model_builds() -> Iterator[None]:
    """Let pydantic build a model's validator on its first use, not as its class is defined.

    litellm and the OpenAI SDK define a few thousand pydantic models at import, for every
    provider and endpoint; a chat completion uses a few dozen. Built eagerly they hold
    ~21 MiB of every worker process (``defer_build`` is pydantic's own per-model option;
    this sets its default while litellm is imported, and restores it). A model still
    validates exactly as before: the first validation builds it.
    """
    if not written_for_installed("deferred_pydantic_model_builds", "pydantic"):
        yield
        return
    from pydantic._internal import _config

    earlier = _config.config_defaults["defer_build"]
    _config.config_defaults["defer_build"] = True
    try:
        yield
    finally:
        _config.config_defaults["defer_build"] = earlier


@_only_for("litellm")
def price_streams_once_they_end() -> None:
    """Skip litellm's cost estimate of a stream as it opens.

    As a streamed call opens, litellm prices the stream wrapper, which has no output yet:
    it counts the whole prompt with the model's tokenizer (building cl100k, ~40 MiB per
    process, on the first call) for a figure nothing reads. The cost the project records
    is priced from the finished response's usage, as is litellm's end-of-stream log.
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


@_only_for("litellm")
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


@_only_for("litellm")
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


@_only_for("openai")
def skip_the_sdk_type_walk_for_plain_requests() -> None:
    """Let the OpenAI SDK send a plain-JSON chat request as it is.

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
