"""Error pages: JSON under /api/, Django's HTML pages elsewhere."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import defaults
from django.utils.translation import gettext as _


def is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """Django's own 400s (a body past DATA_UPLOAD_MAX_MEMORY_SIZE, a bad host) in the API's shape."""
    if is_api(request):
        return JsonResponse({"detail": _("Bad request.")}, status=400)
    return defaults.bad_request(request, exception or Exception())


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if is_api(request):
        return JsonResponse({"detail": _("Not found.")}, status=404)
    return defaults.page_not_found(request, exception or Exception())


def server_error(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
    if is_api(request):
        return JsonResponse({"detail": _("Internal server error. The error was logged; please retry.")}, status=500)
    return defaults.server_error(request)
