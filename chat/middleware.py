"""The language of each answer, for web pages and the API alike (rules: chat.language)."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils import translation
from django.utils.cache import patch_vary_headers

from .language import page_language
from lifeassistant.models import Profile


class LanguageMiddleware:
    """Activates the request's language: the profile's for a signed-in user, else the
    language cookie, else ``Accept-Language``, else pt-BR.

    A session user is known here; an API token is only checked inside the view, where
    ``chat.api.authentication.TokenAuthentication`` activates the token owner's language.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        profile = None
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            profile = Profile.objects.filter(user_id=user.pk).values_list("language", flat=True).first()
        language = page_language(
            profile, request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME), request.headers.get("Accept-Language")
        )
        translation.activate(language)
        request.LANGUAGE_CODE = language
        response = self.get_response(request)
        # The token owner's language may have replaced it inside the view.
        response.headers.setdefault("Content-Language", translation.get_language())
        patch_vary_headers(response, ("Accept-Language", "Cookie"))
        return response
