"""Tests against a live server run on a file-backed SQLite database.

With the default in-memory test database the live server's request threads share one
connection, so a poll arriving while a reply is being written fails with "database
table is locked". A file lets every thread have its own connection; WAL and immediate
transactions let them wait for each other instead of failing.

A folder's conftest imports ``django_db_modify_db_settings`` from here to use it.
"""

from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture(scope="session")
def django_db_modify_db_settings(
    django_db_modify_db_settings_parallel_suffix: None, tmp_path_factory: pytest.TempPathFactory
) -> Any:
    from django.conf import settings

    database = settings.DATABASES["default"]
    if database["ENGINE"] == "django.db.backends.sqlite3":
        database.setdefault("TEST", {})["NAME"] = str(tmp_path_factory.mktemp("live-db") / "test.sqlite3")
        database.setdefault("OPTIONS", {}).update(
            {"init_command": "PRAGMA journal_mode=WAL;", "transaction_mode": "IMMEDIATE", "timeout": 20}
        )
