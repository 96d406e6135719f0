"""ASGI entry point: the server of `make run` and of production (streaming needs it).

With DEBUG on, the static files of the apps are served here too, as ``runserver`` does.
Event streams are served on a few shared threads (``lifeassistant.stream_lanes``).
"""

import os
from typing import Any

import django
from django.conf import settings

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "lifeassistant.settings")
django.setup(set_prefix=False)  # as django.core.asgi.get_asgi_application does

from .stream_lanes import LanedASGIHandler  # noqa: E402  (after the apps loaded)

application: Any = LanedASGIHandler()

from .observability import tracing  # noqa: E402  (after the apps loaded)
from .warmup import warm_up  # noqa: E402

tracing.start_sdk_unless_forking()
# Before serving (and under gunicorn's --preload, before forking: the workers share it).
warm_up()

if settings.CELERY_TASK_ALWAYS_EAGER and settings.EMBEDDED_REPLY_THREADS:
    # No broker: this process answers the replies itself, in threads, so it needs litellm.
    # Import it now, before serving: imported under load, its logging hooks (run by the
    # server's access log) import litellm modules that a reply thread is importing too,
    # and both fail. With a broker the Celery worker imports it instead (celery.py).
    from .llm import load_for_replies

    load_for_replies()

if settings.DEBUG:
    from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler

    application = ASGIStaticFilesHandler(application)
