"""The Celery worker's own metrics (all its pool processes) on WORKER_METRICS_PORT, and its readiness file."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from django.db import connection
from prometheus_client.parser import text_string_to_metric_families

from tests.chat.test_worker import BROKER, REPO, use_broker, wait_for_reply

pytestmark = [pytest.mark.worker, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_for(check: Any, what: str, timeout: float = 60.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"{what} not seen after {timeout}s")


@pytest.fixture
def prefork_worker(tmp_path: Path) -> Any:
    if connection.vendor != "postgresql":
        pytest.skip("needs DATABASE_URL=postgres://...")
    database = connection.settings_dict
    url = f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}/{database['NAME']}"
    directory = tmp_path / "metrics"
    directory.mkdir()
    (directory / "counter_1.db").write_bytes(b"stale")  # a previous run's values
    port = free_port()
    ready = tmp_path / "worker.ready"
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "CELERY_BROKER_URL": BROKER,
        "PROMETHEUS_MULTIPROC_DIR": str(directory),
        "WORKER_METRICS_PORT": str(port),
        "WORKER_METRICS_ADDRESS": "127.0.0.1",
        "WORKER_READY_FILE": str(ready),
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "lifeassistant", "worker", "--pool=prefork", "--concurrency=1", "-l", "warning"],
        cwd=REPO,
        env=env,
        stdout=(tmp_path / "worker.log").open("w"),
        stderr=subprocess.STDOUT,
    )
    use_broker(BROKER, eager=False)
    try:
        yield process, port, ready
    finally:
        use_broker("memory://", eager=True)
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()


def scrape(port: int) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as response:  # noqa: S310 - loopback
        text = response.read().decode()
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def test_a_reply_answered_by_a_pool_process_is_counted_on_the_workers_port(
    prefork_worker: Any, api: Any, shipped_skills: None
) -> None:
    process, port, ready = prefork_worker
    wait_for(ready.exists, "the readiness file")
    conversation = api.post("/api/v1/conversations/", {"title": "x"}, format="json").json()["id"]

    posted = api.post(f"/api/v1/conversations/{conversation}/messages/", {"content": "Gastei 50 reais no mercado"}, format="json")
    reply = wait_for_reply(posted.json()["assistant_message"]["id"])

    assert reply.status == "done"
    key = ("lifeassistant_replies_total", (("error_code", ""), ("model", "offline/life-assistant"), ("status", "done")))
    series = wait_for(lambda: (s := scrape(port)).get(key) and s, "the reply in the worker's metrics")
    assert series[key] == 1
    idle = ("lifeassistant_replies_in_flight", ())
    wait_for(lambda: scrape(port).get(idle) == 0, "no reply in flight once the task ended")
    process.terminate()
    process.wait(timeout=30)
    assert not ready.exists()
