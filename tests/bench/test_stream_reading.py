"""The stream-reading benchmark compares paths that read the same whole answer."""

from __future__ import annotations

import threading
from typing import Any

from bench.stream_reading import readers, serve


class Port:
    def __init__(self) -> None:
        self.ready = threading.Event()
        self.port = 0

    def send(self, port: int) -> None:
        self.port = port
        self.ready.set()


def test_every_path_of_the_benchmark_reads_every_chunk_of_the_stream(settings: Any) -> None:
    port = Port()
    threading.Thread(target=serve, args=(7, port), daemon=True).start()
    port.ready.wait(5)

    counts = {path: read() for path, read in readers(f"http://127.0.0.1:{port.port}/v1").items()}

    assert counts == {"litellm": 7, "openai-sdk": 7, "lean": 7, "httpx+json": 7}
