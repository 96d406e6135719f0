"""How the web processes serve: uvloop and httptools, the API tried first, the loaded app frozen.

The Procfile's web line serves with uvloop and httptools, not asyncio's loop and h11.

uvicorn's worker asks for the "auto" loop and HTTP parser, which fall back silently to
asyncio's own loop and h11 (an HTTP parser in pure Python) when uvloop and httptools are
missing, and the web processes then spend more CPU on every request and every relayed
event (docs/performance.md, eighth pass). A deployment that lost them would not say so.
"""

from __future__ import annotations

from pathlib import Path

from uvicorn.loops.auto import auto_loop_factory
from uvicorn.protocols.http.auto import AutoHTTPProtocol
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn_worker import UvicornWorker

from tests.conftest import last_line_printed_by_a_fresh_process

REPO = Path(__file__).resolve().parents[2]


def test_the_procfile_serves_with_uvicorn_s_worker_on_its_auto_loop_and_parser():
    assert "-k uvicorn_worker.UvicornWorker" in (REPO / "Procfile").read_text()
    assert UvicornWorker.CONFIG_KWARGS == {"loop": "auto", "http": "auto"}


def test_auto_takes_httptools_and_uvloop():
    import uvloop

    assert AutoHTTPProtocol is HttpToolsProtocol
    loop = auto_loop_factory()()
    try:
        assert isinstance(loop, uvloop.Loop)
    finally:
        loop.close()


def test_an_event_stream_s_request_keeps_no_list_of_other_patterns_tried():
    """A request's match keeps every pattern tried before its own (``ResolverMatch.tried``)
    for the request's life: an open stream for minutes. Its route is tried first."""
    from django.urls import resolve

    match = resolve("/api/v1/messages/7/events/")
    assert match.url_name == "message-events"
    assert len(match.tried) == 1  # its own


def test_gunicorn_freezes_the_loaded_app_before_forking_its_workers():
    """``gc.freeze()`` once the app is loaded: a worker's full collection walks only what its
    requests made, and leaves the pages it shares with the parent alone."""
    probe = (
        "import gc, runpy, lifeassistant.asgi\n"
        "hooks = runpy.run_path('deploy/gunicorn.conf.py')\n"
        "before = gc.get_freeze_count()\n"
        "hooks['when_ready'](None)\n"
        "print(before, gc.get_freeze_count())\n"
    )
    before, frozen = map(int, last_line_printed_by_a_fresh_process(probe, CELERY_BROKER_URL="redis://127.0.0.1:6379/15").split())
    assert frozen > before + 50_000  # before: what an import froze itself (a few hundred on 3.12)
