"""Why a reply failed, as a stable code: the one list, shared by the model gateway (its
``LLMError.code``) and the chat app (which gives each code a sentence for the user)."""

from __future__ import annotations

from enum import StrEnum


class FailureCode(StrEnum):
    TIMEOUT = "timeout"  # the reply's deadline passed (a silent model, a spent time budget)
    MODEL_UNAVAILABLE = "model_unavailable"  # transient provider errors, retries exhausted
    MODEL_INTERRUPTED = "model_interrupted"  # the stream broke after text reached the user
    MODEL_REFUSED = "model_refused"  # the provider refused the request (4xx)
    NOT_QUEUED = "not_queued"  # the task never reached, or never left, the queue
    INTERNAL = "internal"  # a bug: the traceback is in the logs
