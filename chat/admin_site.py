"""The project's admin site: Django's, with the sign-in throttle on its login page."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.admin.forms import AdminAuthenticationForm
from django.http import HttpRequest, HttpResponse

from .throttling import ThrottledSignIn, refuse_if_throttled


class AdminSignInForm(ThrottledSignIn, AdminAuthenticationForm):
    """The admin's sign-in form, spending the same per-IP and per-username budgets as the app's."""


class AdminSite(admin.AdminSite):
    """``/admin/``: password guessing on its login page is throttled like ``/login/`` and the API."""

    login_form = AdminSignInForm

    def login(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
        response = super().login(request, extra_context)
        context = getattr(response, "context_data", None) or {}
        return refuse_if_throttled(response, context.get("form"))
