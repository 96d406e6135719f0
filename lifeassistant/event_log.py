"""The per-reply event log: what a reply did so far, for Server-Sent Events clients.

The worker appends (text deltas, tool progress, status changes, one final event); the
SSE view replays the log from the start or after an id, then follows it live. Two
implementations of one interface: a Redis Stream per reply when Redis is configured
(``EVENTS_REDIS_URL``), and an in-process log on the embedded defaults, where the reply
runs in a thread of the web process.

Ids are Redis-stream style ``"<ms>-<seq>"`` strings in both, increasing within a reply.
Nothing is appended after a final event, so each reply has at most one.
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
import time
import weakref
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import redis
import redis.asyncio as aredis
from django.conf import settings

# "deleted": the reply went with its conversation; readers get an error event and the end.
FINAL_TYPES = frozenset({"done", "failed", "cancelled", "deleted"})
# The user stopped the reply: only its final event may follow (``EventLog.stop``).
STOPPING = "stopping"
ENDED_TYPES = FINAL_TYPES | {STOPPING}
# ASCII digits only (\d also takes "١٢٣" and "１"), each part a 64-bit unsigned integer as
# Redis Stream ids are: anything else is refused here, not by Redis as if it were down.
EVENT_ID = re.compile(r"[0-9]{1,20}-[0-9]{1,20}")
_MAX_ID_PART = 2**64 - 1


class EventLogUnavailable(Exception):
    """The log's store cannot be reached (Redis down): clients fall back to polling."""


@dataclass(frozen=True)
class Event:
    id: str
    type: str
    data: dict[str, Any]

    @property
    def final(self) -> bool:
        return self.type in FINAL_TYPES


def text_of(events: list[Event]) -> str:
    """The text the deltas of ``events`` spell, from the last restart of the run on."""
    pieces: list[str] = []
    for event in events:
        if event.type == "delta":
            pieces.append(event.data.get("text", ""))
        elif event.type == "status" and event.data.get("restarted"):
            pieces.clear()
    return "".join(pieces)


def parse_id(event_id: str) -> tuple[int, int]:
    """``"<ms>-<seq>"`` as a sortable pair; ``ValueError`` for anything else."""
    if not EVENT_ID.fullmatch(event_id):
        raise ValueError(f"not an event id: {event_id!r}")
    ms, seq = (int(part) for part in event_id.split("-"))
    if ms > _MAX_ID_PART or seq > _MAX_ID_PART:
        raise ValueError(f"not an event id: {event_id!r}")
    return ms, seq


class EventLog(ABC):
    """One log per reply, keyed by the reply's id."""

    @abstractmethod
    def append(self, reply_id: int, type: str, data: dict[str, Any]) -> str | None:
        """Add an event; its id, or None when the log already ended (a final event is in it)."""

    @abstractmethod
    def read(self, reply_id: int, after: str | None = None) -> list[Event]:
        """The events after ``after`` (all of them when None), oldest first, without waiting."""

    def follow(self, reply_id: int, after: str | None, heartbeat: float) -> AsyncIterator[list[Event]]:
        """The events after ``after`` as they come, in batches; an empty batch after each
        ``heartbeat`` seconds without any. Raises ``EventLogUnavailable`` when the store is lost."""
        return self._follow(reply_id, after, heartbeat)

    async def _follow(self, reply_id: int, after: str | None, heartbeat: float) -> AsyncIterator[list[Event]]:
        while True:
            events = await self.wait(reply_id, after, heartbeat)
            if events:
                after = events[-1].id
            yield events

    @abstractmethod
    async def wait(self, reply_id: int, after: str | None, timeout: float) -> list[Event]:
        """The events after ``after``, waiting up to ``timeout`` seconds for the first one."""

    def stop(self, reply_id: int) -> str | None:
        """Mark the reply stopped: no more text is accepted, only its final event. The text
        it had (``text``), or None when the log had already ended."""
        if self.append(reply_id, STOPPING, {}) is None:
            return None
        return self.text(reply_id)

    def text(self, reply_id: int) -> str:
        """The reply's text so far: its deltas since its current run started."""
        return text_of(self.read(reply_id))

    @abstractmethod
    def stopped(self, reply_id: int) -> bool:
        """Whether the log was stopped or has ended: no more text will be accepted."""

    @abstractmethod
    def find(self, reply_id: int, event_id: str) -> Event | None:
        """The event ``event_id`` of this reply's log, or None when it holds no such event."""

    @abstractmethod
    def exists(self, reply_id: int) -> bool:
        """Whether the reply has a log (none yet, or it expired)."""

    @abstractmethod
    def clear(self, reply_id: int) -> None:
        """Drop the log (a retried reply starts a new one)."""


# --------------------------------------------------------------------------- Redis


# Append unless the log already ended; after a stop marker only a final event may follow.
# A final event shortens the expiry. One script, so two writers racing to end a reply
# (the worker, a cancel) cannot both add a final event, and a delta never lands after
# the stop that answered the user with the text before it.
APPEND_SCRIPT = """
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
local final = (ARGV[2] == 'done' or ARGV[2] == 'failed' or ARGV[2] == 'cancelled')
if last[1] then
  local fields = last[1][2]
  for i = 1, #fields, 2 do
    if fields[i] == 'type' then
      local kind = fields[i + 1]
      if kind == 'done' or kind == 'failed' or kind == 'cancelled' then
        return false
      end
      if kind == 'stopping' and not final then
        return false
      end
    end
  end
end
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', 'type', ARGV[2], 'data', ARGV[3])
if final then
  redis.call('EXPIRE', KEYS[1], ARGV[4])
else
  redis.call('EXPIRE', KEYS[1], ARGV[5])
end
return id
"""


class RedisEventLog(EventLog):
    """A Redis Stream per reply: ``XADD`` with an approximate length cap, expiring
    ``ttl`` seconds after the final event (``running_ttl`` after any other event, so the
    log of a reply whose worker vanished goes away too)."""

    def __init__(self, url: str, *, cap: int, ttl: int, running_ttl: int, prefix: str = "reply-events:") -> None:
        self.url = url
        self.cap = cap
        self.ttl = ttl
        self.running_ttl = running_ttl
        self.prefix = prefix
        # Short timeouts: a Redis outage must not hold the worker's reply up.
        self._client = redis.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=5)
        self._append = self._client.register_script(APPEND_SCRIPT)

    def key(self, reply_id: int) -> str:
        return f"{self.prefix}{reply_id}"

    def append(self, reply_id: int, type: str, data: dict[str, Any]) -> str | None:
        payload = json.dumps(data, ensure_ascii=False, default=str)
        try:
            added = self._append(keys=[self.key(reply_id)], args=[self.cap, type, payload, self.ttl, self.running_ttl])
        except redis.RedisError as exc:
            raise EventLogUnavailable(str(exc)) from exc
        return _text(added) if added else None

    def read(self, reply_id: int, after: str | None = None) -> list[Event]:
        start = f"({after}" if after else "-"
        try:
            entries: Any = self._client.xrange(self.key(reply_id), min=start, max="+")
        except redis.RedisError as exc:
            raise EventLogUnavailable(str(exc)) from exc
        return [_event(entry_id, fields) for entry_id, fields in entries]

    async def wait(self, reply_id: int, after: str | None, timeout: float) -> list[Event]:
        async for events in self.follow(reply_id, after, timeout):
            return events
        return []  # pragma: no cover - follow never ends by itself

    def follow(self, reply_id: int, after: str | None, heartbeat: float) -> AsyncIterator[list[Event]]:
        return _hub_for(self.url).follow(self.key(reply_id), after, heartbeat)

    def find(self, reply_id: int, event_id: str) -> Event | None:
        try:
            entries: Any = self._client.xrange(self.key(reply_id), min=event_id, max=event_id, count=1)
        except redis.RedisError as exc:
            raise EventLogUnavailable(str(exc)) from exc
        return _event(*entries[0]) if entries else None

    def exists(self, reply_id: int) -> bool:
        try:
            return bool(self._client.exists(self.key(reply_id)))
        except redis.RedisError as exc:
            raise EventLogUnavailable(str(exc)) from exc

    def stopped(self, reply_id: int) -> bool:
        try:
            last: Any = self._client.xrevrange(self.key(reply_id), count=1)
        except redis.RedisError as exc:
            raise EventLogUnavailable(str(exc)) from exc
        return bool(last) and _event(*last[0]).type in ENDED_TYPES

    def clear(self, reply_id: int) -> None:
        try:
            self._client.delete(self.key(reply_id))
        except redis.RedisError as exc:
            raise EventLogUnavailable(str(exc)) from exc


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _event(entry_id: Any, fields: Any) -> Event:
    decoded = {_text(k): _text(v) for k, v in fields.items()}
    return Event(_text(entry_id), decoded["type"], json.loads(decoded["data"]))


# --------------------------------------------------------------------------- the readers' hub

# Connections a process's readers share, besides the one blocking read: for catching up a
# reader that joins a log others follow, and to wake the blocking read for a new log.
HUB_POOL_CONNECTIONS = 4
# The blocking read returns at least this often (milliseconds), even with nothing new.
HUB_BLOCK_MS = 5000
# After a read that brought events, the next waits a moment for the other logs' batches:
# 100 streams relaying a reply each were ~100 XREADs a second, each naming every log;
# gathered, a read brings many logs' events (web CPU of a 100-person burst -17 %).
# A quarter millisecond a log followed, at most 25 ms: one reader alone waits for nothing.
HUB_GATHER_SECONDS_PER_LOG = 0.00025
HUB_MAX_GATHER_SECONDS = 0.025


class _Subscriber:
    """A reader's mailbox: what the hub read for it, and the future it waits on when empty.

    Not an ``asyncio.Queue``: that is three deques (~2 KiB), and waiting on it with a
    timeout made a task per wait; a thousand open streams held ~2.5 MiB of them
    (docs/performance.md, eighth pass). A list and one future do the same here: one hub
    puts, one reader takes, on the same event loop.
    """

    __slots__ = ("items", "waiter")

    def __init__(self) -> None:
        self.items: list[list[Event] | BaseException] = []
        self.waiter: asyncio.Future[None] | None = None

    def put(self, item: list[Event] | BaseException) -> None:
        self.items.append(item)
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(None)

    async def next(self, timeout: float) -> list[Event] | BaseException:
        """The next item, in the order put, waiting at most ``timeout`` (``TimeoutError``)."""
        if not self.items:
            self.waiter = asyncio.get_running_loop().create_future()
            try:
                # A future, not a coroutine: wait_for makes no task for it.
                await asyncio.wait_for(self.waiter, timeout)
            finally:
                self.waiter = None
        return self.items.pop(0)


class ReadersHub:
    """One blocking ``XREAD`` for every log this process's readers follow.

    A reader per connection would hold a connection per open stream (and, before, opened
    one per wait); here 1,000 open streams share 1 + ``HUB_POOL_CONNECTIONS`` connections per
    event loop. A reader joining wakes the read (``CLIENT UNBLOCK``) so it starts at once.
    The hub's task is its own: a reader that goes away (cancelled) only leaves its set.
    """

    def __init__(self, url: str) -> None:
        self.url = url
        self.pool = aredis.BlockingConnectionPool.from_url(
            url, max_connections=HUB_POOL_CONNECTIONS, timeout=5, socket_connect_timeout=2, socket_timeout=5
        )
        self.client = aredis.Redis(connection_pool=self.pool)
        self.subscribers: dict[str, set[_Subscriber]] = {}
        self.positions: dict[str, str] = {}
        self.task: asyncio.Task[None] | None = None
        self.reader_id: int | None = None
        self.blocked_on: frozenset[str] = frozenset()

    async def follow(self, key: str, after: str | None, heartbeat: float) -> AsyncIterator[list[Event]]:
        subscriber = _Subscriber()
        position = after or "0-0"
        known = self.positions.get(key)
        self.subscribers.setdefault(key, set()).add(subscriber)
        try:
            if known is None:
                self.positions[key] = position  # the hub reads the log from where this reader is
            elif _later(known, position):
                # Others follow this log and the hub is past this reader: catch it up to the
                # hub's position; what comes after reaches its queue.
                entries: Any = await self.client.xrange(key, min=f"({position}", max=known)
                caught_up = [_event(entry_id, fields) for entry_id, fields in entries]
                if caught_up:
                    position = caught_up[-1].id
                    yield caught_up
            self._ensure_running()
            if key not in self.blocked_on:
                await self._wake()
            while True:
                try:
                    item = await subscriber.next(heartbeat)
                except TimeoutError:
                    self._ensure_running()  # the read may have ended just as this reader joined
                    yield []
                    continue
                if isinstance(item, BaseException):
                    raise EventLogUnavailable(str(item)) from item
                fresh = [event for event in item if _later(event.id, position)]
                if fresh:
                    position = fresh[-1].id
                    yield fresh
        except redis.RedisError as exc:
            raise EventLogUnavailable(str(exc)) from exc
        finally:
            followers = self.subscribers.get(key)
            if followers is not None:
                followers.discard(subscriber)
                if not followers:
                    del self.subscribers[key]
                    self.positions.pop(key, None)

    def _ensure_running(self) -> None:
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self._read())

    async def _wake(self) -> None:
        """Have the blocking read start again with the current set of logs."""
        for _ in range(20):
            if self.reader_id is None:
                await asyncio.sleep(0.005)  # the read has not started yet: it will include the log
                continue
            try:
                if await self.client.client_unblock(self.reader_id):
                    return
            except redis.RedisError:
                return  # the read itself will report the store's loss
            await asyncio.sleep(0.005)  # between two reads: the next one includes the log
            if not self.subscribers or set(self.subscribers) <= self.blocked_on:
                return

    async def _read(self) -> None:
        reader = aredis.Redis.from_url(self.url, socket_connect_timeout=2, socket_timeout=HUB_BLOCK_MS / 1000 + 5)
        try:
            async with reader.client() as connection:
                self.reader_id = int(await connection.client_id())
                while self.subscribers:
                    streams: dict[Any, Any] = {key: self.positions[key] for key in self.subscribers}
                    self.blocked_on = frozenset(streams)
                    answer: Any = await connection.xread(streams, block=HUB_BLOCK_MS, count=500)
                    self.blocked_on = frozenset()
                    for raw_key, entries in answer or []:
                        key = _text(raw_key)
                        events = [_event(entry_id, fields) for entry_id, fields in entries]
                        if not events or key not in self.subscribers:
                            continue
                        self.positions[key] = events[-1].id
                        for subscriber in self.subscribers[key]:
                            subscriber.put(events)
                    if answer and len(streams) > 1:
                        # Let the other logs' next batches arrive: the next read brings many.
                        await asyncio.sleep(min(HUB_MAX_GATHER_SECONDS, HUB_GATHER_SECONDS_PER_LOG * len(streams)))
        except (redis.RedisError, OSError) as exc:
            for followers in self.subscribers.values():
                for subscriber in followers:
                    subscriber.put(exc)
        finally:
            self.reader_id = None
            self.blocked_on = frozenset()
            await reader.aclose()


def _later(event_id: str, than: str) -> bool:
    return parse_id(event_id) > parse_id(than)


_hubs: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, ReadersHub]]" = weakref.WeakKeyDictionary()


def _hub_for(url: str) -> ReadersHub:
    """The hub of the running event loop (redis.asyncio's connections belong to one loop)."""
    hubs = _hubs.setdefault(asyncio.get_running_loop(), {})
    if url not in hubs:
        hubs[url] = ReadersHub(url)
    return hubs[url]


# --------------------------------------------------------------------------- in-process


@dataclass
class _Log:
    events: list[Event]
    ended_at: float | None = None


class MemoryEventLog(EventLog):
    """The same log in this process's memory, for the embedded defaults (one process:
    the reply runs in a thread next to the SSE view). Waiters are asyncio events set
    from the writer's thread, so a waiting SSE view holds no thread either."""

    def __init__(self, *, cap: int, ttl: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.cap = cap
        self.ttl = ttl
        self.clock = clock
        self._logs: dict[int, _Log] = {}
        self._waiters: dict[int, set[tuple[asyncio.AbstractEventLoop, asyncio.Event]]] = {}
        self._lock = threading.Lock()
        self._last_id = (0, 0)

    def _expire(self) -> None:
        now = self.clock()
        for reply_id in [r for r, log in self._logs.items() if log.ended_at is not None and now - log.ended_at > self.ttl]:
            del self._logs[reply_id]

    def _next_id(self) -> str:
        ms = int(time.time() * 1000)
        last_ms, last_seq = self._last_id
        self._last_id = (ms, 0) if ms > last_ms else (last_ms, last_seq + 1)
        return f"{self._last_id[0]}-{self._last_id[1]}"

    def append(self, reply_id: int, type: str, data: dict[str, Any]) -> str | None:
        # Stored as JSON text, like Redis: a reader never shares the writer's objects.
        data = json.loads(json.dumps(data, default=str))
        with self._lock:
            self._expire()
            log = self._logs.setdefault(reply_id, _Log([]))
            if log.events and (log.events[-1].final or (log.events[-1].type == STOPPING and type not in FINAL_TYPES)):
                return None
            event = Event(self._next_id(), type, data)
            log.events.append(event)
            del log.events[: -self.cap]
            if event.final:
                log.ended_at = self.clock()
            waiters = list(self._waiters.get(reply_id, ()))
        for loop, ready in waiters:
            loop.call_soon_threadsafe(ready.set)
        return event.id

    def read(self, reply_id: int, after: str | None = None) -> list[Event]:
        with self._lock:
            self._expire()
            events = list(self._logs[reply_id].events) if reply_id in self._logs else []
        if after is None:
            return events
        position = parse_id(after)
        return [event for event in events if parse_id(event.id) > position]

    async def wait(self, reply_id: int, after: str | None, timeout: float) -> list[Event]:
        ready = asyncio.Event()
        waiter = (asyncio.get_running_loop(), ready)
        with self._lock:
            self._waiters.setdefault(reply_id, set()).add(waiter)
        try:
            events = self.read(reply_id, after)
            if not events:
                try:
                    await asyncio.wait_for(ready.wait(), timeout)
                except TimeoutError:
                    return []
                events = self.read(reply_id, after)
            return events
        finally:
            with self._lock:
                self._waiters.get(reply_id, set()).discard(waiter)

    def find(self, reply_id: int, event_id: str) -> Event | None:
        return next((event for event in self.read(reply_id) if event.id == event_id), None)

    def exists(self, reply_id: int) -> bool:
        with self._lock:
            self._expire()
            return reply_id in self._logs

    def stopped(self, reply_id: int) -> bool:
        with self._lock:
            log = self._logs.get(reply_id)
            return log is not None and bool(log.events) and log.events[-1].type in ENDED_TYPES

    def clear(self, reply_id: int) -> None:
        with self._lock:
            self._logs.pop(reply_id, None)


# --------------------------------------------------------------------------- the configured log


def event_log() -> EventLog:
    """The log the settings name: Redis when ``EVENTS_REDIS_URL`` is set, else in-process."""
    return _log_for(settings.EVENTS_REDIS_URL, settings.EVENTS_MAX_LENGTH, settings.EVENTS_TTL_SECONDS)


@lru_cache(maxsize=8)
def _log_for(url: str, cap: int, ttl: int) -> EventLog:
    if url:
        return RedisEventLog(url, cap=cap, ttl=ttl, running_ttl=ttl + settings.CELERY_TASK_TIME_LIMIT)
    return MemoryEventLog(cap=cap, ttl=ttl)
