"""The Celery application. Unset ``CELERY_BROKER_URL`` runs tasks eagerly in-process."""

import gc
import logging
import os
from typing import Any

from celery import Celery
from celery.signals import worker_init
from django.conf import settings

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "lifeassistant.settings")

app = Celery("lifeassistant")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

logger = logging.getLogger(__name__)


@worker_init.connect
def import_the_model_gateway(**_: Any) -> None:
    """A worker answers with litellm: import it (seconds, ~190 MiB) once, before the
    prefork pool forks, so the first reply does not wait and the children share its pages.

    Sharing lasts only while no child writes to those pages, and a garbage collection in
    a child writes to the header of every object it examines: ``gc.freeze()`` moves what
    the parent holds now out of the collector's sight, so the children's collections
    leave the inherited pages alone (the pattern the ``gc`` documentation gives for
    fork without exec).
    """
    from .llm import litellm_module

    litellm = litellm_module()
    # litellm counts a call's prompt with the model's tokenizer as the call opens (for its
    # cost estimate). Built here (~40 MiB for cl100k), it is one copy the children share
    # rather than one each, built during a child's first reply.
    try:
        litellm.token_counter(model=settings.LLM_MODEL, text="warm-up")
    except Exception:  # a model litellm cannot count for is still a model it can call
        logger.warning("could not load the tokenizer of %s before forking", settings.LLM_MODEL, exc_info=True)
    gc.collect()
    gc.freeze()
