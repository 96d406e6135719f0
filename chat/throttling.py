"""Sign-in throttling: attempts per client IP, one budget for the API token and the web login.

The rate is ``LOGIN_RATE`` (``DEFAULT_THROTTLE_RATES["login"]``). Counts live in the
default cache, so every process behind a shared cache (Redis) sees the same budget.
"""

from __future__ import annotations

from typing import Any, cast

from django.http import HttpRequest
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle
from rest_framework.views import APIView


class LoginRateThrottle(SimpleRateThrottle):
    """At most ``LOGIN_RATE`` sign-in attempts per client IP, whoever they claim to be.

    Keyed by IP alone, never by a user: the token endpoint does not authenticate its
    POST, and the username being guessed must not open a fresh budget. Works with a
    DRF ``Request`` and a plain ``HttpRequest`` alike (only ``META`` is read).
    """

    scope = "login"

    def get_rate(self) -> str | None:
        # Read per instance, not at import, so the configured rate always applies.
        rate = api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)
        return None if rate is None else str(rate)

    def get_cache_key(self, request: Any, view: Any) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}

    def allows(self, request: HttpRequest) -> bool:
        """``allow_request`` for a plain Django view (the web sign-in); the view is not used."""
        return self.allow_request(Request(request), cast(APIView, None))
