"""Browser tests run the live server on a file-backed SQLite database (see tests/live_db.py)."""

from tests.live_db import django_db_modify_db_settings  # noqa: F401 - the fixture, for this folder
