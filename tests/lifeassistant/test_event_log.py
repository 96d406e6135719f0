"""The per-reply event log, on both implementations: in-process and Redis Streams."""

from __future__ import annotations

import asyncio
import os
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import redis

from lifeassistant.event_log import Event, EventLog, MemoryEventLog, RedisEventLog, parse_id

REDIS_URL = os.environ.get("CI_REDIS_URL", "redis://127.0.0.1:6379/14")


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.worker)])
def make_log(request: pytest.FixtureRequest) -> Iterator[Any]:
    """A factory of logs of one kind: make_log(cap=..., ttl=...)."""
    made: list[RedisEventLog] = []

    def make(*, cap: int = 1000, ttl: int = 3600) -> EventLog:
        if request.param == "memory":
            return MemoryEventLog(cap=cap, ttl=ttl)
        log = RedisEventLog(REDIS_URL, cap=cap, ttl=ttl, running_ttl=ttl + 150, prefix=f"test-events-{uuid.uuid4().hex}:")
        made.append(log)
        return log

    yield make
    for log in made:
        client = redis.Redis.from_url(REDIS_URL)
        for key in client.scan_iter(f"{log.prefix}*"):
            client.delete(key)


def test_events_come_back_in_order_with_increasing_ids(make_log: Any) -> None:
    log = make_log()
    ids = [log.append(7, "delta", {"text": word}) for word in ["um ", "dois ", "três"]]

    events = log.read(7)

    assert [e.data["text"] for e in events] == ["um ", "dois ", "três"]
    assert [e.id for e in events] == ids
    assert [tuple(map(int, i.split("-"))) for i in ids] == sorted(tuple(map(int, i.split("-"))) for i in ids)
    assert log.read(8) == []  # another reply's log is its own


def test_a_reader_resumes_after_an_id(make_log: Any) -> None:
    log = make_log()
    first = log.append(7, "status", {"status": "running"})
    log.append(7, "delta", {"text": "Olá"})
    log.append(7, "delta", {"text": ", Ana"})

    assert [e.data for e in log.read(7, after=first)] == [{"text": "Olá"}, {"text": ", Ana"}]
    assert log.find(7, first) == Event(first, "status", {"status": "running"})
    assert log.find(7, "1-0") is None
    assert log.find(8, first) is None


def test_the_final_event_is_written_exactly_once(make_log: Any) -> None:
    log = make_log()
    log.append(7, "delta", {"text": "Olá"})

    assert log.append(7, "done", {"id": 7, "status": "done"}) is not None
    assert log.append(7, "cancelled", {"id": 7, "status": "cancelled"}) is None
    assert log.append(7, "delta", {"text": "late"}) is None

    types = [e.type for e in log.read(7)]
    assert types == ["delta", "done"]


def test_the_log_keeps_about_its_cap_of_newest_events(make_log: Any) -> None:
    log = make_log(cap=100)
    for number in range(1000):
        log.append(7, "delta", {"text": str(number)})

    events = log.read(7)

    # Redis trims approximately (whole internal nodes), never below the cap.
    assert 100 <= len(events) < 300
    assert events[-1].data == {"text": "999"}


def test_the_log_of_an_ended_reply_expires(make_log: Any, request: pytest.FixtureRequest) -> None:
    if isinstance(make_log(), MemoryEventLog):
        clock = Clock()
        log: EventLog = MemoryEventLog(cap=100, ttl=60, clock=clock)
        log.append(7, "done", {"status": "done"})
        clock.now += 59
        assert log.exists(7)
        clock.now += 2
        assert not log.exists(7) and log.read(7) == []
        return
    log = make_log(ttl=1)
    log.append(7, "delta", {"text": "Olá"})
    assert isinstance(log, RedisEventLog)
    client = redis.Redis.from_url(REDIS_URL)
    assert client.ttl(log.key(7)) > 100  # a running reply's log outlives the task's time limit
    log.append(7, "done", {"status": "done"})
    assert 0 < client.ttl(log.key(7)) <= 1
    time.sleep(1.3)
    assert not log.exists(7)


def test_a_waiting_reader_gets_events_appended_by_another_thread(make_log: Any) -> None:
    log = make_log()
    first = log.append(7, "status", {"status": "running"})

    def later() -> None:
        time.sleep(0.2)
        log.append(7, "delta", {"text": "Olá"})

    writer = threading.Thread(target=later)
    writer.start()
    started = time.monotonic()
    events = asyncio.run(log.wait(7, first, timeout=5))
    writer.join()

    assert [e.data for e in events] == [{"text": "Olá"}]
    assert time.monotonic() - started < 3


def test_a_wait_with_nothing_new_times_out_empty(make_log: Any) -> None:
    log = make_log()
    first = log.append(7, "status", {"status": "running"})

    assert asyncio.run(log.wait(7, first, timeout=0.2)) == []


def test_a_cleared_log_starts_again(make_log: Any) -> None:
    log = make_log()
    log.append(7, "failed", {"status": "failed"})
    log.clear(7)

    assert not log.exists(7)
    assert log.append(7, "status", {"status": "running"}) is not None


@pytest.mark.parametrize(
    "text",
    ["١٢٣-٠", "１-0", "18446744073709551616-0", "1-18446744073709551616", "1-0\n", " 1-0", "1-", "-1", "1-0-0"],
)
def test_only_ascii_64_bit_pairs_are_event_ids(text: str) -> None:
    """Redis refused the others as if it were down: the stream then said "live updates are
    unavailable" and echoed the bad id, instead of the 400 a bad ``after`` gets."""
    with pytest.raises(ValueError):
        parse_id(text)
    assert parse_id("18446744073709551615-18446744073709551615") == (2**64 - 1, 2**64 - 1)


def test_a_stopped_log_takes_no_more_text_only_its_final_event(make_log: Any) -> None:
    log = make_log()
    log.append(7, "delta", {"text": "um "})
    log.append(7, "delta", {"text": "dois"})

    assert log.stop(7) == "um dois"  # what the stop answers with
    assert log.append(7, "delta", {"text": " três"}) is None  # the worker learns of the stop here
    assert log.append(7, "cancelled", {"status": "cancelled"}) is not None
    assert log.stop(7) is None  # ended: nothing to stop
    assert log.text(7) == "um dois"


def test_the_text_so_far_starts_over_when_the_run_restarts(make_log: Any) -> None:
    log = make_log()
    log.append(7, "delta", {"text": "antes"})
    log.append(7, "status", {"status": "running", "restarted": True})
    log.append(7, "delta", {"text": "depois"})

    assert log.text(7) == "depois"


def test_a_follower_gets_every_event_in_order_then_heartbeats(make_log: Any) -> None:
    log = make_log()
    first = log.append(7, "status", {"status": "running"})

    def later() -> None:
        for word in ["um", "dois", "três"]:
            time.sleep(0.05)
            log.append(7, "delta", {"text": word})

    async def follow() -> list[Any]:
        got: list[Any] = []
        async for events in log.follow(7, first, 0.5):
            if not events:
                got.append("heartbeat")
                break
            got.extend(e.data["text"] for e in events)
        return got

    writer = threading.Thread(target=later)
    writer.start()
    got = asyncio.run(follow())
    writer.join()

    assert got == ["um", "dois", "três", "heartbeat"]


@pytest.mark.worker
def test_readers_of_many_logs_share_a_few_redis_connections() -> None:
    """1 blocking read and a small pool per process, however many streams are open; and
    the reads gather the logs' events rather than one read per event."""
    from lifeassistant.event_log import HUB_POOL_CONNECTIONS

    log = RedisEventLog(REDIS_URL, cap=1000, ttl=60, running_ttl=60, prefix=f"test-events-{uuid.uuid4().hex}:")
    admin = redis.Redis.from_url(REDIS_URL)
    readers = 200
    before = int(admin.info("stats")["total_connections_received"])
    reads_before = admin.info("commandstats").get("cmdstat_xread", {}).get("calls", 0)

    async def main() -> tuple[list[list[str]], int]:
        async def one(reply_id: int) -> list[str]:
            texts: list[str] = []
            async for events in log.follow(reply_id, None, 5):
                texts.extend(e.data.get("text", e.type) for e in events)
                if any(e.final for e in events):
                    return texts
            return texts  # pragma: no cover

        tasks = [asyncio.create_task(one(reply_id)) for reply_id in range(readers)]
        await asyncio.sleep(0.3)  # every reader is following
        for word in ["um", "dois"]:
            for reply_id in range(readers):
                await asyncio.to_thread(log.append, reply_id, "delta", {"text": f"{word}{reply_id}"})
        for reply_id in range(readers):
            await asyncio.to_thread(log.append, reply_id, "done", {"status": "done"})
        results = await asyncio.wait_for(asyncio.gather(*tasks), 30)
        opened = int(admin.info("stats")["total_connections_received"]) - before
        return list(results), opened

    try:
        results, opened = asyncio.run(main())
        reads = admin.info("commandstats")["cmdstat_xread"]["calls"] - reads_before
    finally:
        for key in admin.scan_iter(f"{log.prefix}*"):
            admin.delete(key)

    assert results == [[f"um{n}", f"dois{n}", "done"] for n in range(readers)]
    # The hub's blocking read, its pool, and the writer's own client (the test's threads).
    assert opened <= 1 + HUB_POOL_CONNECTIONS + 2
    # One read brings many logs' events, not one read per append (600 appends).
    assert reads <= 3 * readers // 4


@pytest.mark.worker
def test_a_reader_joining_a_log_others_follow_catches_up() -> None:
    log = RedisEventLog(REDIS_URL, cap=1000, ttl=60, running_ttl=60, prefix=f"test-events-{uuid.uuid4().hex}:")

    async def main() -> tuple[list[str], list[str]]:
        async def follow(after: str | None) -> list[str]:
            texts: list[str] = []
            async for events in log.follow(7, after, 5):
                texts.extend(e.data.get("text", e.type) for e in events)
                if any(e.final for e in events):
                    return texts
            return texts  # pragma: no cover

        early = asyncio.create_task(follow(None))
        await asyncio.sleep(0.1)
        await asyncio.to_thread(log.append, 7, "delta", {"text": "um"})
        await asyncio.to_thread(log.append, 7, "delta", {"text": "dois"})
        await asyncio.sleep(0.2)  # the first reader has both; the hub is past them
        late = asyncio.create_task(follow(None))
        await asyncio.sleep(0.1)
        await asyncio.to_thread(log.append, 7, "delta", {"text": "três"})
        await asyncio.to_thread(log.append, 7, "done", {"status": "done"})
        return await asyncio.wait_for(early, 10), await asyncio.wait_for(late, 10)

    try:
        early, late = asyncio.run(main())
    finally:
        log.clear(7)

    assert early == late == ["um", "dois", "três", "done"]


def test_a_readers_mailbox_hands_items_on_in_order_and_wakes_its_reader() -> None:
    """The hub's per-reader mailbox (a list and a future, not an asyncio.Queue: a
    thousand open streams held ~2.5 MiB of queues and wait tasks)."""
    from lifeassistant.event_log import _Subscriber

    async def scenario() -> list[Any]:
        mailbox = _Subscriber()
        seen: list[Any] = []
        with pytest.raises(TimeoutError):
            await mailbox.next(0.01)  # nothing came: the heartbeat's timeout
        assert mailbox.waiter is None  # a timed-out wait leaves nothing behind
        waiting = asyncio.ensure_future(mailbox.next(30))
        await asyncio.sleep(0)
        mailbox.put([Event("1-0", "delta", {"text": "a"})])  # wakes the reader
        seen.append(await asyncio.wait_for(waiting, 30))
        mailbox.put([Event("2-0", "delta", {"text": "b"})])
        failure = ConnectionError("lost")
        mailbox.put(failure)
        seen.append(await mailbox.next(30))  # already there: no wait
        seen.append(await mailbox.next(30))
        return seen

    first, second, third = asyncio.run(scenario())
    assert [event.id for event in first] == ["1-0"] and [event.id for event in second] == ["2-0"]
    assert isinstance(third, ConnectionError)
