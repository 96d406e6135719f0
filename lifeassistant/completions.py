"""What a model call gives back, in the project's own terms: plain dataclasses.

``lifeassistant.llm`` returns these whichever way the answer was read (litellm, or the
lean reader of OpenAI-compatible streams), so no caller depends on a provider
library's response objects.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Protocol

from .failures import FailureCode


class LLMError(Exception):
    """The model could not produce an answer.

    The message is for the logs and the admin (it names the provider's error class);
    ``code`` says what kind of failure it was: a ``lifeassistant.failures.FailureCode``.
    """

    def __init__(self, message: str, *, code: str = FailureCode.MODEL_UNAVAILABLE) -> None:
        super().__init__(message)
        self.code = code


class OpenFailed(Exception):
    """Opening a model call failed; ``transient`` ones are worth another attempt.

    ``name`` is the kind of failure, as litellm's exception class names it. Raised by
    either reader, turned into an ``LLMError`` by ``llm``'s retries.
    """

    def __init__(self, name: str, *, transient: bool, detail: str = "") -> None:
        super().__init__(f"{name}: {detail}" if detail else name)
        self.name = name
        self.transient = transient


@dataclass(frozen=True)
class ToolCallRequest:
    """A tool call the model asked for; ``arguments`` is the JSON text as the model wrote it."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class Completion:
    """One answer of the model: its text, the tools it asked for, and what it cost.

    ``usage_reported`` is False when the provider sent no usage (a stream stopped or cut
    early): the token counts are then estimated (``lifeassistant.tokens``).
    ``cost`` is in USD, None when the model has no known price.
    """

    text: str = ""
    tool_calls: list[ToolCallRequest] = field(default_factory=list)
    finish_reason: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    usage_reported: bool = False
    model: str = ""
    cost: float | None = None


class CompletionStream(Protocol):
    """A streamed answer: iterate it for the text as it arrives.

    ``close()`` closes the provider connection (a stopped reply stops costing tokens);
    ``result()`` is what was read so far as one ``Completion``.
    """

    def __iter__(self) -> Iterator[str]: ...
    def close(self) -> None: ...
    def result(self) -> Completion: ...
