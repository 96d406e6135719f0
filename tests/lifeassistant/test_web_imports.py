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


def test_the_worker_start_up_signal_imports_litellm():
    probe = (
        "import sys, django; django.setup()\n"
        "from celery.signals import worker_init\n"
        "import lifeassistant.celery\n"
        "worker_init.send(sender=None)\n"
        "print('litellm' in sys.modules)\n"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "lifeassistant.settings"}
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=REPO, env=env, capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.strip().splitlines()[-1] == "True"
