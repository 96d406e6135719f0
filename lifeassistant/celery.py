"""The Celery application. Unset ``CELERY_BROKER_URL`` runs tasks eagerly in-process."""

import gc
import os
from typing import Any

from celery import Celery
from celery.signals import worker_init, worker_process_init, worker_process_shutdown, worker_ready, worker_shutdown

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "lifeassistant.settings")

app = Celery("lifeassistant")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_init.connect
def import_the_model_gateway(**_: Any) -> None:
    """A worker answers with litellm: import it (seconds, ~140 MiB) once, before the
    prefork pool forks, so the first reply does not wait and the children share its pages.

    Sharing lasts only while no child writes to those pages, and a garbage collection in
    a child writes to the header of every object it examines: ``gc.freeze()`` moves what
    the parent holds now out of the collector's sight, so the children's collections
    leave the inherited pages alone (the pattern the ``gc`` documentation gives for
    fork without exec).

    The apps' warm-up steps run here too (``lifeassistant.warmup``: the skill catalog, the
    model's window, the broker transport), so the first burst of replies does not build them.
    """
    from .llm import load_for_replies
    from .warmup import warm_up

    load_for_replies()
    warm_up()
    gc.collect()
    gc.freeze()


@worker_init.connect
def prepare_observability(sender: Any = None, **_: Any) -> None:
    """Before the pool forks: a fresh metrics directory (values of a previous run would be
    summed with this one's), and traces started here unless pool processes will start them."""
    from .observability import metrics, tracing

    metrics.wipe_multiprocess_directory()
    if "prefork" not in str(getattr(sender, "pool_cls", "prefork")).lower():
        tracing.start_sdk()  # threads or solo: this process runs the tasks


@worker_process_init.connect
def start_tracing_in_pool_process(**_: Any) -> None:
    """The tracing SDK's exporter thread does not survive a fork: each pool process starts its own."""
    from .observability import tracing

    tracing.start_sdk()


@worker_process_shutdown.connect
def mark_pool_process_dead(pid: int | None = None, **_: Any) -> None:
    """A pool process that exits stops counting in the live gauges (replies in flight)."""
    from .observability import metrics

    metrics.mark_process_dead(pid or os.getpid())


@worker_ready.connect
def serve_worker_metrics_and_readiness(**_: Any) -> None:
    """The worker's metrics on ``WORKER_METRICS_PORT`` (0: none), and its readiness file."""
    from django.conf import settings

    from .observability import metrics, worker_health

    if settings.WORKER_METRICS_PORT:
        metrics.start_worker_metrics_server(settings.WORKER_METRICS_PORT, settings.WORKER_METRICS_ADDRESS)
    worker_health.mark_ready()


@worker_shutdown.connect
def withdraw_readiness(**_: Any) -> None:
    from .observability import worker_health

    worker_health.mark_not_ready()
