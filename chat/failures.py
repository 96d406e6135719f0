"""Why a reply failed: a stable code for clients and a sentence for the person reading.

The technical detail (the exception's class, the provider's message) is kept in
``Message.error`` for the logs and the admin; the API shows only the code and its
sentence, in the reader's language, so no class name or provider text reaches a user.
"""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

from lifeassistant.failures import FailureCode


class Failure(models.TextChoices):
    """``lifeassistant.failures.FailureCode`` with a label: what a user reads."""

    TIMEOUT = FailureCode.TIMEOUT.value, _("The assistant did not answer in time. Please retry.")
    MODEL_UNAVAILABLE = FailureCode.MODEL_UNAVAILABLE.value, _("The assistant is unavailable right now. Please retry in a moment.")
    MODEL_INTERRUPTED = FailureCode.MODEL_INTERRUPTED.value, _("The assistant stopped in the middle of its answer. Please retry.")
    MODEL_REFUSED = FailureCode.MODEL_REFUSED.value, _("The assistant could not answer this request. Please retry.")
    NOT_QUEUED = FailureCode.NOT_QUEUED.value, _("The assistant could not be reached. Please retry.")
    INTERNAL = FailureCode.INTERNAL.value, _("An internal error stopped the assistant. Please retry.")


def failure_text(code: str) -> str:
    """The sentence for ``code``; an empty or unknown code reads as the internal one."""
    return str(Failure(code).label if code in Failure.values else Failure.INTERNAL.label)
