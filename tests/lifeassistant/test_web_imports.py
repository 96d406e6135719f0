"""The web process must not import litellm: it costs seconds and ~190 MiB per process."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.conftest import REPO

PROBE = """
import json, sys
import django
django.setup()
import lifeassistant.urls
from django.urls import get_resolver
get_resolver().url_patterns  # every app's URLconf, views and what they import
import lifeassistant.wsgi
print(json.dumps({name: name in sys.modules for name in ("litellm", "openai", "tiktoken")}))
"""


def test_the_web_process_urlconf_imports_no_litellm_openai_or_tiktoken():
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "lifeassistant.settings"}
    done = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=REPO, env=env, capture_output=True, text=True, timeout=120, check=True
    )
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {"litellm": False, "openai": False, "tiktoken": False}


def test_the_worker_start_up_signal_imports_litellm_and_no_tokenizer():
    probe = (
        "import sys, django; django.setup()\n"
        "from celery.signals import worker_init\n"
        "import lifeassistant.celery\n"
        "worker_init.send(sender=None)\n"
        "import tiktoken.registry\n"
        "print('litellm' in sys.modules, sorted(tiktoken.registry.ENCODINGS))\n"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "lifeassistant.settings"}
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=REPO, env=env, capture_output=True, text=True, timeout=120, check=True
    )
    # No reply needs a tokenizer (~40 MiB): litellm's counting at a stream's open is skipped.
    assert done.stdout.strip().splitlines()[-1] == "True []"


def _asgi_imports_litellm(**environment: str) -> bool:
    probe = "import sys, lifeassistant.asgi; print('litellm' in sys.modules)\n"
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "lifeassistant.settings", **environment}
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=REPO, env=env, capture_output=True, text=True, timeout=120, check=True
    )
    return done.stdout.strip().splitlines()[-1] == "True"


def test_the_asgi_server_with_a_broker_imports_no_litellm():
    assert not _asgi_imports_litellm(CELERY_BROKER_URL="redis://127.0.0.1:6379/15")


def test_the_embedded_asgi_server_imports_litellm_before_serving():
    """It answers replies in its own threads: importing litellm under load races its logging hooks."""
    assert _asgi_imports_litellm(CELERY_BROKER_URL="", EMBEDDED_REPLY_THREADS="2")
