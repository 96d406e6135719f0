"""The one settings loader: typed reads of environment variables.

Every reader raises ``ImproperlyConfigured`` naming the variable when a value is
malformed, so a bad deployment fails at start instead of at the first request.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any
from urllib.parse import urlparse

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def _raw(name: str) -> str | None:
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return None
    return value.strip()


def env_str(name: str, default: str = "") -> str:
    """A string, or ``default`` when unset or blank."""
    value = _raw(name)
    return default if value is None else value


def env_bool(name: str, default: bool) -> bool:
    """A boolean written as 1/0, true/false, yes/no or on/off."""
    value = _raw(name)
    if value is None:
        return default
    lowered = value.lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (true/false), got {value!r}.")


def env_int(name: str, default: int, *, minimum: int | None = None, maximum: int | None = None) -> int:
    """An integer, optionally bounded."""
    value = _raw(name)
    if value is None:
        return default
    try:
        number = int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be an integer, got {value!r}.") from None
    _check_bounds(name, number, minimum, maximum)
    return number


def env_float(name: str, default: float, *, minimum: float | None = None, maximum: float | None = None) -> float:
    """A floating-point number, optionally bounded."""
    value = _raw(name)
    if value is None:
        return default
    try:
        number = float(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a number, got {value!r}.") from None
    _check_bounds(name, number, minimum, maximum)
    return number


def _check_bounds(name: str, number: float, minimum: float | None, maximum: float | None) -> None:
    if minimum is not None and number < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}, got {number}.")
    if maximum is not None and number > maximum:
        raise ImproperlyConfigured(f"{name} must be at most {maximum}, got {number}.")


_RATE = re.compile(r"\s*(\d+)\s*/\s*([a-z]+)\s*", re.ASCII | re.IGNORECASE)
_RATE_PERIODS = ("second", "minute", "hour", "day")


def env_rate(name: str, default: str) -> str:
    """A throttle rate, ``<requests>/<period>``: ``30/minute``, ``10/m``, ``5/min``, ``1000/day``.

    The period is second, minute, hour or day, or any prefix of one (DRF reads only its
    first letter). Returned as DRF expects it: no spaces, lower case.
    """
    value = env_str(name, default)
    match = _RATE.fullmatch(value)
    period = match.group(2).lower() if match else ""
    word = period[:-1] if len(period) > 1 and period.endswith("s") else period  # "mins", "seconds"
    if match is None or int(match.group(1)) < 1 or not any(full.startswith(word) for full in _RATE_PERIODS):
        raise ImproperlyConfigured(
            f"{name} must be a rate such as 30/minute (a positive number of requests per second, minute, "
            f"hour or day), got {value!r}."
        )
    requests = int(match.group(1))
    return f"{requests}/{period}"


def env_list(name: str, default: list[str]) -> list[str]:
    """A comma-separated list; blank items are dropped."""
    value = _raw(name)
    if value is None:
        return list(default)
    return [item.strip() for item in value.split(",") if item.strip()]


def env_json_object(name: str) -> dict[str, Any]:
    """A JSON object (``{"bucket_name": "files"}``), ``{}`` when unset."""
    value = _raw(name)
    if value is None:
        return {}
    try:
        parsed = json.loads(value)
    except json.JSONDecodeError:
        parsed = None
    if not isinstance(parsed, dict):
        raise ImproperlyConfigured(f"{name} must be a JSON object, got {value!r}.")
    return parsed


def env_database(name: str, default: str) -> dict[str, Any]:
    """A Django DATABASES entry from a URL (sqlite:///path or postgres://...)."""
    url = env_str(name, default)
    scheme = urlparse(url).scheme
    if scheme not in {"sqlite", "postgres", "postgresql", "pgsql"}:
        raise ImproperlyConfigured(f"{name} must be a sqlite:// or postgres:// URL, got scheme {scheme!r}.")
    try:
        config: dict[str, Any] = dict(dj_database_url.parse(url, conn_max_age=0))
    except Exception as exc:  # dj-database-url raises several types for bad URLs
        raise ImproperlyConfigured(f"{name} is not a valid database URL: {exc}") from None
    if scheme == "sqlite":
        config["OPTIONS"] = SQLITE_OPTIONS
        return config
    # A connection pool per process (psycopg_pool), not persistent connections: under ASGI
    # every request runs in a thread of its own, so a per-thread persistent connection was
    # opened for each request and left open until PostgreSQL refused new clients.
    # Health checks make the pool test a connection before handing it out, so one that
    # PostgreSQL dropped (a restart, a failover, an idle timeout) is replaced, not a 500.
    config["CONN_HEALTH_CHECKS"] = True
    config["ENGINE"] = "lifeassistant.postgresql"  # Django's, with the pool's dead connections dropped together
    config["OPTIONS"] = {
        **config.get("OPTIONS", {}),
        "pool": {
            "min_size": 1,
            "max_size": env_int("DATABASE_POOL_SIZE", 10, minimum=1, maximum=200),
            "timeout": env_float("DATABASE_POOL_TIMEOUT_SECONDS", 10.0, minimum=0.5),
        },
    }
    return config


# On the embedded defaults the web requests and the reply threads write to one SQLite
# file at the same time. A transaction that reads and then writes, begun the default
# (deferred) way, gets "database is locked" at once when another writer got there first;
# begun IMMEDIATE it waits its turn (up to ``timeout`` seconds). Write-ahead logging lets
# readers go on while a reply is being written.
SQLITE_OPTIONS: dict[str, Any] = {
    "transaction_mode": "IMMEDIATE",
    "timeout": 20,
    "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
}


LOCMEM_MAX_ENTRIES = 100_000


def env_cache(name: str, default: str) -> dict[str, Any]:
    """A Django CACHES entry from a URL: locmem:// or redis://host:port/db."""
    url = env_str(name, default)
    parsed = urlparse(url)
    if parsed.scheme == "locmem":
        # Room for the sign-in counters whatever else is cached: at Django's default of 300
        # entries, junk usernames evicted a victim's counters. (Refused with DEBUG off:
        # lifeassistant.E001.)
        return {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": parsed.netloc or "default",
            "OPTIONS": {"MAX_ENTRIES": LOCMEM_MAX_ENTRIES},
        }
    if parsed.scheme in {"redis", "rediss"}:
        # Short socket timeouts: a cache that hangs must fail fast, so callers can fail open.
        return {
            "BACKEND": "lifeassistant.cache.SharedPoolRedisCache",
            "LOCATION": url,
            "OPTIONS": {"socket_connect_timeout": 1.0, "socket_timeout": 1.0},
        }
    raise ImproperlyConfigured(f"{name} must be a locmem:// or redis:// URL, got {url!r}.")


def env_url(name: str, default: str, *, schemes: set[str]) -> str:
    """A URL whose scheme is one of ``schemes`` (or ``default`` when unset)."""
    url = env_str(name, default)
    if url and urlparse(url).scheme not in schemes:
        raise ImproperlyConfigured(f"{name} must use one of {sorted(schemes)}, got {url!r}.")
    return url
