"""The host product's per-user data: the profile, and the rows the assistant's tools work on."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models


def _validate_preferences(value: Any) -> None:
    if not isinstance(value, dict) or not all(
        isinstance(key, str) and isinstance(flag, bool) for key, flag in value.items()
    ):
        raise ValidationError('Preferences must be an object of true/false flags, e.g. {"christian_perspective": true}.')


class Profile(models.Model):
    """What the assistant knows about how to talk to one user."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile")
    language = models.CharField(max_length=8, blank=True, help_text="ISO 639-1 code, follows the user's messages.")
    preferences = models.JSONField(
        default=dict,
        blank=True,
        validators=[_validate_preferences],
        help_text='Boolean flags that skills may require, e.g. {"christian_perspective": true}.',
    )
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"Profile of {self.user}"

    @classmethod
    def for_user(cls, user: Any) -> Profile:
        profile, _ = cls.objects.get_or_create(user=user)
        return profile
