"""Web pages: the chat shell and sign in/out. The data comes from the REST API."""

from __future__ import annotations

import math
from typing import Any

from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.mixins import LoginRequiredMixin
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.decorators import method_decorator
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.generic import TemplateView

from ..throttling import LoginRateThrottle


@method_decorator(ensure_csrf_cookie, name="dispatch")
class ChatView(LoginRequiredMixin, TemplateView):
    """The chat application shell; ``app.js`` fills it from ``/api/v1/``.

    Serves ``/`` and ``/c/<id>/`` alike, so a reload keeps the open conversation.
    """

    template_name = "chat/app.html"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context["api_root"] = api_root()
        context["app_root"] = reverse("chat-home")
        return context


def api_root() -> str:
    """The REST API prefix (``/api/v1/``), derived from the routes so a mount change follows."""
    return reverse("conversation-list").removesuffix("conversations/")


SIGN_IN_THROTTLED = "Too many sign-in attempts. Try again in a minute."


class ThrottledSignInForm(AuthenticationForm):
    """The sign-in form answering an attempt over the limit: it never checks the password."""

    def clean(self) -> dict[str, Any]:
        raise ValidationError(SIGN_IN_THROTTLED, code="throttled")


class LoginView(auth_views.LoginView):
    """Django's sign-in, with at most LOGIN_RATE attempts per client IP (shared with the API token)."""

    template_name = "registration/login.html"
    redirect_authenticated_user = True

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        throttle = LoginRateThrottle()
        if throttle.allows(request):
            return super().post(request, *args, **kwargs)
        form = ThrottledSignInForm(request, data=request.POST)
        response = self.render_to_response(self.get_context_data(form=form), status=429)
        wait = throttle.wait()
        if wait is not None:
            response["Retry-After"] = str(max(1, math.ceil(wait)))
        return response


class LogoutView(auth_views.LogoutView):
    """Django's logout: POST only (a GET gets 405), then back to the sign-in page."""
