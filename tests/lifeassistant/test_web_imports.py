"""The web process must not import litellm: it costs seconds and ~140 MiB per process; nor
the model stream's reader (httpcore and its connection pool: 5.9 MiB per process)."""

from __future__ import annotations

import json

from tests.conftest import last_line_printed_by_a_fresh_process

PROBE = """
import json, sys
import django
django.setup()
import lifeassistant.urls
from django.urls import get_resolver
get_resolver().url_patterns  # every app's URLconf, views and what they import
import lifeassistant.wsgi
print(json.dumps({name: name in sys.modules for name in ("litellm", "openai", "tiktoken", "httpcore")}))
"""


def test_the_web_process_urlconf_imports_no_litellm_openai_tiktoken_or_stream_reader():
    assert json.loads(last_line_printed_by_a_fresh_process(PROBE)) == {
        "litellm": False, "openai": False, "tiktoken": False, "httpcore": False,
    }


def test_the_worker_start_up_signal_imports_litellm_and_no_tokenizer():
    probe = (
        "import sys, django; django.setup()\n"
        "from celery.signals import worker_init\n"
        "import lifeassistant.celery\n"
        "worker_init.send(sender=None)\n"
        "import tiktoken.registry\n"
        "print('litellm' in sys.modules, sorted(tiktoken.registry.ENCODINGS))\n"
    )
    # No reply needs a tokenizer (~40 MiB): litellm's counting at a stream's open is skipped.
    assert last_line_printed_by_a_fresh_process(probe) == "True []"


def _asgi_imports_litellm(**environment: str) -> bool:
    probe = "import sys, lifeassistant.asgi; print('litellm' in sys.modules)\n"
    return last_line_printed_by_a_fresh_process(probe, **environment) == "True"


def test_the_asgi_server_with_a_broker_imports_no_litellm():
    assert not _asgi_imports_litellm(CELERY_BROKER_URL="redis://127.0.0.1:6379/15")


def test_the_embedded_asgi_server_imports_litellm_before_serving():
    """It answers replies in its own threads: importing litellm under load races its logging hooks."""
    assert _asgi_imports_litellm(CELERY_BROKER_URL="", EMBEDDED_REPLY_THREADS="2")
