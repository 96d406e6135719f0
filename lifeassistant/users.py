"""The user behind an authenticated request, typed as such."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django.http import HttpRequest
    from rest_framework.request import Request


def request_user(request: Request | HttpRequest) -> User:
    """``request.user`` of a view behind ``IsAuthenticated`` (the API's default permission).

    The attribute is typed ``User | AnonymousUser``; once that permission has passed it is
    never anonymous, which the type checker cannot know.
    """
    return cast("User", request.user)
