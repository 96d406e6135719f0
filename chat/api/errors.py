"""One JSON error shape for the whole API: {"detail": "...", "errors": {...}?}."""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import ObjectDoesNotExist
from django.http import Http404
from django.utils.translation import gettext as _

from rest_framework import exceptions
from rest_framework.exceptions import ErrorDetail
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

logger = logging.getLogger(__name__)


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's handler, with validation errors wrapped so every error body has ``detail``.

    A row that vanishes while a request works on it (the user deleted the conversation in
    another tab after the view found it, and the service's lock no longer finds it) is a
    404, as it would have been a moment earlier, not a server error. A 404 says "Not
    found." in the reader's language: ``get_object_or_404``'s own text is English and
    names the model class.
    """
    if isinstance(exc, ObjectDoesNotExist):
        logger.info("%s: deleted while the request used it", type(exc).__qualname__)
        exc = exceptions.NotFound()
    elif isinstance(exc, Http404):
        exc = exceptions.NotFound()
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.Throttled):
        # DRF's own pt-BR text is European and misspelt ("Espera-se que esteja diponível").
        wait = getattr(exc, "wait", None)  # set by DRF's Throttled; its stubs miss it
        if wait is None:
            detail = _("Too many requests. Try again in a moment.")
        else:  # the seconds Retry-After gives
            detail = _("Too many requests. Try again in %(seconds)s s.") % {"seconds": max(1, int(wait))}
        response.data = {"detail": detail}
    if isinstance(exc, exceptions.ValidationError):
        errors = _translated(response.data)
        response.data = {"detail": _first_message(errors), "errors": errors}
    return response


def _translated(errors: Any) -> Any:
    """DRF's one validation message without a translation (a ``null`` body), in the
    reader's language like the others."""
    if isinstance(errors, dict):
        return {field: _translated(value) for field, value in errors.items()}
    if isinstance(errors, list):
        return [_translated(value) for value in errors]
    if isinstance(errors, ErrorDetail) and errors.code == "null" and str(errors) == "No data provided":
        return ErrorDetail(_("No data provided: send a JSON object."), code="null")
    return errors


def _first_message(errors: Any) -> str:
    """A one-line summary of a (possibly nested) validation error."""
    if isinstance(errors, dict):
        for field, value in errors.items():
            message = _first_message(value)
            return message if field in ("non_field_errors", "detail") else f"{field}: {message}"
    if isinstance(errors, list) and errors:
        return _first_message(errors[0])
    return str(errors) or _("Invalid input.")
