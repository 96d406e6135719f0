"""Token sign-in that also speaks the token owner's language."""

from __future__ import annotations

from typing import Any

from django.utils import translation
from rest_framework import authentication

from ..language import django_language
from lifeassistant.models import Profile


class TokenAuthentication(authentication.TokenAuthentication):
    """DRF's token authentication; the answer then follows the owner's profile language
    (the language middleware ran before the token was known)."""

    def authenticate_credentials(self, key: str) -> tuple[Any, Any]:
        user, token = super().authenticate_credentials(key)
        language = Profile.objects.filter(user_id=user.pk).values_list("language", flat=True).first()
        if language:
            translation.activate(django_language(language))
        return user, token
