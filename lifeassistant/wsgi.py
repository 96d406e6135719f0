"""WSGI entry point."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "lifeassistant.settings")
application = get_wsgi_application()

from .observability import tracing  # noqa: E402  (after the apps loaded)

tracing.start_sdk_unless_forking()
