"""Model streams read in gathers (lifeassistant/gathered_reads.py): after the first text, the
socket is read at most once per interval, so a reply's thread wakes per batch, not per chunk."""

from __future__ import annotations

from typing import Any

import pytest

from lifeassistant import gathered_reads, llm
from lifeassistant.gathered_reads import GatheringStream, gather_seconds, set_gather_seconds


class FakeSocket:
    def __init__(self) -> None:
        self.reads: list[float] = []
        self.now = 0.0

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        self.reads.append(self.now)
        return b"data"

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        pass


@pytest.fixture
def fake_time(monkeypatch: pytest.MonkeyPatch) -> FakeSocket:
    socket = FakeSocket()

    def sleep(seconds: float) -> None:
        socket.now += seconds

    monkeypatch.setattr(gathered_reads, "_clock", lambda: socket.now)
    monkeypatch.setattr(gathered_reads, "_sleep", sleep)
    yield socket
    set_gather_seconds(0.0)


def test_with_an_interval_a_read_waits_for_it_after_the_previous_read(fake_time: FakeSocket) -> None:
    stream = GatheringStream(fake_time)  # type: ignore[arg-type]
    set_gather_seconds(0.1)
    for _ in range(3):
        stream.read(65536)
        fake_time.now += 0.02  # the reader's own work between two reads

    assert fake_time.reads == pytest.approx([0.0, 0.1, 0.2])


def test_a_new_request_is_read_at_once_and_without_an_interval_nothing_waits(fake_time: FakeSocket) -> None:
    stream = GatheringStream(fake_time)  # type: ignore[arg-type]
    set_gather_seconds(0.1)
    stream.read(65536)
    stream.write(b"POST /v1/chat/completions")  # the kept connection's next request
    stream.read(65536)
    set_gather_seconds(0.0)
    stream.read(65536)
    stream.read(65536)

    assert fake_time.reads == [0.0, 0.0, 0.0, 0.0]


def reads_of_a_paced_stream(
    scripted_llm: Any, monkeypatch: pytest.MonkeyPatch, gather: float, *, whole: bool = False
) -> tuple[str, int]:
    """The text and the socket reads of a paced answer: streamed, or (``whole``) as one
    ``llm.completion`` (a conversation's title) that reads the same stream to its end."""
    reads = []
    real_read = GatheringStream.read

    def counted(self: GatheringStream, max_bytes: int, timeout: float | None = None) -> bytes:
        reads.append(1)
        return real_read(self, max_bytes, timeout)

    monkeypatch.setattr(GatheringStream, "read", counted)
    scripted_llm.token_delay = 0.02  # a chunk every 20 ms, as a model streams
    scripted_llm.reply_text(" ".join(f"palavra{n}" for n in range(20)))
    messages = [{"role": "user", "content": "oi"}]
    if whole:
        return llm.completion(messages, gather_seconds=gather).text, len(reads)
    text = "".join(llm.stream_completion(messages, gather_seconds=gather))
    return text, len(reads)


@pytest.mark.parametrize("whole", [False, True], ids=["streamed", "whole answer"])
def test_a_paced_stream_read_in_gathers_takes_fewer_reads_and_loses_nothing(scripted_llm, monkeypatch, whole) -> None:
    llm.litellm_module()
    expected = " ".join(f"palavra{n}" for n in range(20))
    plain_text, plain_reads = reads_of_a_paced_stream(scripted_llm, monkeypatch, 0.0, whole=whole)
    gathered_text, gathered_reads = reads_of_a_paced_stream(scripted_llm, monkeypatch, 0.1, whole=whole)

    assert plain_text == gathered_text == expected
    assert plain_reads >= 15  # about a read per chunk
    assert gathered_reads <= plain_reads // 2
    assert gather_seconds() == 0.0  # the thread's interval is back once the stream ended


def test_concurrent_streams_are_spread_over_the_shards_and_kept_connections_are_reused() -> None:
    """httpcore's bookkeeping is quadratic in a pool's connections: 64 streams open at once
    land a few per shard, and requests one after another reuse connections kept alive."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    import httpx

    release = threading.Event()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:  # noqa: N802 - http.server's naming
            if self.path == "/hold":
                release.wait(10)
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    transport = gathered_reads.GatheringTransport(httpx.Limits(max_connections=1000, max_keepalive_connections=500))
    client = httpx.Client(transport=transport)
    try:
        responses: list[int] = []
        threads = [threading.Thread(target=lambda: responses.append(client.get(f"{base}/hold").status_code)) for _ in range(64)]
        for thread in threads:
            thread.start()
        shards = transport._pool.shards
        while sum(len(shard.connections) for shard in shards) < 64:
            threading.Event().wait(0.01)
        held = [len(shard.connections) for shard in shards]
        release.set()
        for thread in threads:
            thread.join()
        for _ in range(32):
            client.get(f"{base}/now")
        kept = len(transport._pool.connections)
    finally:
        client.close()
        server.shutdown()

    assert len(shards) == gathered_reads.SHARDS and responses == [200] * 64
    assert max(held) <= 64 // gathered_reads.SHARDS + 1
    assert kept == 64  # the 32 later requests each took a kept connection, none a new one
    assert transport._pool.connections == []  # closed with the client


def test_once_the_answer_has_its_finish_reason_the_rest_is_read_at_once(scripted_llm, monkeypatch) -> None:
    """The usage, the end marker and the body's end come after the last text: a gathered
    read would make the reply's final event wait for them, up to a whole interval."""
    llm.litellm_module()
    intervals = []
    real_read = GatheringStream.read

    def noted(self: GatheringStream, max_bytes: int, timeout: float | None = None) -> bytes:
        data = real_read(self, max_bytes, timeout)
        intervals.append((gather_seconds(), data))
        return data

    monkeypatch.setattr(GatheringStream, "read", noted)
    scripted_llm.token_delay = 0.02
    scripted_llm.reply_text(" ".join(f"palavra{n}" for n in range(10)))
    text = "".join(llm.stream_completion([{"role": "user", "content": "oi"}], gather_seconds=0.1))

    assert text.endswith("palavra9")
    finished = next(n for n, (_, data) in enumerate(intervals) if b'"finish_reason":"stop"' in data.replace(b" ", b""))
    assert intervals[finished - 1][0] == 0.1  # the text was read in gathers
    assert [seconds for seconds, _ in intervals[finished + 1:]] == [0.0] * len(intervals[finished + 1:])
    assert len(intervals) > finished + 1  # the end came in reads of its own
    assert gather_seconds() == 0.0
