"""The Celery application. Unset ``CELERY_BROKER_URL`` runs tasks eagerly in-process."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "lifeassistant.settings")

app = Celery("lifeassistant")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
