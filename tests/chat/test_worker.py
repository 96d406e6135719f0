"""The real thing: PostgreSQL, a Celery worker process and Redis as the broker."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.db import connection

from chat.models import Message
from lifeassistant.celery import app as celery_app

pytestmark = [pytest.mark.worker, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

REPO = Path(__file__).resolve().parents[2]
BROKER = os.environ.get("CI_REDIS_URL", "redis://127.0.0.1:6379/14")


@pytest.fixture
def worker(tmp_path):
    if connection.vendor != "postgresql":
        pytest.skip("needs DATABASE_URL=postgres://...")
    database = connection.settings_dict
    url = f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}/{database['NAME']}"
    env = {**os.environ, "DATABASE_URL": url, "CELERY_BROKER_URL": BROKER}
    process = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "lifeassistant", "worker", "--pool=solo", "--concurrency=1", "-l", "warning"],
        cwd=REPO,
        env=env,
        stdout=(tmp_path / "worker.log").open("w"),
        stderr=subprocess.STDOUT,
    )
    process.log = tmp_path / "worker.log"  # type: ignore[attr-defined]
    use_broker(BROKER, eager=False)
    try:
        yield process
    finally:
        use_broker("memory://", eager=True)
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()


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
