"""Shared fixtures: users, API clients and the shipped skills."""

from __future__ import annotations

pytest_plugins = ["tests.scripted_llm"]

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.db.backends.signals import connection_created

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"


def last_line_printed_by_a_fresh_process(code: str, **environment: str) -> str:
    """Run ``code`` in a new interpreter with the project's settings (for what a process
    imports or builds at start-up, which this session has done already); its last line."""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "lifeassistant.settings", **environment}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, timeout=120, check=True
    )
    return done.stdout.strip().splitlines()[-1]


def _sqlite_readers_take_no_table_locks(sender: Any, connection: Any, **kwargs: Any) -> None:
    """On SQLite the test database lives in memory with a shared cache, so that threads
    (the live server, the embedded reply pool) see one database. In that mode a reader
    holds a table lock and a concurrent writer gets "database table is locked" at once,
    where a file database would wait. Readers that take no locks make the test database
    behave like the file database the embedded defaults use."""
    if connection.vendor == "sqlite" and connection.is_in_memory_db():
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA read_uncommitted = 1")


connection_created.connect(_sqlite_readers_take_no_table_locks)


@pytest.fixture(autouse=True)
def _test_clients_ask_for_english(monkeypatch: pytest.MonkeyPatch) -> None:
    """Test clients send ``Accept-Language: en`` unless a test sends its own, so the
    tests' asserted texts are the English source; the tests of the language choice
    (tests/chat/web/test_language.py) send theirs, or none, on purpose."""
    from django.test.client import RequestFactory

    base = RequestFactory._base_environ

    def english_by_default(self: Any, **request: Any) -> dict[str, Any]:
        return {"HTTP_ACCEPT_LANGUAGE": "en", **base(self, **request)}

    monkeypatch.setattr(RequestFactory, "_base_environ", english_by_default)

    from django.test.client import AsyncRequestFactory

    base_scope = AsyncRequestFactory._base_scope

    def english_scope_by_default(self: Any, **request: Any) -> dict[str, Any]:
        scope = base_scope(self, **request)
        if not any(name.lower() == b"accept-language" for name, _ in scope["headers"]):
            scope["headers"].append((b"accept-language", b"en"))
        return scope

    monkeypatch.setattr(AsyncRequestFactory, "_base_scope", english_scope_by_default)


@pytest.fixture(autouse=True)
def _english_outside_requests() -> Any:
    """Code a test calls directly (not through a request, whose language the middleware
    picks) speaks the source language, English, unless the test says otherwise."""
    from django.utils import translation

    with translation.override("en"):
        yield


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings: Any) -> None:
    """Users are created in most tests; the hashing strength is not under test."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _replies_inline(settings: Any) -> None:
    """Replies run on the test's thread, inside its transaction, and the offline model
    streams without pauses. Tests of the threaded runner and of slow streams opt back in."""
    settings.EMBEDDED_REPLY_THREADS = 0
    settings.REPLY_SWEEP_SECONDS = 0  # no watchdog thread: tests call chat.replies.sweep themselves
    settings.LLM_OFFLINE_TOKEN_DELAY_SECONDS = 0
    from lifeassistant.event_log import _log_for

    _log_for.cache_clear()  # a fresh in-process event log: ids of rolled-back replies come again


@pytest.fixture(autouse=True)
def _no_committed_prompts() -> Any:
    """A test's commit callbacks may run (``django_capture_on_commit_callbacks``) while its
    transaction is rolled back: the next test must not skip inserting those prompts."""
    from chat.models import COMMITTED_PROMPTS

    COMMITTED_PROMPTS.clear()
    yield
    COMMITTED_PROMPTS.clear()


@pytest.fixture(autouse=True)
def _fresh_cache() -> Any:
    """Each test starts with an empty cache (throttles, context, skill catalog version)."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def user(django_user_model: Any) -> Any:
    return django_user_model.objects.create_user(username="ana", password="pass-ana-123")


@pytest.fixture
def other_user(django_user_model: Any) -> Any:
    return django_user_model.objects.create_user(username="bruno", password="pass-bruno-123")


@pytest.fixture
def consented(user: Any) -> None:
    """The user consents to storing health data and to the spiritual skill (LGPD art. 11),
    for tests of what the assistant does once it may."""
    from lifeassistant.consents import record_answer

    record_answer(user, "health", given=True)
    record_answer(user, "spiritual", given=True)


@pytest.fixture
def api(user: Any) -> Any:
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.fixture
def admin_client(admin_user: Any) -> Any:
    """Staff in the admin, reading it in English (the tests assert Django's English labels;
    with no language signal the admin would answer in pt-BR)."""
    from django.test import Client

    client = Client(headers={"Accept-Language": "en"})
    client.force_login(admin_user)
    return client


@pytest.fixture
def other_api(other_user: Any) -> Any:
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(other_user)
    return client


@pytest.fixture
def shipped_skills(db: Any) -> None:
    """Load the seven skills shipped as SKILL.md folders, as ``load_skills`` does."""
    from skills.loading import load_parsed
    from tests.skills.shipped import shipped_skill_files

    report = load_parsed(shipped_skill_files())
    assert not report.errors, report.errors


@pytest.fixture
def conversation(api: Any) -> dict[str, Any]:
    return api.post("/api/v1/conversations/", {"title": "Dia a dia"}, format="json").json()


@pytest.fixture
def send(django_capture_on_commit_callbacks: Any) -> Any:
    """POST a message and run what the commit dispatches (the eager Celery task)."""

    def _send(client: Any, conversation_id: int, body: Any, **headers: str) -> Any:
        with django_capture_on_commit_callbacks(execute=True):
            return client.post(
                f"/api/v1/conversations/{conversation_id}/messages/", body, format="json", headers=headers
            )

    return _send


@pytest.fixture(autouse=True)
def _files_in_a_temporary_folder(settings: Any, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Originals of sent files go to a folder of the test's own, never the project's media/."""
    settings.MEDIA_ROOT = tmp_path_factory.mktemp("media")
