"""Request limits applied before any view, authentication or CSRF check runs."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.translation import gettext as _

from .views import is_api


class RequestSizeLimitMiddleware:
    """An API request announcing a body over ``REQUEST_MAX_BYTES`` gets a JSON 413 at once.

    Bodies without a Content-Length (chunked) are bounded where they are read: the
    API's JSON parser reads at most the limit, and Django's form parsing stops at
    ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (the same limit).
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if is_api(request) and announced_length(request) > settings.REQUEST_MAX_BYTES:
            return JsonResponse(
                {"detail": _("The request body is too large (at most %(limit)s bytes).") % {"limit": settings.REQUEST_MAX_BYTES}},
                status=413,
            )
        return self.get_response(request)


def announced_length(request: HttpRequest) -> int:
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return 0
