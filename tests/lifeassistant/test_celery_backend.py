"""Queueing a reply from a request thread reuses what the process already built (docs/performance.md)."""

from __future__ import annotations

import threading

from lifeassistant.celery import app


def test_request_threads_share_one_result_backend() -> None:
    # Under ASGI each request runs on a thread of its own; Celery's per-thread backend was
    # rebuilt for every queued reply.
    seen = []
    threads = [threading.Thread(target=lambda: seen.append(app.backend)) for _ in range(2)]
    for thread in threads:
        thread.start()
        thread.join()
    assert seen[0] is seen[1] is app.backend
