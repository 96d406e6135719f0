"""Structured logs: who and what a log line is about, without what anyone wrote.

``LOG_FORMAT=json`` writes one JSON object per line (python-json-logger). Every line,
plain or JSON, carries the ids of its request or reply from a context variable:
``request_id`` (the client's ``X-Request-ID`` when it is a plain token, else made here,
and returned in the response), ``trace_id`` (while tracing is on), ``message_id``,
``conversation_id`` and ``user_id``. No message text, password or token is ever put
there; log calls name rows by id.
"""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.utils.functional import SimpleLazyObject, empty

REQUEST_ID_HEADER = "X-Request-ID"
# A client's id is kept when it is a plain token (a UUID, a proxy's hex id ...): anything
# else could forge log lines or carry text.
_CLIENT_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")

FIELDS = ("request_id", "trace_id", "message_id", "conversation_id", "user_id")

_context: ContextVar[dict[str, Any] | None] = ContextVar("log_context", default=None)
_request: ContextVar[HttpRequest | None] = ContextVar("log_request", default=None)


def bind(**ids: Any) -> None:
    """Add ids (``message_id=``, ``conversation_id=``, ``user_id=``) to this context's log lines."""
    _context.set({**(_context.get() or {}), **{key: value for key, value in ids.items() if value is not None}})


@contextmanager
def bound(**ids: Any) -> Iterator[None]:
    """``bind`` for a block: the ids go when it ends (a reply's thread runs the next reply,
    and an inline reply's request goes on after it)."""
    token = _context.set({**(_context.get() or {}), **{key: value for key, value in ids.items() if value is not None}})
    try:
        yield
    finally:
        _context.reset(token)


def clear() -> None:
    _context.set(None)
    _request.set(None)


def current_ids() -> dict[str, Any]:
    ids = dict(_context.get() or {})
    request = _request.get()
    if request is not None and "user_id" not in ids:
        user_id = _resolved_user_id(request)
        if user_id is not None:
            ids["user_id"] = user_id
    return ids


def _resolved_user_id(request: HttpRequest) -> int | None:
    """The request's user id once authentication has resolved it; never a query from a log call."""
    user = request.__dict__.get("user")
    if isinstance(user, SimpleLazyObject):
        user = user._wrapped
        if user is empty:
            return None
    return getattr(user, "pk", None) if getattr(user, "is_authenticated", False) else None


class ContextFilter(logging.Filter):
    """Puts the context's ids on every record (None where unknown)."""

    def filter(self, record: logging.LogRecord) -> bool:
        ids = current_ids()
        for name in FIELDS:
            if not hasattr(record, name):
                setattr(record, name, ids.get(name))
        if record.trace_id is None:  # type: ignore[attr-defined]
            record.trace_id = _trace_id()
        return True


def _trace_id() -> str | None:
    from . import tracing

    return tracing.current_trace_id()


def request_id_for(header: str | None) -> str:
    if header and _CLIENT_ID.fullmatch(header):
        return header
    return uuid.uuid4().hex


class RequestIdMiddleware:
    """Gives each request its ``request_id`` (logged, and returned in ``X-Request-ID``)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        request_id = request_id_for(request.headers.get(REQUEST_ID_HEADER))
        context_token = _context.set({"request_id": request_id})
        request_token = _request.set(request)
        try:
            response = self.get_response(request)
        finally:
            _context.reset(context_token)
            _request.reset(request_token)
        response[REQUEST_ID_HEADER] = request_id
        return response

    def process_view(self, request: HttpRequest, view: Any, args: Any, kwargs: dict[str, Any]) -> None:
        """Name the conversation or message the address is about."""
        if "conversation_id" in kwargs:
            bind(conversation_id=kwargs["conversation_id"])
        elif "pk" in kwargs and request.resolver_match is not None:
            name = request.resolver_match.url_name or ""
            if name.startswith("conversation"):
                bind(conversation_id=kwargs["pk"])
            elif name.startswith("message"):
                bind(message_id=kwargs["pk"])


def logging_config(log_format: str, level: str) -> dict[str, Any]:
    """Django's ``LOGGING`` for ``LOG_FORMAT`` (plain or json)."""
    formatters: dict[str, Any] = {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"},
        "json": {
            "()": "pythonjsonlogger.json.JsonFormatter",
            "fmt": "%(asctime)s %(levelname)s %(name)s %(message)s " + " ".join(f"%({name})s" for name in FIELDS),
            "rename_fields": {"asctime": "time", "levelname": "level", "name": "logger"},
        },
    }
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"context": {"()": "lifeassistant.observability.logs.ContextFilter"}},
        "formatters": formatters,
        "handlers": {"console": {"class": "logging.StreamHandler", "formatter": log_format, "filters": ["context"]}},
        "root": {"handlers": ["console"], "level": level},
        "loggers": {"LiteLLM": {"level": "WARNING"}, "httpx": {"level": "WARNING"}},
    }
