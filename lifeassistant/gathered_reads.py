"""Model streams read in gathers, not a wake-up per chunk.

A model sends a chunk every ~20 ms, and a reply publishes its text in batches
(``EVENTS_BATCH_SECONDS``, longer under load): reading each chunk as it lands wakes the
reply's thread, takes the GIL and parses one chunk, 50 times a second per reply, for
text that waits for the next batch anyway. With hundreds of replies in one process
those wake-ups are most of its CPU. A stream read through this transport waits, after a
read, until the reader's gather interval has passed before it reads the socket again:
what arrived meanwhile sits in the kernel's buffer and comes back in one read.

The interval is the calling thread's (``set_gather_seconds``), set by the reader once the answer's
first text arrived, so the first chunk is read the moment it lands; 0 (the default) reads
as plain httpx does. The transport is httpcore's connection pool, as httpx's own, with a
network backend that wraps each connection's stream.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Iterable
from typing import Any, cast

import httpcore
import httpx

_reader = threading.local()
# Module-level so a test can put a fake clock in.
_clock = time.monotonic
_sleep = time.sleep


def gather_seconds() -> float:
    """The calling thread's gather interval (0: every read at once)."""
    return getattr(_reader, "seconds", 0.0)


def set_gather_seconds(seconds: float) -> float:
    """Set this thread's interval for the reads that follow; the previous one, to restore."""
    previous = gather_seconds()
    _reader.seconds = seconds
    return previous


class GatheringStream(httpcore.NetworkStream):
    """A connection whose reads wait for the gather interval after the previous read.

    Writing (a new request on a kept connection) resets the wait: a response's first
    bytes are read at once.
    """

    def __init__(self, stream: httpcore.NetworkStream) -> None:
        self._stream = stream
        self._next_read = 0.0

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        seconds = gather_seconds()
        if seconds > 0:
            wait = self._next_read - _clock()
            if wait > 0:
                _sleep(wait)
        data = self._stream.read(max_bytes, timeout)
        self._next_read = _clock() + seconds if seconds > 0 else 0.0
        return data

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._next_read = 0.0
        self._stream.write(buffer, timeout)

    def close(self) -> None:
        self._stream.close()

    def start_tls(self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None) -> GatheringStream:
        return GatheringStream(self._stream.start_tls(ssl_context, server_hostname, timeout))

    def get_extra_info(self, info: str) -> Any:
        return self._stream.get_extra_info(info)


class GatheringBackend(httpcore.NetworkBackend):
    """httpcore's synchronous backend, each connection's stream a ``GatheringStream``."""

    def __init__(self) -> None:
        self._backend = httpcore.SyncBackend()

    def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                    socket_options: Iterable[Any] | None = None) -> httpcore.NetworkStream:
        return GatheringStream(self._backend.connect_tcp(host, port, timeout, local_address, socket_options))

    def connect_unix_socket(self, path: str, timeout: float | None = None,
                            socket_options: Iterable[Any] | None = None) -> httpcore.NetworkStream:
        return GatheringStream(self._backend.connect_unix_socket(path, timeout, socket_options))

    def sleep(self, seconds: float) -> None:
        self._backend.sleep(seconds)


class GatheringTransport(httpx.HTTPTransport):
    """httpx's HTTP/1.1 transport, its httpcore pools on the gathering backend.

    httpx builds its pool in ``__init__`` and takes no network backend, so the pools are
    built here as httpx builds its one (the default TLS context, the limits given), in
    ``SHARDS`` shards (``ShardedPool``). Everything else is httpx's own: the request, the
    errors, and the tracing instrumentation of ``HTTPTransport.handle_request`` (a test
    pins that this still holds: the provider's HTTP call is a span of its model round).
    """

    def __init__(self, limits: httpx.Limits) -> None:
        ssl_context = httpx.create_ssl_context()  # one for all shards: each costs ~1 ms to make
        shards = SHARDS if (limits.max_connections or SHARDS) >= SHARDS else 1

        def share(limit: int | None) -> int | None:
            return None if limit is None else max(1, -(-limit // shards))

        # httpx types its pool as httpcore's; it calls only what ShardedPool has: handle_request,
        # close and the context manager's two methods.
        self._pool = cast(httpcore.ConnectionPool, ShardedPool([
            httpcore.ConnectionPool(
                ssl_context=ssl_context,
                max_connections=share(limits.max_connections),
                max_keepalive_connections=share(limits.max_keepalive_connections),
                keepalive_expiry=limits.keepalive_expiry,
                network_backend=GatheringBackend(),
            )
            for _ in range(shards)
        ]))


# httpcore's pool does its bookkeeping on each request's start and end in time quadratic in
# its connections (1.0.9: for each idle connection it lists them all). With 200 streams in
# one pool that was ~3,700 calls a request, 1.5 million for 100 replies, most of the pool's
# CPU; spread over 16 shards a shard holds about a sixteenth of them.
SHARDS = 16


class ShardedPool:
    """Several httpcore pools behind one pool's interface, requests dealt round-robin.

    A request goes to the next shard; a connection kept alive there is reused by the next
    request that shard gets (a shard's idle connections are its own).
    """

    def __init__(self, shards: list[httpcore.ConnectionPool]) -> None:
        self.shards = shards
        self._turn = itertools.count()  # next() on a count is atomic under the GIL

    def handle_request(self, request: httpcore.Request) -> httpcore.Response:
        return self.shards[next(self._turn) % len(self.shards)].handle_request(request)

    @property
    def connections(self) -> list[Any]:
        return [connection for shard in self.shards for connection in shard.connections]

    def close(self) -> None:
        for shard in self.shards:
            shard.close()

    def __enter__(self) -> ShardedPool:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()
