"""``bootstrap`` makes the demo superuser (a published password) only in development or on request."""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from skills.models import Skill

pytestmark = pytest.mark.django_db


def bootstrap(*arguments: str) -> str:
    out = StringIO()
    call_command("bootstrap", *arguments, stdout=out)
    return out.getvalue()


def test_with_debug_off_it_loads_the_skills_and_creates_no_superuser(settings: Any) -> None:
    settings.DEBUG = False

    said = bootstrap()

    assert Skill.objects.count() == 7
    assert not get_user_model().objects.filter(username="demo").exists()
    assert "DEBUG is off: skills loaded, no demo user created" in said
    assert "demo-pass-123" not in said


def test_with_debug_off_the_flag_creates_the_demo_user(settings: Any) -> None:
    settings.DEBUG = False
    bootstrap("--demo-user")
    assert get_user_model().objects.get(username="demo").is_superuser


def test_with_debug_on_it_creates_the_demo_user_as_make_run_expects(settings: Any) -> None:
    settings.DEBUG = True

    said = bootstrap()

    demo = get_user_model().objects.get(username="demo")
    assert demo.is_superuser and demo.check_password("demo-pass-123")
    assert "Demo login: demo / demo-pass-123" in said
