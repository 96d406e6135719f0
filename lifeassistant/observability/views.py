"""``GET /metrics``: the Prometheus text format, for a scraper only.

With ``METRICS_TOKEN`` set the request must carry ``Authorization: Bearer <token>`` (401
otherwise). Unset, only a request from the loopback interface that no proxy forwarded is
answered (403 otherwise): a proxy on the same host would make every client look local.
"""

from __future__ import annotations

import hmac
import ipaddress
from functools import cache

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest

from .metrics import QueueDepthCollector, scrape_registry

_FORWARDING_HEADERS = ("HTTP_X_FORWARDED_FOR", "HTTP_FORWARDED", "HTTP_X_REAL_IP")


@never_cache
@require_GET
def metrics(request: HttpRequest) -> HttpResponse:
    if not settings.METRICS_ENABLED:
        return JsonResponse({"detail": "Metrics are off (METRICS_ENABLED=false)."}, status=404)
    token = settings.METRICS_TOKEN
    if token:
        given = request.headers.get("Authorization", "")
        if not hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
            refused = JsonResponse({"detail": "A valid metrics token is required (Authorization: Bearer ...)."}, status=401)
            refused["WWW-Authenticate"] = 'Bearer realm="metrics"'
            return refused
    elif not is_local(request):
        return JsonResponse({"detail": "Metrics answer only on the loopback interface unless METRICS_TOKEN is set."}, status=403)
    return HttpResponse(generate_latest(_registry()), content_type=CONTENT_TYPE_LATEST)


def is_local(request: HttpRequest) -> bool:
    if any(request.META.get(header) for header in _FORWARDING_HEADERS):
        return False
    try:
        return ipaddress.ip_address(request.META.get("REMOTE_ADDR", "")).is_loopback
    except ValueError:
        return False


@cache
def _registry() -> CollectorRegistry:
    from lifeassistant.celery import app

    broker = "" if settings.CELERY_TASK_ALWAYS_EAGER else settings.CELERY_BROKER_URL
    return scrape_registry([QueueDepthCollector(broker, (app.conf.task_default_queue,))])
