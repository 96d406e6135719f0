"""A flood of junk usernames cannot flush the sign-in throttle away.

On the local-memory cache (300 entries by default) the per-username budget was spent
even after the per-IP one refused, so junk usernames evicted a victim's counters: a
locked address or username unlocked itself and guessing went on.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db

TOKEN = "/api/v1/auth/token/"


def attempt(address: str, username: str, password: str) -> int:
    return APIClient(REMOTE_ADDR=address).post(
        TOKEN, {"username": username, "password": password}, format="json"
    ).status_code


def cache_entries() -> int:
    return len(cache._cache)  # type: ignore[attr-defined]  # LocMemCache's store


def test_once_the_address_is_refused_junk_usernames_write_nothing(user: Any) -> None:
    codes = [attempt("198.51.100.1", "ana", f"guess-{n}") for n in range(10)]
    entries = cache_entries()

    junk = [attempt("198.51.100.1", f"junk-{n}", "x") for n in range(50)]

    assert codes == [401] * 10
    assert set(junk) == {429}
    assert cache_entries() == entries


def test_a_locked_address_stays_locked_through_a_flood_of_junk_usernames(user: Any) -> None:
    guesses = [attempt("198.51.100.1", "ana", f"guess-{n}") for n in range(11)]
    flood = [attempt(f"203.0.113.{n // 10}", f"junk-{n}", "x") for n in range(320)]

    assert guesses[-1] == 429
    assert set(flood) == {401}
    assert attempt("198.51.100.1", "ana", "pass-ana-123") == 429


def test_the_local_memory_cache_has_room_for_the_counters(settings: Any) -> None:
    assert settings.CACHES["default"]["OPTIONS"]["MAX_ENTRIES"] >= 100_000
