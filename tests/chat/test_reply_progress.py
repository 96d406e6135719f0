"""A running reply's progress: text in the event log, O(1) row writes, the stop."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from chat.reply_progress import ReplyProgress
from lifeassistant.event_log import EventLogUnavailable, MemoryEventLog

pytestmark = pytest.mark.django_db


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def progress_on(log: Any, clock: Clock, *, saves: list[str], running: list[bool] | None = None) -> ReplyProgress:
    def save(text: str) -> bool:
        saves.append(text)
        return running[0] if running else True

    return ReplyProgress(
        7,
        log,
        batch_seconds=0.075,
        checkpoint_seconds=5.0,
        save=save,
        still_running=lambda: running[0] if running else True,
        clock=clock,
    )


def test_text_is_published_in_batches_and_saved_only_every_few_seconds() -> None:
    log, clock, saves = MemoryEventLog(cap=10_000, ttl=60), Clock(), []
    progress = progress_on(log, clock, saves=saves)

    for n in range(300):  # 6 s of a model at 50 chunks a second
        clock.now += 0.02
        progress.text(f"w{n} ")
    progress.flush()

    assert log.text(7) == "".join(f"w{n} " for n in range(300))
    assert len(saves) == 1  # one checkpoint at 5 s; the start and the end are the reply's own writes


def test_a_stop_in_the_log_refuses_the_next_batch_and_the_text_is_what_the_stop_answered() -> None:
    log, clock, saves = MemoryEventLog(cap=10_000, ttl=60), Clock(), []
    progress = progress_on(log, clock, saves=saves)
    clock.now += 0.5  # the model's first words come after a while: published at once
    progress.text("um ")
    answered = log.stop(7)
    clock.now += 0.1
    progress.text("dois ")

    assert progress.cancelled()
    assert answered == progress.content == "um "
    assert log.text(7) == "um "


def test_without_the_log_the_database_tells_of_a_stop_once_a_second() -> None:
    class Broken(MemoryEventLog):
        def append(self, *args: Any, **kwargs: Any) -> str | None:
            raise EventLogUnavailable("down")

    clock, saves, running = Clock(), [], [True]
    progress = progress_on(Broken(cap=10, ttl=60), clock, saves=saves, running=running)
    clock.now += 0.1
    progress.text("um ")
    running[0] = False  # the user stopped it; only the row says so
    clock.now += 0.5
    progress.text("dois ")
    assert not progress.cancelled()
    clock.now += 0.5
    progress.text("três ")

    assert progress.cancelled()
    assert progress.content == "um dois "  # kept for the row: readers poll it


def test_a_long_streamed_reply_writes_its_row_a_few_times_whatever_its_length(
    scripted_llm: Any, api: Any, conversation: dict[str, Any], send: Any, settings: Any
) -> None:
    settings.EVENTS_BATCH_SECONDS = 0  # every chunk its own batch: the old code wrote the row per batch
    scripted_llm.reply_text(" ".join(f"palavra{n}" for n in range(300)))

    with CaptureQueriesContext(connection) as queries:
        reply = send(api, conversation["id"], {"content": "Conte uma história"}).json()["assistant_message"]

    writes = [q["sql"] for q in queries if re.match(r'UPDATE "chat_message"', q["sql"])]
    assert api.get(f"/api/v1/messages/{reply['id']}/").json()["content"].endswith("palavra299")
    assert len(writes) <= 6, writes


def test_batches_stretch_with_the_replies_in_flight_up_to_half_a_second() -> None:
    from chat.reply_progress import batch_interval

    assert batch_interval(0.075, 1) == 0.075
    assert batch_interval(0.075, 20) == 0.075
    assert batch_interval(0.075, 100) == pytest.approx(0.375)
    assert batch_interval(0.075, 1000) == 0.5
    assert batch_interval(2.0, 1000) == 2.0  # a deployment's own slower setting stays


def test_a_reply_s_batches_follow_the_load_while_it_streams() -> None:
    """A burst's first reply starts with few in flight: its batches stretch as the others
    start, and its gathered reads of the model's stream with them, up to 0.15 s (the
    model's last chunk waits for the next read: the reply's end would lag)."""
    from lifeassistant.gathered_reads import gather_seconds, set_gather_seconds

    log, clock, appended = MemoryEventLog(cap=10_000, ttl=60), Clock(), []
    in_flight = [1]
    real_append = log.append
    log.append = lambda *args: appended.append(clock.now) or real_append(*args)  # type: ignore[method-assign]
    from chat.reply_progress import batch_interval

    progress = ReplyProgress(
        7, log, batch_seconds=0.075, checkpoint_seconds=60.0, save=lambda text: True,
        still_running=lambda: True, pace=lambda: batch_interval(0.075, in_flight[0]), clock=clock,
    )
    previous = set_gather_seconds(0.075)  # the lean reader's, once the first text came
    try:
        for n in range(100):  # 2 s alone: a batch every 0.075 s
            clock.now += 0.02
            progress.text("w ")
        alone = len(appended)
        in_flight[0] = 100  # the burst arrives
        for n in range(100):  # 2 s among 100: a batch every 0.375 s
            clock.now += 0.02
            progress.text("w ")
        among = len(appended) - alone
        assert progress.batch_seconds == pytest.approx(0.375)
        assert gather_seconds() == pytest.approx(0.15)
        in_flight[0] = 10  # the burst's replies end: batches and reads come back together
        clock.now += 0.4
        progress.text("w ")
        assert progress.batch_seconds == gather_seconds() == pytest.approx(0.075)
    finally:
        set_gather_seconds(previous)
    assert alone >= 20 and among <= 7, (alone, among)
    progress.flush()
    assert log.text(7) == "w " * 201
