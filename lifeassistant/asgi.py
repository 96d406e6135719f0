"""ASGI entry point: the server of `make run` and of production (streaming needs it).

With DEBUG on, the static files of the apps are served here too, as ``runserver`` does.
"""

import os

from django.conf import settings
from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "lifeassistant.settings")
application = get_asgi_application()

if settings.DEBUG:
    from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler

    application = ASGIStaticFilesHandler(application)
