"""Extra admin pages hang off a model's admin and need that model's view permission."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse


def model_page(model_admin: admin.ModelAdmin[Any], view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """``view`` as a page of ``model_admin``: staff sign-in (``admin_view``), then the
    model's view permission (403 without it), like the admin's own change lists."""

    @wraps(view)
    def guarded(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not model_admin.has_view_permission(request):
            raise PermissionDenied
        return view(request, *args, **kwargs)

    return model_admin.admin_site.admin_view(guarded)
