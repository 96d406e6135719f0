from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured

from lifeassistant import env


def test_it_reads_booleans_strictly(monkeypatch):
    monkeypatch.setenv("FLAG", "yes")
    assert env.env_bool("FLAG", False) is True
    monkeypatch.setenv("FLAG", "maybe")
    with pytest.raises(ImproperlyConfigured, match="FLAG must be a boolean"):
        env.env_bool("FLAG", False)


def test_it_names_the_variable_of_a_malformed_integer(monkeypatch):
    monkeypatch.setenv("LIMIT", "ten")
    with pytest.raises(ImproperlyConfigured, match="LIMIT must be an integer"):
        env.env_int("LIMIT", 1)
    monkeypatch.setenv("LIMIT", "0")
    with pytest.raises(ImproperlyConfigured, match="LIMIT must be at least 1"):
        env.env_int("LIMIT", 5, minimum=1)


def test_blank_values_fall_back_to_the_default(monkeypatch):
    monkeypatch.setenv("NAME", "   ")
    assert env.env_str("NAME", "default") == "default"


def test_it_parses_database_urls(monkeypatch):
    monkeypatch.setenv("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/app")
    config = env.env_database("DATABASE_URL", "sqlite:///x")
    assert config["ENGINE"] == "lifeassistant.postgresql"  # Django's, its pool drained on a failed check
    assert config["NAME"] == "app"
    monkeypatch.setenv("DATABASE_URL", "mysql://x/y")
    with pytest.raises(ImproperlyConfigured, match="DATABASE_URL must be a sqlite:// or postgres:// URL"):
        env.env_database("DATABASE_URL", "sqlite:///x")


def test_postgres_connections_come_from_a_pool_not_one_per_request_thread(monkeypatch):
    # Under ASGI each request runs in a new thread: persistent per-thread connections
    # piled up until PostgreSQL answered "too many clients".
    monkeypatch.setenv("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/app")
    monkeypatch.setenv("DATABASE_POOL_SIZE", "4")
    config = env.env_database("DATABASE_URL", "sqlite:///x")
    assert config["CONN_MAX_AGE"] == 0
    assert config["CONN_HEALTH_CHECKS"] is True  # a connection the server dropped is replaced
    assert config["OPTIONS"]["pool"] == {"min_size": 1, "max_size": 4, "timeout": 10.0}


def test_it_parses_cache_urls(monkeypatch):
    monkeypatch.setenv("CACHE_URL", "redis://127.0.0.1:6379/1")
    assert env.env_cache("CACHE_URL", "locmem://")["BACKEND"].endswith("RedisCache")
    monkeypatch.setenv("CACHE_URL", "memcached://x")
    with pytest.raises(ImproperlyConfigured, match="CACHE_URL"):
        env.env_cache("CACHE_URL", "locmem://")


def test_it_checks_url_schemes(monkeypatch):
    monkeypatch.setenv("CELERY_BROKER_URL", "redis//oops")
    with pytest.raises(ImproperlyConfigured, match="CELERY_BROKER_URL"):
        env.env_url("CELERY_BROKER_URL", "", schemes={"redis"})


@pytest.mark.parametrize(
    ("written", "read", "per_window"),
    [
        ("30/minute", "30/minute", (30, 60)),
        ("10/m", "10/m", (10, 60)),
        ("5/min", "5/min", (5, 60)),
        ("5/mins", "5/mins", (5, 60)),
        ("2/s", "2/s", (2, 1)),
        ("2/seconds", "2/seconds", (2, 1)),
        ("100/hour", "100/hour", (100, 3600)),
        ("1000/d", "1000/d", (1000, 86400)),
        (" 30 / Minute ", "30/minute", (30, 60)),
    ],
)
def test_it_reads_throttle_rates_in_the_forms_drf_understands(monkeypatch, written, read, per_window):
    from rest_framework.throttling import ScopedRateThrottle

    monkeypatch.setenv("MESSAGE_RATE", written)
    rate = env.env_rate("MESSAGE_RATE", "30/minute")
    assert rate == read
    assert ScopedRateThrottle().parse_rate(rate) == per_window


@pytest.mark.parametrize(
    "written", ["thirty", "thirty/minute", "30", "30/", "/minute", "0/minute", "-5/minute", "30/week", "30/mango", "30/minute/2"]
)
def test_a_malformed_throttle_rate_stops_the_start_naming_the_variable(monkeypatch, written):
    monkeypatch.setenv("LOGIN_RATE", written)
    with pytest.raises(ImproperlyConfigured, match="LOGIN_RATE must be a rate such as 30/minute"):
        env.env_rate("LOGIN_RATE", "10/minute")


def test_an_unset_throttle_rate_uses_the_default(monkeypatch):
    monkeypatch.delenv("LOGIN_RATE", raising=False)
    assert env.env_rate("LOGIN_RATE", "10/minute") == "10/minute"


@pytest.mark.parametrize("variable", ["MESSAGE_RATE", "LOGIN_RATE"])
def test_settings_refuse_a_malformed_rate_at_start(variable):
    import os
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-c", "import django, os; os.environ['DJANGO_SETTINGS_MODULE']='lifeassistant.settings'; django.setup()"],
        env={**os.environ, variable: "thirty"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0
    assert f"{variable} must be a rate such as 30/minute" in result.stderr


def test_settings_fail_at_start_naming_the_bad_variable(tmp_path):
    import os
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-c", "import django, os; os.environ['DJANGO_SETTINGS_MODULE']='lifeassistant.settings'; django.setup()"],
        env={**os.environ, "MESSAGE_MAX_CHARS": "lots"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0
    assert "MESSAGE_MAX_CHARS must be an integer" in result.stderr


def test_a_sqlite_database_waits_for_a_concurrent_writer_instead_of_failing() -> None:
    from lifeassistant.env import env_database

    config = env_database("NO_SUCH_VARIABLE_SET", "sqlite:////tmp/example.sqlite3")

    assert config["OPTIONS"]["transaction_mode"] == "IMMEDIATE"
    assert config["OPTIONS"]["timeout"] >= 10
    assert "journal_mode=WAL" in config["OPTIONS"]["init_command"]
