"""The concurrency benchmark (bench/concurrency.py): its line of figures says why a person failed,
and its worker figures cover every worker process."""

import subprocess
import time

from bench.concurrency import render, tree


def _level(**overrides):
    spread = {"p50": 1.0, "p95": 2.0}
    level = {
        "people": 200, "seconds": 14.0, "model_max_in_flight": 189, "posted_s": spread, "at_model_s": spread,
        "first_text_s": spread, "done_s": spread, "errors": 0, "errors_by_kind": {}, "errors_seen": {},
        "worker_cpu_us_per_chunk": 114.0, "model_chunks": 61262, "worker_cpu_s": 7.0, "web_cpu_s": 7.1,
        "row_writes_per_reply": 3.0, "replies_ended": 200, "redis_connections_opened": 47,
        "worker_memory_mib": {"rss": 308, "pss": 290}, "web_worker_rss_max_mib": 131,
    }
    level.update(overrides)
    return level


def test_a_run_without_errors_is_one_line():
    assert "\n" not in render(_level())


def test_each_kind_of_failure_is_listed_with_what_the_client_saw():
    text = render(_level(
        errors=3, errors_by_kind={"broken": 2, "post": 1},
        errors_seen={"broken: the stream ended without a final event": 2, "post: HTTP 503": 1},
    ))

    assert "errors 3 (2 broken, 1 post)" in text
    assert "2 × broken: the stream ended without a final event" in text
    assert "1 × post: HTTP 503" in text


def test_first_text_is_also_given_apart_for_the_replies_that_made_a_tool_round_first():
    kinds = {"text": {"n": 66, "p50": 1.66, "p95": 2.27}, "tool": {"n": 34, "p50": 2.32, "p95": 2.95}}
    text = render(_level(first_text_by_first_round_s=kinds))

    assert "first text p50/p95 1.00 s / 2.00 s (answered at once, 66: 1.66 s / 2.27 s; a tool round first, 34: 2.32 s / 2.95 s)" in text
    assert "answered at once" not in render(_level(first_text_by_first_round_s={**kinds, "tool": {"n": 0, "p50": None, "p95": None}}))


def test_a_tool_rounds_turnaround_at_the_model_follows_the_tool_round_replies_first_text():
    kinds = {"text": {"n": 66, "p50": 1.66, "p95": 2.27}, "tool": {"n": 34, "p50": 2.32, "p95": 2.95}}
    text = render(_level(first_text_by_first_round_s=kinds, tool_turnaround_s={"p50": 0.17, "p95": 0.33}))

    assert "a tool round first, 34: 2.32 s / 2.95 s, its turnaround p50/p95 0.17 s / 0.33 s)" in text


def test_the_event_streams_opening_follows_the_posts_answer_when_it_was_timed():
    text = render(_level(opened_s={"p50": 1.75, "p95": 2.05}))

    assert "POST answered p50/p95 1.00 s / 2.00 s | stream opened p50/p95 1.75 s / 2.05 s | reply at the model" in text
    assert "stream opened" not in render(_level())


def test_the_worker_figures_cover_every_worker_process_and_their_children():
    """Several copies of the worker line (WORKER_PROCESSES) are measured together: the CPU and
    memory the run prints are those of each process given and of its children."""
    workers = [subprocess.Popen(["sh", "-c", "sleep 30 & wait"]) for _ in range(2)]
    try:
        deadline = time.monotonic() + 5
        while len(tree(*(worker.pid for worker in workers))) < 4 and time.monotonic() < deadline:
            time.sleep(0.05)  # each shell starts its child
        found = tree(*(worker.pid for worker in workers), None)
    finally:
        for worker in workers:
            subprocess.run(["pkill", "-P", str(worker.pid)], check=False)
            worker.kill()
            worker.wait()

    assert len(found) == 4
    assert {worker.pid for worker in workers} <= set(found)
