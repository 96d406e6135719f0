"""The real thing: PostgreSQL, a Celery worker process and Redis as the broker."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from django.db import connection

from chat.models import Message
from lifeassistant.celery import app as celery_app

pytestmark = [pytest.mark.worker, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

REPO = Path(__file__).resolve().parents[2]
BROKER = os.environ.get("CI_REDIS_URL", "redis://127.0.0.1:6379/14")


def start_worker(log: Path, *args: str, **env: str) -> subprocess.Popen[bytes]:
    if connection.vendor != "postgresql":
        pytest.skip("needs DATABASE_URL=postgres://...")
    database = connection.settings_dict
    url = f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}/{database['NAME']}"
    process = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "lifeassistant", "worker", "-l", "warning", *args],
        cwd=REPO,
        env={**os.environ, "DATABASE_URL": url, "CELERY_BROKER_URL": BROKER, **env},
        stdout=log.open("a"),
        stderr=subprocess.STDOUT,
    )
    process.log = log  # type: ignore[attr-defined]
    return process


def stop_worker(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@pytest.fixture
def worker(tmp_path):
    process = start_worker(tmp_path / "worker.log", "--pool=solo", "--concurrency=1")
    use_broker(BROKER, eager=False)
    try:
        yield process
    finally:
        use_broker("memory://", eager=True)
        stop_worker(process)


def use_broker(url: str, *, eager: bool) -> None:
    """Point this process's Celery app at ``url``.

    The app caches its connection pool and producer pool from earlier (eager) tests;
    ``_after_fork`` is the one hook that drops both, so the next dispatch uses ``url``.
    """
    celery_app.conf.update(task_always_eager=eager, broker_url=url)
    celery_app._after_fork()


def wait_for_reply(message_id: int, timeout: float = 90.0) -> Message:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        message = Message.objects.get(pk=message_id)
        if message.status in (Message.Status.DONE, Message.Status.FAILED):
            return message
        time.sleep(0.2)
    raise AssertionError(f"reply {message_id} still {Message.objects.get(pk=message_id).status} after {timeout}s")


def test_a_real_worker_answers_a_message_posted_through_the_api(worker, api, shipped_skills):
    conversation = api.post("/api/v1/conversations/", {}, format="json").json()
    response = api.post(
        f"/api/v1/conversations/{conversation['id']}/messages/", {"content": "Gastei 50 reais no mercado"}, format="json"
    )
    assert response.status_code == 202
    reply = wait_for_reply(response.json()["assistant_message"]["id"])
    assert reply.status == Message.Status.DONE, (reply.error, worker.log.read_text())
    assert "Skills: finance" in reply.content
    assert reply.started_at is not None and reply.finished_at is not None


def test_a_redelivered_task_does_not_answer_twice(worker, api, shipped_skills):
    from chat.tasks import generate_reply

    conversation = api.post("/api/v1/conversations/", {}, format="json").json()
    response = api.post(f"/api/v1/conversations/{conversation['id']}/messages/", {"content": "oi"}, format="json")
    reply_id = response.json()["assistant_message"]["id"]
    first = wait_for_reply(reply_id)
    generate_reply.delay(reply_id)  # a duplicate delivery
    time.sleep(2)
    again = Message.objects.get(pk=reply_id)
    assert again.finished_at == first.finished_at
    assert again.content == first.content


def _post_many(user: Any, count: int) -> list[int]:
    """``count`` people's messages at once (through the message service: the API's
    per-user rate limit is not what is tested here)."""
    from chat.models import Conversation
    from chat.services import submit_message

    ids = []
    for n in range(count):
        conversation = Conversation.objects.create(owner=user)
        submission = submit_message(user=user, conversation=conversation, content=f"Olá, tudo bem? ({n})")
        ids.append(submission.assistant_message.pk)
    return ids


def _wait_all(ids: list[int], timeout: float) -> tuple[list[Message], int]:
    """Wait until every reply ended; also the most seen running at once."""
    deadline = time.monotonic() + timeout
    most_running = 0
    while time.monotonic() < deadline:
        statuses = list(Message.objects.filter(pk__in=ids).values_list("status", flat=True))
        most_running = max(most_running, statuses.count("running"))
        if all(status in ("done", "failed", "cancelled") for status in statuses):
            break
        time.sleep(0.2)
    return list(Message.objects.filter(pk__in=ids).order_by("pk")), most_running


SLOW_OFFLINE_MODEL = {"LLM_OFFLINE_TOKEN_DELAY_SECONDS": "0.1", "LOG_LEVEL": "WARNING"}


def test_one_threads_worker_holds_fifty_replies_at_once_on_a_pool_of_two_connections(tmp_path, user, shipped_skills):
    """The Procfile's pool: replies wait on the model, not on a database connection."""
    process = start_worker(tmp_path / "worker.log", "-P", "threads", "-c", "64", DATABASE_POOL_SIZE="2", **SLOW_OFFLINE_MODEL)
    use_broker(BROKER, eager=False)
    try:
        ids = _post_many(user, 50)
        replies, most_running = _wait_all(ids, timeout=120)
    finally:
        use_broker("memory://", eager=True)
        stop_worker(process)

    log = process.log.read_text()  # type: ignore[attr-defined]
    assert [reply.status for reply in replies] == ["done"] * 50, log[-3000:]
    assert most_running >= 25, (most_running, log[-3000:])  # many at once, not two


def test_a_killed_worker_s_replies_are_taken_over_and_finished_by_another(tmp_path, user, shipped_skills):
    """SIGKILL with replies in flight: the next worker's watchdog sees their runner gone,
    queues them again, and each is answered once, from the start."""
    cache = BROKER.rsplit("/", 1)[0] + "/15"
    env = {**SLOW_OFFLINE_MODEL, "CACHE_URL": cache, "REPLY_SWEEP_SECONDS": "1", "REPLY_HEARTBEAT_SECONDS": "0.5"}
    first = start_worker(tmp_path / "worker.log", "-P", "threads", "-c", "32", **env)
    use_broker(BROKER, eager=False)
    second = None
    try:
        ids = _post_many(user, 20)
        deadline = time.monotonic() + 60
        while Message.objects.filter(pk__in=ids, status="running").count() < 10 and time.monotonic() < deadline:
            time.sleep(0.1)
        first.kill()  # no warm shutdown: its replies stay "running", its tasks unacknowledged
        first.wait()
        second = start_worker(tmp_path / "worker.log", "-P", "threads", "-c", "32", **env)
        replies, _ = _wait_all(ids, timeout=120)
    finally:
        use_broker("memory://", eager=True)
        if second is not None:
            stop_worker(second)

    log = (tmp_path / "worker.log").read_text()
    assert [reply.status for reply in replies] == ["done"] * 20, log[-3000:]
    assert "queued again" in log  # taken over by the watchdog, not by the broker's visibility timeout


def test_fifty_replies_stopped_at_once_end_at_once_and_the_worker_lets_them_go(tmp_path, user, shipped_skills, settings):
    """Each stop ends its reply's stream at once (the final event is in the log when the
    stop returns); the worker notices at its next batch, closes the model's stream and
    records what was spent, well before the answers would have ended."""
    from concurrent.futures import ThreadPoolExecutor

    from django.db import connections

    from chat.services import cancel_reply
    from lifeassistant.event_log import event_log

    import redis

    events = BROKER.rsplit("/", 1)[0] + "/15"
    redis.Redis.from_url(events).flushdb()  # no log of an earlier run under these ids
    settings.EVENTS_REDIS_URL = events  # this process reads the logs the worker writes
    env = {"LLM_OFFLINE_TOKEN_DELAY_SECONDS": "0.3", "LOG_LEVEL": "WARNING", "CACHE_URL": events}
    process = start_worker(tmp_path / "worker.log", "-P", "threads", "-c", "64", **env)
    use_broker(BROKER, eager=False)
    try:
        ids = _post_many(user, 50)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and (
            Message.objects.filter(pk__in=ids).exclude(status="running").exists()
            or not all(event_log().text(pk) for pk in ids)
        ):
            time.sleep(0.2)  # every reply running, with text streamed

        def stop(pk: int) -> tuple[str, bool]:
            try:
                stopped = cancel_reply(Message.objects.get(pk=pk))
                return stopped.status, any(event.final for event in event_log().read(pk, None))
            finally:
                connections.close_all()

        with ThreadPoolExecutor(50) as pool:
            stopped_at = time.monotonic()
            results = list(pool.map(stop, ids))
        while time.monotonic() < stopped_at + 30 and Message.objects.filter(pk__in=ids, model="").exists():
            time.sleep(0.1)  # the worker records the usage of each reply it let go
        let_go_after = time.monotonic() - stopped_at
    finally:
        use_broker("memory://", eager=True)
        stop_worker(process)

    log = process.log.read_text()  # type: ignore[attr-defined]
    assert results == [("cancelled", True)] * 50, log[-3000:]
    assert not Message.objects.filter(pk__in=ids).exclude(status="cancelled").exists()
    assert not Message.objects.filter(pk__in=ids, model="").exists(), (let_go_after, log[-3000:])
    # An answer of this model takes ~10 s at 0.3 s a word: the worker let them go long before.
    assert let_go_after < 5, let_go_after


def test_replies_lost_with_the_broker_s_queue_are_queued_again_by_the_watchdog(tmp_path, user, shipped_skills):
    """The broker's Redis restarted without persistence while replies waited in its queue:
    nothing reads those replies' streams, and still each is queued again and answered once."""
    import shutil
    import socket

    if shutil.which("redis-server") is None:
        pytest.skip("needs redis-server")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]

    def start_redis() -> subprocess.Popen[bytes]:
        server = subprocess.Popen(
            ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", str(tmp_path)],
            stdout=subprocess.DEVNULL,
        )
        for _ in range(50):
            with socket.socket() as client:
                if client.connect_ex(("127.0.0.1", port)) == 0:
                    return server
            time.sleep(0.1)
        raise AssertionError("redis-server did not start")

    broker = start_redis()
    url = f"redis://127.0.0.1:{port}/0"
    worker = None
    try:
        use_broker(url, eager=False)
        ids = _post_many(user, 10)  # no worker yet: the tasks wait in the broker's queue
        broker.terminate()
        broker.wait()
        broker = start_redis()  # empty: the queue is gone
        celery_app._after_fork()
        worker = start_worker(tmp_path / "worker.log", "-P", "threads", "-c", "16",
                              CELERY_BROKER_URL=url, CACHE_URL=f"redis://127.0.0.1:{port}/1", REPLY_SWEEP_SECONDS="1")
        replies, _ = _wait_all(ids, timeout=90)
    finally:
        use_broker("memory://", eager=True)
        if worker is not None:
            stop_worker(worker)
        broker.terminate()
        broker.wait()

    log = (tmp_path / "worker.log").read_text()
    assert [reply.status for reply in replies] == ["done"] * 10, log[-3000:]
    assert "queued again" in log
