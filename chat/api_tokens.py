"""API tokens: issued per client with an expiry, stored as digests, revoked with the password.

``POST /api/v1/auth/token/`` used to return the same token forever (DRF's
``get_or_create``) and a password change left it valid: a leaked token outlived the
password reset meant to lock its holder out.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from .models import ApiToken

# A user's live tokens at most; signing in once more drops the oldest. Bounds the rows an
# account (or a script signing in in a loop) can pile up.
MAX_TOKENS_PER_USER = 20


def digest_of(key: str) -> str:
    """The stored form of a token key."""
    return hashlib.sha256(key.encode("utf-8", "replace")).hexdigest()


def issue_token(user: Any, client: str = "") -> tuple[ApiToken, str]:
    """A new token for ``user`` and ``client``, and its key (returned once, never stored).

    A named client's previous token is revoked: one token per device. Expired tokens of
    the user are deleted, and the oldest beyond ``MAX_TOKENS_PER_USER``.
    """
    key = secrets.token_hex(20)
    now = timezone.now()
    with transaction.atomic():
        tokens = ApiToken.objects.filter(user=user)
        tokens.filter(expires_at__lte=now).delete()
        if client:
            tokens.filter(client=client).delete()
        kept = list(tokens.values_list("pk", flat=True)[: MAX_TOKENS_PER_USER - 1])
        tokens.exclude(pk__in=kept).delete()
        token = ApiToken.objects.create(
            user=user, client=client, digest=digest_of(key), expires_at=now + timedelta(days=settings.API_TOKEN_TTL_DAYS)
        )
    return token, key


def revoke_on_password_change(sender: Any, instance: Any, created: bool, **_: Any) -> None:
    """``post_save`` of the user model: a new password revokes every API token of the user.

    ``set_password`` leaves the raw password in ``_password`` until the next save (Django
    then notifies the password validators); a hash upgraded at sign-in does not.
    """
    if not created and getattr(instance, "_password", None) is not None:
        ApiToken.objects.filter(user=instance).delete()
