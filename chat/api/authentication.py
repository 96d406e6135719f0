"""Token sign-in (``chat.api_tokens``) that also speaks the token owner's language."""

from __future__ import annotations

from typing import Any

from django.utils import timezone, translation
from django.utils.translation import gettext_lazy as _
from rest_framework import authentication, exceptions

from ..api_tokens import digest_of
from ..language import django_language
from ..models import ApiToken


class TokenAuthentication(authentication.TokenAuthentication):
    """DRF's token authentication; the answer then follows the owner's profile language
    (the language middleware ran before the token was known).

    The token, its user and the user's profile come in one query (DRF's own lookup joins
    the user only, and reading the language took a second query on every API request);
    the profile stays cached on ``request.user`` for the view.
    """

    def authenticate_credentials(self, key: str) -> tuple[Any, Any]:
        try:
            token = ApiToken.objects.select_related("user__profile").get(digest=digest_of(key))
        except ApiToken.DoesNotExist:
            raise exceptions.AuthenticationFailed(_("Invalid token.")) from None
        if token.expires_at <= timezone.now():
            raise exceptions.AuthenticationFailed(_("Invalid token."))
        user = token.user
        if not user.is_active:
            raise exceptions.AuthenticationFailed(_("User inactive or deleted."))
        profile = getattr(user, "profile", None)  # a user may have no profile yet
        if profile is not None and profile.language:
            translation.activate(django_language(profile.language))
        return user, token
