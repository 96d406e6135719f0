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
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from asgiref.sync import ThreadSensitiveContext
from django.core.handlers.asgi import ASGIHandler
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
    """Django's ASGI handler, serving the views marked ``@shares_threads`` on shared lanes."""

    def __init__(self) -> None:
        super().__init__()
        self._lanes = itertools.cycle(
            [ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"stream-lane-{number}") for number in range(LANES)]
        )

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or not _shares_threads(scope):
            await super().__call__(scope, receive, send)
            return
        # The outer context wins: Django's own ThreadSensitiveContext inside it is a no-op.
        async with ThreadSensitiveContext(executor=next(self._lanes)):
            await super().__call__(scope, receive, send)


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
