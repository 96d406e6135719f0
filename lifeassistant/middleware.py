"""Request limits applied before any view, authentication or CSRF check runs, and the
answer when no database connection is free."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, HttpResponseBase, JsonResponse
from django.middleware.common import CommonMiddleware as DjangoCommonMiddleware
from django.template.defaultfilters import filesizeformat
from django.utils.deprecation import MiddlewareMixin
from django.utils.translation import gettext as _

from .views import is_api, not_found

logger = logging.getLogger(__name__)

# Seconds a client is asked to wait when every database connection is in use.
BUSY_RETRY_AFTER_SECONDS = 5


# Methods whose request may carry a body the API reads.
_WITH_BODY = frozenset({"POST", "PUT", "PATCH", "DELETE"})


# The one API endpoint that takes files (chat.api.documents.ConversationFilesView): its
# bodies may reach UPLOAD_MAX_BYTES, plus the multipart envelope around the file.
UPLOAD_PATH = re.compile(r"^/api/v\d+/conversations/\d+/files/$")
MULTIPART_ENVELOPE_BYTES = 64 * 1024


def body_limit(request: HttpRequest) -> int:
    """The largest body ``request`` may carry."""
    if UPLOAD_PATH.match(request.path):
        return settings.UPLOAD_MAX_BYTES + MULTIPART_ENVELOPE_BYTES
    return settings.REQUEST_MAX_BYTES


class RequestSizeLimitMiddleware:
    """An API request with a body over ``REQUEST_MAX_BYTES`` (``UPLOAD_MAX_BYTES`` for a
    file sent to a conversation) gets a JSON 413 at once.

    A body sent without a Content-Length (``Transfer-Encoding: chunked``, as a client
    streaming its request sends it) is measured here: DRF reads a request without a
    Content-Length as having no body, so the message, title or settings it carried were
    silently dropped and the request answered as if they had been empty. The ASGI
    handler has already buffered the whole body, so it is read once, checked against the
    limit (Django's ``DATA_UPLOAD_MAX_MEMORY_SIZE``, the same number) and its length set.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if is_api(request):
            limit = body_limit(request)
            if request.method in _WITH_BODY and not request.META.get("CONTENT_LENGTH"):
                try:
                    request.META["CONTENT_LENGTH"] = str(len(request.body))
                except RequestDataTooBig:
                    return too_large(limit)
            if announced_length(request) > limit:
                return too_large(limit)
        return self.get_response(request)


def too_large(limit: int | None = None) -> JsonResponse:
    return JsonResponse({"detail": too_large_detail(limit)}, status=413)


def too_large_detail(limit: int | None = None) -> str:
    """The 413's sentence, here and from the API's JSON parser (``chat.api.parsers``)."""
    if limit is not None and limit > settings.REQUEST_MAX_BYTES:  # a file: no "parts" to send
        return _("This file is too large: send at most %(size)s.") % {"size": filesizeformat(settings.UPLOAD_MAX_BYTES)}
    # Read by people too (the web chat shows it): a size they know, and what to do.
    return _("This is too large to send: at most %(size)s. Send long texts in parts.") % {
        "size": filesizeformat(settings.REQUEST_MAX_BYTES)
    }


def announced_length(request: HttpRequest) -> int:
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return 0


class ApiNotFoundMiddleware:
    """An API address nothing answers is a JSON 404 also with ``DEBUG`` on.

    ``handler404`` gives it (``lifeassistant.views.not_found``), but Django uses its HTML
    debug page instead while ``DEBUG`` is on, which ``make run`` sets: a client reading
    ``/api/v1/messages/abc/`` got HTML. Views' own 404s are JSON already and pass as they are.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if response.status_code == 404 and is_api(request) and response.get("Content-Type", "").startswith("text/html"):
            return not_found(request)
        return response


class CommonMiddleware(DjangoCommonMiddleware):
    """Django's, except that an API write to an address missing its slash is redirected
    with ``308``, which keeps the method and the body.

    Django answers such a ``POST`` with a 500 (a ``RuntimeError`` telling the developer
    to add the slash) while ``DEBUG`` is on, and with a ``301`` otherwise, which clients
    follow as a ``GET``: the conversation list came back with a 200, and nothing was
    created. A 308 is followed as the same request by clients that follow redirects,
    and is no 2xx for those that do not.
    """

    def process_response(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        if (
            response.status_code == 404
            and request.method not in ("GET", "HEAD", "OPTIONS")
            and is_api(request)
            and self.should_redirect_with_slash(request)
        ):
            location = request.get_full_path(force_append_slash=True)
            redirect = JsonResponse(
                {"detail": _("This address ends with a slash: %(path)s") % {"path": location}}, status=308
            )
            redirect["Location"] = location
            return redirect
        return super().process_response(request, response)


class DatabaseBusyMiddleware(MiddlewareMixin):
    """A request that waited ``DATABASE_POOL_TIMEOUT_SECONDS`` for a database connection
    and got none (a burst larger than the pool) is answered ``503`` with ``Retry-After``:
    the service is busy, nothing is wrong with the request, and it may be sent again. It
    was a ``500`` that said "internal server error" to a client that only had to wait.
    Django's mixin: it serves a sync or an async middleware chain alike.
    """

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponseBase | None:
        if not waited_for_a_connection(exception):
            return None
        logger.warning("no database connection free for %s %s: answered 503", request.method, request.path)
        detail = _("The service is busy right now. Try again in a few seconds.")
        response: HttpResponseBase
        if is_api(request):
            response = JsonResponse({"detail": detail}, status=503)
        else:
            response = HttpResponse(detail, status=503, content_type="text/plain; charset=utf-8")
        response["Retry-After"] = str(BUSY_RETRY_AFTER_SECONDS)
        return response


def waited_for_a_connection(exception: BaseException) -> bool:
    """True when ``exception`` (Django wraps the driver's errors) came from the pool's wait."""
    from psycopg_pool import PoolTimeout  # installed with the project; used only on PostgreSQL

    seen: BaseException | None = exception
    for _depth in range(5):
        if seen is None:
            return False
        if isinstance(seen, PoolTimeout):
            return True
        seen = seen.__cause__ or seen.__context__
    return False
