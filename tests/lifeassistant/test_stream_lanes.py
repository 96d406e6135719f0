"""Open event streams share a few threads (lifeassistant/stream_lanes.py).

Each open stream used to keep an idle thread of its own for as long as it was open (Django
runs a request's synchronous middleware on a thread that lives until its response ends):
1,000 readers were 1,000 threads. A view marked ``@shares_threads`` runs on the lanes.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any
from unittest import mock

import pytest
from asgiref.sync import SyncToAsync, async_to_sync
from asgiref.testing import ApplicationCommunicator

from chat.api.streaming import reply_events
from lifeassistant.stream_lanes import LANES, LanedASGIHandler
from tests.lifeassistant import lanes_urls


@pytest.fixture
def handler(settings: Any) -> LanedASGIHandler:
    settings.ROOT_URLCONF = "tests.lifeassistant.lanes_urls"
    settings.ALLOWED_HOSTS = ["testserver"]
    lanes_urls.threads_seen.clear()
    return LanedASGIHandler()


def _scope(path: str) -> dict[str, Any]:
    return {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET", "scheme": "http",
        "path": path, "raw_path": path.encode(), "root_path": "", "query_string": b"",
        "headers": [(b"host", b"testserver")], "server": ("testserver", 80), "client": ("127.0.0.1", 50000),
    }


async def _open_then_end(handler: LanedASGIHandler, paths: list[str]) -> tuple[int, int, list[bytes]]:
    """Open a stream at each path, then end them.

    Returns (threads more while all were open, how many of the views' threads were alive then,
    bodies). The first can be lowered by a thread of an earlier test ending meanwhile, so a lower
    bound on threads held reads the second.
    """
    lanes_urls.release = asyncio.Event()
    before = threading.active_count()
    communicators = [ApplicationCommunicator(handler, _scope(path)) for path in paths]
    for communicator in communicators:
        await communicator.send_input({"type": "http.request", "body": b"", "more_body": False})
    for communicator in communicators:
        assert (await communicator.receive_output(5))["status"] == 200
        assert (await communicator.receive_output(5))["body"] == b"open\n"
    threads_added = threading.active_count() - before
    alive = {thread.ident for thread in threading.enumerate()}
    views_threads_alive = len(set(lanes_urls.threads_seen) & alive)
    lanes_urls.release.set()
    bodies = []
    for communicator in communicators:
        bodies.append((await communicator.receive_output(5))["body"])
        await communicator.wait(5)
    return threads_added, views_threads_alive, bodies


def test_twenty_open_streams_of_a_sharing_view_hold_no_thread_each(handler: LanedASGIHandler) -> None:
    threads_added, _, bodies = async_to_sync(_open_then_end)(handler, [f"/shared/{n}/" for n in range(20)])

    assert bodies == [b"done\n"] * 20  # each stream still streams to its end
    assert len(set(lanes_urls.threads_seen)) <= LANES
    assert threads_added <= LANES


def test_a_view_not_marked_keeps_a_thread_of_its_own_per_request(handler: LanedASGIHandler) -> None:
    _, views_threads_alive, _ = async_to_sync(_open_then_end)(handler, [f"/own/{n}/" for n in range(6)])

    assert len(set(lanes_urls.threads_seen)) == 6  # Django's behaviour, left as it is
    assert views_threads_alive == 6  # each held for as long as its stream is open


def test_the_reply_event_stream_shares_threads() -> None:
    assert getattr(reply_events, "shares_threads", False)


async def _get(handler: LanedASGIHandler, path: str) -> tuple[dict[str, Any], bytes]:
    communicator = ApplicationCommunicator(handler, _scope(path))
    await communicator.send_input({"type": "http.request", "body": b"", "more_body": False})
    start = await communicator.receive_output(5)
    body = await communicator.receive_output(5)
    await communicator.wait(5)
    return start, body["body"]


def _crossings() -> tuple[list[str], Any]:
    """The loop-to-thread crossings (``sync_to_async`` calls) made while the patch is on."""
    calls: list[str] = []
    original = SyncToAsync.__call__

    def counted(self: SyncToAsync, *args: Any, **kwargs: Any) -> Any:
        calls.append(getattr(self.func, "__qualname__", repr(self.func)))
        return original(self, *args, **kwargs)

    return calls, mock.patch.object(SyncToAsync, "__call__", counted)


def test_a_synchronous_view_runs_behind_its_middleware_on_one_hop_to_its_thread(handler: LanedASGIHandler) -> None:
    """Django's asynchronous chain crossed ~24 times between the loop and the request's thread
    for a synchronous view behind synchronous middleware (GET /livez: 1.78 ms of CPU in
    process against 0.23 ms through the test client); the synchronous chain is entered once."""
    calls, counting = _crossings()
    with counting:
        start, body = async_to_sync(_get)(handler, "/plain/")

    assert start["status"] == 200 and body == b"plain\n"
    headers = {name.lower(): value for name, value in start["headers"]}
    assert headers[b"x-request-id"]  # the outermost middleware ran
    assert headers[b"x-frame-options"] == b"DENY"  # and the innermost
    # The request_started signal, the whole chain with the view, the response's close.
    assert len(calls) <= 3, calls


def test_a_path_that_resolves_to_nothing_still_gets_the_projects_404(handler: LanedASGIHandler) -> None:
    start, _ = async_to_sync(_get)(handler, "/nowhere/")

    assert start["status"] == 404
    assert b"x-request-id" in {name.lower() for name, _ in start["headers"]}


def test_an_event_stream_enters_the_same_chain_once_and_still_streams(handler: LanedASGIHandler) -> None:
    calls, counting = _crossings()

    async def open_and_end() -> tuple[dict[str, Any], list[bytes]]:
        lanes_urls.release = asyncio.Event()
        communicator = ApplicationCommunicator(handler, _scope("/shared/1/"))
        await communicator.send_input({"type": "http.request", "body": b"", "more_body": False})
        start = await communicator.receive_output(5)
        first = (await communicator.receive_output(5))["body"]
        lanes_urls.release.set()
        last = (await communicator.receive_output(5))["body"]
        await communicator.wait(5)
        return start, [first, last]

    with counting:
        start, bodies = async_to_sync(open_and_end)()

    assert start["status"] == 200 and bodies == [b"open\n", b"done\n"]
    assert b"x-request-id" in {name.lower() for name, _ in start["headers"]}
    # The signal, the chain, the view's own step, the response's close.
    assert len(calls) <= 4, calls
