"""Under gunicorn or Celery's prefork pool, every process's values are summed at a scrape;
the directory starts empty and a process that exits stops counting in the live gauges."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import last_line_printed_by_a_fresh_process

SCRIPT = """
import json, multiprocessing, os
from pathlib import Path

import pytest
from prometheus_client import generate_latest
from prometheus_client.parser import text_string_to_metric_families
from lifeassistant.observability import metrics

def scrape():
    text = generate_latest(metrics.scrape_registry()).decode()
    return {s.name + json.dumps(s.labels, sort_keys=True): s.value for f in text_string_to_metric_families(text) for s in f.samples}

def killed_mid_reply():
    metrics.reply_started()
    metrics.record_reply_finished("done", "m", "", 1.5)
    os._exit(0)  # as a worker killed mid-reply: reply_ended never runs

metrics.wipe_multiprocess_directory()
left = sorted(p.name for p in Path(os.environ["PROMETHEUS_MULTIPROC_DIR"]).iterdir())
context = multiprocessing.get_context("fork")
child = context.Process(target=killed_mid_reply)
child.start(); child.join()
alive = scrape()
metrics.mark_process_dead(child.pid)
dead = scrape()
print(json.dumps({"left": left, "alive": alive, "dead": dead}))
"""


def test_values_of_every_process_are_summed_and_a_dead_one_leaves_the_live_gauges(tmp_path: Path) -> None:
    (tmp_path / "counter_999.db").write_bytes(b"a previous run")

    seen = json.loads(last_line_printed_by_a_fresh_process(SCRIPT, PROMETHEUS_MULTIPROC_DIR=str(tmp_path)))

    assert seen["left"] == []
    done = 'lifeassistant_replies_total{"error_code": "", "model": "m", "status": "done"}'
    assert seen["alive"][done] == 1
    assert seen["alive"]["lifeassistant_replies_in_flight{}"] == 1
    assert seen["dead"][done] == 1  # counters keep what the process counted
    assert seen["dead"].get("lifeassistant_replies_in_flight{}", 0) == 0


def test_the_gunicorn_configuration_wipes_at_start_and_marks_exited_workers_dead() -> None:
    config = (Path(__file__).resolve().parents[3] / "deploy" / "gunicorn.conf.py").read_text()

    assert "def on_starting(" in config and "wipe_multiprocess_directory()" in config
    assert "def child_exit(" in config and "mark_process_dead(worker.pid)" in config
    assert "def post_fork(" in config and "tracing.start_sdk()" in config


def test_the_web_server_keeps_an_idle_connection_longer_than_proxies_and_clients_do(monkeypatch: pytest.MonkeyPatch) -> None:
    """gunicorn's own 2 s made a request on a connection the server had just closed fail
    under a burst; the uvicorn worker takes its keep-alive from this setting."""
    from gunicorn.config import Config

    path = Path(__file__).resolve().parents[3] / "deploy" / "gunicorn.conf.py"

    def loaded() -> int:
        namespace: dict[str, object] = {"__file__": str(path)}
        exec(compile(path.read_text(), str(path), "exec"), namespace)  # as gunicorn reads it
        config = Config()
        config.set("keepalive", namespace["keepalive"])
        return config.keepalive

    monkeypatch.delenv("WEB_KEEPALIVE_SECONDS", raising=False)
    assert loaded() > 60  # past the 60 s idle timeout of nginx's upstreams and common load balancers
    monkeypatch.setenv("WEB_KEEPALIVE_SECONDS", "120")
    assert loaded() == 120
