"""One JSON error shape for the whole API: {"detail": "...", "errors": {...}?}."""

from __future__ import annotations

from django.utils.translation import gettext as _

from typing import Any

from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's handler, with validation errors wrapped so every error body has ``detail``."""
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        errors = response.data
        response.data = {"detail": _first_message(errors), "errors": errors}
    return response


def _first_message(errors: Any) -> str:
    """A one-line summary of a (possibly nested) validation error."""
    if isinstance(errors, dict):
        for field, value in errors.items():
            message = _first_message(value)
            return message if field in ("non_field_errors", "detail") else f"{field}: {message}"
    if isinstance(errors, list) and errors:
        return _first_message(errors[0])
    return str(errors) or _("Invalid input.")
