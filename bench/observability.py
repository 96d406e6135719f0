"""What metrics cost: per streamed chunk, and per accepted POST (figures only, printed).

    PROMETHEUS_MULTIPROC_DIR=$(mktemp -d) .venv/bin/python -m bench.observability

- per chunk: ``ReplyProgress.text`` with its first-token timer against the same call without it
  (the only metrics work on the streaming path);
- per POST: the metric operations one accepted message makes in the web process
  (django-prometheus's two middlewares around a request, and the skill activations),
  against the web CPU per accepted message the load benchmark measures (docs/performance.md, ~15 ms).
"""

from __future__ import annotations

import os
import time
from typing import Any

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "lifeassistant.settings")
django.setup()

POST_WEB_CPU_SECONDS = 0.015  # docs/performance.md: web CPU per accepted message


def per_call(function: Any, rounds: int) -> float:
    started = time.process_time()
    for _ in range(rounds):
        function()
    return (time.process_time() - started) / rounds


def chunk_cost() -> tuple[float, float]:
    from chat.reply_progress import ReplyProgress
    from lifeassistant.event_log import MemoryEventLog
    from lifeassistant.observability.metrics import FirstToken

    class Unbatched(ReplyProgress):
        def flush(self) -> None:
            self._pending.clear()

    progress = Unbatched(
        1, MemoryEventLog(cap=10, ttl=10), batch_seconds=3600, checkpoint_seconds=3600,
        save=lambda text: True, still_running=lambda: True,
    )
    rounds = 1_000_000
    with_timer = per_call(lambda: progress.text("palavra "), rounds)
    progress.first_token = FirstToken("m")
    progress.first_token.done = True

    class NoTimer:
        def seen(self) -> None:
            pass

    progress.first_token = NoTimer()  # type: ignore[assignment]
    without = per_call(lambda: progress.text("palavra "), rounds)
    return with_timer, without


def post_cost() -> float:
    from django.http import HttpResponse
    from django.test import RequestFactory
    from django_prometheus.middleware import PrometheusAfterMiddleware, PrometheusBeforeMiddleware

    from lifeassistant.observability.metrics import record_skill_activations

    chain = PrometheusBeforeMiddleware(PrometheusAfterMiddleware(lambda request: HttpResponse(status=202)))
    request = RequestFactory().post("/api/v1/conversations/1/messages/", data=b"{}", content_type="application/json")

    def one_post() -> None:
        chain(request)
        record_skill_activations(["finance"], "trigger")

    return per_call(one_post, 20_000)


def main() -> None:
    mode = "multiprocess" if os.environ.get("PROMETHEUS_MULTIPROC_DIR") else "single process"
    with_timer, without = chunk_cost()
    print(f"metrics mode: {mode}")
    print(f"per streamed chunk: ReplyProgress.text {with_timer * 1e6:.3f} µs with the first-token timer, "
          f"{without * 1e6:.3f} µs without: +{(with_timer - without) * 1e6:.3f} µs (goal ≤ 5 µs)")
    post = post_cost()
    print(f"per accepted POST: metric operations {post * 1e6:.1f} µs of CPU = "
          f"{post / POST_WEB_CPU_SECONDS:.2%} of ~{POST_WEB_CPU_SECONDS * 1e3:.0f} ms web CPU (goal ≤ 3 %)")


if __name__ == "__main__":
    main()
