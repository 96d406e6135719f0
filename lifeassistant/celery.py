"""The Celery application. Unset ``CELERY_BROKER_URL`` runs tasks eagerly in-process."""

import gc
import os
from typing import Any

from celery import Celery
from celery.signals import worker_init

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
    """
    from .llm import litellm_module

    litellm_module()
    gc.collect()
    gc.freeze()
