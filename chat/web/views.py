"""Web pages: the chat shell and sign in/out. The data comes from the REST API."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.mixins import LoginRequiredMixin
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.decorators import method_decorator
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.generic import TemplateView

from ..throttling import ThrottledSignIn, refuse_if_throttled


@method_decorator(ensure_csrf_cookie, name="dispatch")
class ChatView(LoginRequiredMixin, TemplateView):
    """The chat application shell; ``static/chat/app/main.js`` fills it from ``/api/v1/``.

    Serves ``/`` and ``/c/<id>/`` alike, so a reload keeps the open conversation.
    """

    template_name = "chat/app.html"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context["api_root"] = api_root()
        context["app_root"] = reverse("chat-home")
        return context


@method_decorator(ensure_csrf_cookie, name="dispatch")
class PreferencesView(LoginRequiredMixin, TemplateView):
    """The user's preferences: language, skills and memory; ``preferences.js`` edits them
    through ``/api/v1/me/``, ``/api/v1/skills/`` and ``/api/v1/memory/``."""

    template_name = "chat/preferences.html"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context["api_root"] = api_root()
        context["app_root"] = reverse("chat-home")
        return context


def api_root() -> str:
    """The REST API prefix (``/api/v1/``), derived from the routes so a mount change follows."""
    return reverse("conversation-list").removesuffix("conversations/")


class SignInForm(ThrottledSignIn, AuthenticationForm):
    """Django's sign-in form; over the attempt budget it refuses without checking the password."""


class LoginView(auth_views.LoginView):
    """Django's sign-in, throttled per client IP and per username (shared with the API and the admin)."""

    template_name = "registration/login.html"
    redirect_authenticated_user = True
    authentication_form = SignInForm

    def form_invalid(self, form: AuthenticationForm) -> HttpResponse:
        return refuse_if_throttled(super().form_invalid(form), form)


class LogoutView(auth_views.LogoutView):
    """Django's logout: POST only (a GET gets 405), then back to the sign-in page."""
