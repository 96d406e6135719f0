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

Every other request has a synchronous view (DRF's, the pages') and is served the way
Django serves WSGI, on one hop to the request's thread: its middleware chain is built
synchronous (``SyncViewsHandler``) and entered once. Django's own ASGI handler builds one
asynchronous chain for every view, and a synchronous view behind synchronous middleware
then crosses between the event loop and the request's thread ~24 times a request
(each ``MiddlewareMixin`` hook, each ``process_view``, the signals): ``GET /livez`` took
1.78 ms of CPU in process against 0.23 ms through the test client.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from asgiref.sync import ThreadSensitiveContext, iscoroutinefunction, sync_to_async
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


class SyncViewsHandler(ASGIHandler):
    """Django's ASGI handler with its middleware chain built synchronous, for synchronous views.

    ``handle`` (the body, the signals, the disconnect watch, sending the response) is
    Django's; only ``get_response_async`` differs: the whole chain runs in one
    ``sync_to_async`` call on the request's thread, as ``WSGIHandler`` runs it.
    """

    def __init__(self) -> None:
        BaseHandler.__init__(self)  # not ASGIHandler's, which builds the asynchronous chain
        self.load_middleware(is_async=False)

    async def get_response_async(self, request: HttpRequest) -> HttpResponseBase:
        return await sync_to_async(self.get_response, thread_sensitive=True)(request)


class LanedASGIHandler(ASGIHandler):
    """The project's ASGI handler: synchronous views on one hop, the marked streams on shared lanes.

    An asynchronous view not marked keeps Django's own handling (a thread of its own).
    """

    def __init__(self) -> None:
        super().__init__()  # the asynchronous chain, for the asynchronous views
        self._sync_views = SyncViewsHandler()
        self._lanes = itertools.cycle(
            [ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"stream-lane-{number}") for number in range(LANES)]
        )

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)  # refused as Django refuses it
            return
        view = _view(scope)
        if view is None or not iscoroutinefunction(view):
            # A path that resolves to nothing is a synchronous 404 (or CommonMiddleware's redirect).
            await self._sync_views(scope, receive, send)
        elif getattr(view, "shares_threads", False):
            # The outer context wins: Django's own ThreadSensitiveContext inside it is a no-op.
            async with ThreadSensitiveContext(executor=next(self._lanes)):
                await super().__call__(scope, receive, send)
        else:
            await super().__call__(scope, receive, send)


def _view(scope: dict[str, Any]) -> Callable[..., Any] | None:
    path = scope["path"]
    root = scope.get("root_path", "")
    if root and path.startswith(root):
        path = path[len(root):]
    try:
        return resolve(path).func
    except Resolver404:
        return None
