"""Views for tests/lifeassistant/test_stream_lanes.py: streams that stay open until told."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator

from asgiref.sync import sync_to_async
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.urls import path

from lifeassistant.stream_lanes import shares_threads

threads_seen: list[int] = []
release = asyncio.Event()


async def _until_released() -> AsyncIterator[str]:
    yield "open\n"
    await release.wait()
    yield "done\n"


async def _stream(request: HttpRequest, n: int) -> StreamingHttpResponse:
    threads_seen.append(await sync_to_async(threading.get_ident)())
    return StreamingHttpResponse(_until_released(), content_type="text/plain")


shared = shares_threads(_stream)


async def own(request: HttpRequest, n: int) -> StreamingHttpResponse:
    return await _stream(request, n)


def plain(request: HttpRequest) -> HttpResponse:
    threads_seen.append(threading.get_ident())
    return HttpResponse("plain\n", content_type="text/plain")


urlpatterns = [
    path("plain/", plain),
    path("shared/<int:n>/", shared),
    path("own/<int:n>/", own),
]
