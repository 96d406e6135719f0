"""Long-lived responses share a few threads instead of holding one each.

Django's ASGI handler serves each request inside a ``ThreadSensitiveContext``: the
request's synchronous steps (its middleware, its ``sync_to_async`` calls) run on a thread
of its own, which lives until the response ends. For a request answered at once that
costs nothing; for an event stream open for minutes it is an idle thread per reader
(~115 KiB each: 1,000 open streams took one web process from 138 to 253 MiB).

A view marked ``@shares_threads`` is served instead on one of ``LANES`` threads kept for
the process's life (asgiref's ``ThreadSensitiveContext(executor=...)``): its synchronous
steps queue behind the other streams' steps on that lane. That suits a view whose
synchronous steps are short and self-contained, each handing its database connection
back when it returns (``lifeassistant.db.release_connections``): a lane's connection is
shared by the streams it serves, so no transaction may span two steps.

Every request crosses from the event loop to its thread once: the middleware chain is
built synchronous and entered in one ``sync_to_async`` call, the way Django serves WSGI.
Django's own ASGI handler builds an asynchronous chain, and synchronous middleware in
front of a synchronous view then crossed between the loop and the request's thread ~24
times a request (each ``MiddlewareMixin`` hook, each ``process_view``, the signals):
``GET /livez`` took 1.78 ms of CPU in process against 0.23 ms through the test client,
and 3.1 ms against 1.3 ms through gunicorn and uvicorn. The one asynchronous view, the
event stream, is run from the chain by Django itself (``async_to_sync``), and its own
``sync_to_async`` steps come back to the same thread.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from asgiref.sync import ThreadSensitiveContext, sync_to_async
from django.core.handlers.asgi import ASGIHandler
from django.core.handlers.base import BaseHandler
from django.http import HttpRequest
from django.http.response import HttpResponseBase
from django.urls import Resolver404, resolve

# A stream's steps take milliseconds; a few lanes keep one slow step (a database at its
# pool's timeout) from holding every stream of the process behind it.
LANES = 4

View = TypeVar("View", bound=Callable[..., Any])


def shares_threads(view: View) -> View:
    """Mark ``view`` to be served on the process's shared lanes (see the module's docstring)."""
    view.shares_threads = True  # type: ignore[attr-defined]
    return view


class LanedASGIHandler(ASGIHandler):
    """Django's ASGI handler with one synchronous middleware chain, entered once a request;
    the views marked ``@shares_threads`` are served on the shared lanes.

    ``handle`` (the body, the signals, the disconnect watch, sending the response) is
    Django's; only ``get_response_async`` differs: the whole chain runs in one
    ``sync_to_async`` call on the request's thread, as ``WSGIHandler`` runs it. An
    asynchronous view (the event stream) is run from there by Django itself
    (``async_to_sync``): its own ``sync_to_async`` steps come back to that thread.
    """

    def __init__(self) -> None:
        BaseHandler.__init__(self)  # not ASGIHandler's, which builds the asynchronous chain
        self.load_middleware(is_async=False)
        self._lanes = itertools.cycle(
            [ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"stream-lane-{number}") for number in range(LANES)]
        )

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and _shares_threads(scope):
            # The outer context wins: Django's own ThreadSensitiveContext inside it is a no-op.
            async with ThreadSensitiveContext(executor=next(self._lanes)):
                await super().__call__(scope, receive, send)
            return
        await super().__call__(scope, receive, send)

    async def get_response_async(self, request: HttpRequest) -> HttpResponseBase:
        return await sync_to_async(self.get_response, thread_sensitive=True)(request)


def _shares_threads(scope: dict[str, Any]) -> bool:
    path = scope["path"]
    root = scope.get("root_path", "")
    if root and path.startswith(root):
        path = path[len(root):]
    try:
        match = resolve(path)
    except Resolver404:
        return False
    return bool(getattr(match.func, "shares_threads", False))
