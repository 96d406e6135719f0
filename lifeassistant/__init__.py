"""The Django project of the life assistant.

litellm reads two variables at import time: without them it fetches a price map
over the network and loads ``./.env``. They are set here, before any module of
the project can import litellm.
"""

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LITELLM_MODE", "PRODUCTION")

from .celery import app as celery_app  # noqa: E402  (needs the variables above)

__all__ = ["celery_app"]
