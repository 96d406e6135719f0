"""Throttles: sign-in attempts (per client IP, per username and IP, per username) and messages.

Every sign-in — ``POST /api/v1/auth/token/``, the web ``/login/`` and the admin's
``/admin/login/`` — spends one attempt of the client IP's budget (``LOGIN_RATE``), then
one of that IP's budget at the claimed username (``LOGIN_USERNAME_IP_RATE``), then, only
if that IP already failed at that username, one of the username's (``LOGIN_USERNAME_RATE``).
So guessers are backed off everywhere while the owner, from a client that has not
failed, still gets their password checked: strangers cannot lock an account. Counts live
in the default cache, so every process behind a shared cache (Redis) sees the same
budgets, and on Redis a request is counted in one atomic step (``AtomicWindow``). A
cache that is down does not block anyone: the throttles fail open and log it.
"""

from __future__ import annotations

import hashlib
import math
from typing import Any, cast

from django.core.exceptions import ValidationError
from django.http import HttpRequest
from django.utils.translation import ngettext
from rest_framework.request import Request
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle, ScopedRateThrottle, SimpleRateThrottle
from rest_framework.views import APIView

from lifeassistant.cache import CACHE_ERRORS, log_cache_fault
from lifeassistant.sliding_window import Spent, redis_of, seconds_until_free, spend

def sign_in_throttled(wait: float) -> str:
    """The sign-in forms' refusal, with the real wait (the per-username budget is per hour)."""
    seconds = max(1, math.ceil(wait))
    if seconds < 60:
        return ngettext(
            "Too many sign-in attempts. Try again in %(count)d second.",
            "Too many sign-in attempts. Try again in %(count)d seconds.",
            seconds,
        ) % {"count": seconds}
    minutes = math.ceil(seconds / 60)
    return ngettext(
        "Too many sign-in attempts. Try again in %(count)d minute.",
        "Too many sign-in attempts. Try again in %(count)d minutes.",
        minutes,
    ) % {"count": minutes}

_FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


class FailOpen:
    """A throttle that lets the request through when its cache is unreachable."""

    def allow_request(self, request: Any, view: Any) -> bool:
        try:
            return bool(super().allow_request(request, view))  # type: ignore[misc]
        except CACHE_ERRORS as exc:
            log_cache_fault(f"{type(self).__name__} allowed a request", exc)
            return True


class AtomicWindow(SimpleRateThrottle):
    """DRF's throttle, spending the budget in one atomic step when the cache is Redis
    (``lifeassistant.sliding_window``): parallel requests cannot all pass on one read.
    Any other cache (the local-memory default, one process) keeps DRF's list."""

    spent: Spent | None = None
    # Set by SimpleRateThrottle from the rate (django-stubs leave them out).
    num_requests: int
    duration: int

    def allow_request(self, request: Any, view: Any) -> bool:
        client = redis_of(self.cache)
        if client is None or self.rate is None:
            return bool(super().allow_request(request, view))
        self.key = self.get_cache_key(request, view)
        if self.key is None:
            return True
        self.now = self.timer()
        self.spent = spend(
            client, self.cache.make_key(self.key), now=self.now, window=self.duration, limit=self.num_requests
        )
        return self.spent.allowed

    def wait(self) -> float | None:
        if self.spent is None:
            return super().wait()
        return seconds_until_free(self.spent, now=self.now, window=self.duration)


class ConfiguredRate(AtomicWindow):
    def get_rate(self) -> str | None:
        # Read per instance, not at import, so the configured rate always applies.
        rate = api_settings.DEFAULT_THROTTLE_RATES.get(self.scope or "")
        return None if rate is None else str(rate)


class LoginRateThrottle(FailOpen, ConfiguredRate):
    """At most ``LOGIN_RATE`` sign-in attempts per client IP, whoever they claim to be.

    Keyed by IP alone: the token endpoint does not authenticate its POST, and the
    username being guessed must not open a fresh budget. Works with a DRF ``Request``
    and a plain ``HttpRequest`` alike (only ``META`` is read).
    """

    scope = "login"

    def get_cache_key(self, request: Any, view: Any) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


def _digest(*parts: str) -> str:
    """A short hash of what identifies a budget, so the cache never holds the names people typed."""
    joined = "\0".join(parts)
    return hashlib.sha256(joined.encode("utf-8", "replace")).hexdigest()[:32]


def _client_key(username: str, ident: str) -> str:
    """The key of one client's (IP's) failures at one username, case-folded like the username."""
    return "sign_in_failed_" + _digest(username.casefold(), ident)


class LoginClientThrottle(FailOpen, ConfiguredRate):
    """At most ``LOGIN_USERNAME_IP_RATE`` attempts at one username from one client IP.

    Cleared when that client signs in: only its failures since then count.
    """

    scope = "login_username_ip"

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        username = claimed_username(request)
        return None if username is None else self.key_for(username, self.get_ident(request))

    def key_for(self, username: str, ident: str) -> str:
        return self.cache_format % {"scope": self.scope, "ident": _digest(username.casefold(), ident)}


class LoginUsernameThrottle(FailOpen, ConfiguredRate):
    """At most ``LOGIN_USERNAME_RATE`` attempts per username, from anywhere, by clients that
    have already failed at it.

    Stops guessing one account's password from many addresses without handing the
    guessers a lockout: a client (IP) with no failure at this username in the window is
    neither counted nor refused, so the owner's right password from their own device still
    gets checked while strangers are backed off. Case-folded and hashed.
    """

    scope = "login_username"

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        username = claimed_username(request)
        if username is None or not self.cache.get(_client_key(username, self.get_ident(request))):
            return None
        return self.key_for(username)

    def key_for(self, username: str) -> str:
        return self.cache_format % {"scope": self.scope, "ident": _digest(username.casefold())}


class PasswordCheckThrottle(LoginUsernameThrottle):
    """A signed-in user's password check (closing the account) spends their username's
    sign-in budget: a stolen session or token guesses the password no faster than the
    sign-in page lets anyone."""

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        user = getattr(request, "user", None)
        if user is None or not user.is_authenticated:
            return None
        return self.key_for(user.get_username())


class SignInThrottle(BaseThrottle):
    """The budgets one sign-in attempt spends, in order, stopping at the first refusal.

    The per-IP budget comes first and, once it refuses, no username budget is read or
    written: junk usernames from one address cannot create cache entries faster than
    ``LOGIN_RATE`` (they flushed the victim's counters out of a small local cache).
    """

    def __init__(self) -> None:
        self.refused_wait: float | None = None

    def allow_request(self, request: Any, view: Any) -> bool:
        for throttle in (LoginRateThrottle(), LoginClientThrottle(), LoginUsernameThrottle()):
            if not throttle.allow_request(request, view):
                self.refused_wait = throttle.wait() or 1.0
                return False
        return True

    def wait(self) -> float | None:
        return self.refused_wait


def sign_in_failed(request: Any, username: str) -> None:
    """Mark the client as having failed at ``username``: from now on, for the username
    budget's window, its attempts spend the username's budget from anywhere."""
    throttle = LoginUsernameThrottle()
    try:
        throttle.cache.set(_client_key(username, throttle.get_ident(request)), True, throttle.duration)
    except CACHE_ERRORS as exc:
        log_cache_fault("a failed sign-in was not recorded", exc)


def forget_sign_ins(request: Any, username: str) -> None:
    """A successful sign-in clears its client's failures at that username: the owner
    signing in often (tabs, devices, a script) never locks the account. The username's
    budget is left alone: the clients that failed at it stay backed off."""
    throttle = LoginClientThrottle()
    ident = throttle.get_ident(request)
    try:
        throttle.cache.delete_many([
            throttle.key_for(username, ident),
            _client_key(username, ident),
        ])
    except CACHE_ERRORS as exc:
        log_cache_fault("the sign-in budget was not cleared", exc)


def claimed_username(request: Any) -> str | None:
    """The ``username`` a sign-in request carries (form or JSON body), if any."""
    django_request = request._request if isinstance(request, Request) else request
    if isinstance(request, Request) and request.parsers:
        # An API view: its own parsers read the body (JSON only, so a form is a 415
        # here rather than a body consumed behind the parser's back).
        data = request.data
        value = data.get("username") if isinstance(data, dict) else None
    elif django_request.content_type in _FORM_TYPES:
        value = django_request.POST.get("username")
    else:
        value = None
    return value.strip() if isinstance(value, str) and value.strip() else None


def sign_in_throttles() -> list[BaseThrottle]:
    """The budgets one sign-in attempt spends (DRF ``get_throttles`` of the token view)."""
    return [SignInThrottle()]


def sign_in_wait(request: HttpRequest) -> float | None:
    """Spend one attempt; None when the attempt may go ahead, else seconds to wait.

    For the Django sign-in forms (web and admin); the API uses ``sign_in_throttles``.
    """
    throttle = SignInThrottle()
    if throttle.allow_request(Request(request), cast(APIView, None)):  # the view is not read
        return None
    return throttle.wait()


class ThrottledSignIn:
    """Mixin for Django's sign-in forms: over the budget, the password is never checked."""

    request: HttpRequest | None
    throttle_wait: float | None = None

    def clean(self) -> dict[str, Any]:
        cleaned: dict[str, Any] = self.cleaned_data  # type: ignore[attr-defined]
        # A form sent without a username or a password checks no password: it costs no attempt.
        missing = not cleaned.get("username") or not cleaned.get("password")
        checked = self.request is not None and self.request.method == "POST" and not missing
        if checked:
            self.throttle_wait = sign_in_wait(self.request)  # type: ignore[arg-type]  # checked above
            if self.throttle_wait is not None:
                raise ValidationError(sign_in_throttled(self.throttle_wait), code="throttled")
        try:
            cleaned = super().clean()  # type: ignore[misc]
        finally:
            user = self.get_user()  # type: ignore[attr-defined]  # AuthenticationForm's
            if checked and user is None:
                sign_in_failed(self.request, cleaned["username"])
        if user is not None:
            forget_sign_ins(self.request, user.get_username())
        return cleaned


def retry_after(wait: float) -> str:
    return str(max(1, math.ceil(wait)))


class MessageRateThrottle(FailOpen, ScopedRateThrottle, AtomicWindow):
    """``MESSAGE_RATE`` per user for the views with ``throttle_scope = "messages"``."""


def refuse_if_throttled(response: Any, form: Any) -> Any:
    """A sign-in page re-rendered because of the throttle answers 429 with Retry-After."""
    wait = getattr(form, "throttle_wait", None)
    if wait is not None:
        response.status_code = 429
        response["Retry-After"] = retry_after(wait)
    return response
