"""``manage.py runserver`` serves the ASGI app (daphne's), so a reply streams under it.

Django's own runserver is WSGI: it buffers a streaming response and sends it whole once
the reply ends. Here a reply is still running while its stream is read: the first
heartbeat must arrive before it ends, then its end, on a real ``runserver`` process.
"""

from __future__ import annotations

import os
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# Not a timing assertion: a runserver that buffers would never send the heartbeat, so the
# read would wait forever; this bounds that wait.
READ_DEADLINE_SECONDS = 60

SETUP = """
from django.contrib.auth import get_user_model
from chat.api_tokens import issue_token
from django.utils import timezone
from chat.models import Conversation, Message
user = get_user_model().objects.create_user("runserver", password="runserver-pass-123")
conversation = Conversation.objects.create(owner=user)
question = Message.objects.create(conversation=conversation, role=Message.Role.USER, content="oi")
reply = Message.objects.create(
    conversation=conversation, role=Message.Role.ASSISTANT, reply_to=question,
    status=Message.Status.RUNNING, started_at=timezone.now(),
)
print(issue_token(user)[1], reply.pk)
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[dict[str, str], int]]:
    """A migrated SQLite file, a running reply in it, and ``runserver`` on a free port."""
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'runserver.sqlite3'}",
        "DEBUG": "true",
        "EVENTS_HEARTBEAT_SECONDS": "0.2",
        "PYTHONUNBUFFERED": "1",
    }
    manage = [sys.executable, str(REPO / "manage.py")]
    subprocess.run([*manage, "migrate", "-v0"], env=env, check=True, cwd=REPO, timeout=300)
    setup = subprocess.run(
        [*manage, "shell", "-c", SETUP], env=env, check=True, cwd=REPO, capture_output=True, text=True, timeout=120
    )
    token, reply = setup.stdout.strip().splitlines()[-1].split()
    port = free_port()
    server = subprocess.Popen(
        [*manage, "runserver", "--noreload", f"127.0.0.1:{port}"],
        env=env,
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert server.stdout is not None
        banner = ""
        for line in server.stdout:  # daphne's banner says it serves ASGI
            banner += line
            if "Quit the server" in line:
                break
        assert "ASGI/Daphne" in banner, banner
        # Keep reading its log, so a full pipe never blocks it.
        threading.Thread(target=server.stdout.read, daemon=True).start()
        yield {"Authorization": f"Token {token}", "Host": f"127.0.0.1:{port}", "port": str(port)}, int(reply)
    finally:
        server.terminate()
        server.wait(timeout=30)


def connect(port: int) -> socket.socket:
    """Connect once the server listens (it prints its banner a moment before)."""
    deadline = time.monotonic() + READ_DEADLINE_SECONDS
    while True:
        try:
            return socket.create_connection(("127.0.0.1", port), timeout=READ_DEADLINE_SECONDS)
        except ConnectionRefusedError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def read_until(stream: socket.socket, received: bytes, marker: bytes) -> bytes:
    """Read from ``stream`` until ``marker`` has arrived; what arrived so far."""
    while marker not in received:
        chunk = stream.recv(65536)
        if not chunk:
            break
        received += chunk
    return received


def test_a_running_reply_streams_through_manage_py_runserver(served, tmp_path):
    headers, reply = served
    port = int(headers.pop("port"))
    with connect(port) as stream:
        request = f"GET /api/v1/messages/{reply}/events/ HTTP/1.1\r\n" + "".join(
            f"{name}: {value}\r\n" for name, value in headers.items()
        )
        stream.sendall(request.encode() + b"Accept: text/event-stream\r\n\r\n")
        received = read_until(stream, b"", b": keep-alive")
        assert b"200 OK" in received.split(b"\r\n", 1)[0]
        assert b"text/event-stream" in received
        assert b": keep-alive" in received  # while the reply is still running
        assert b"event: done" not in received

        with sqlite3.connect(tmp_path / "runserver.sqlite3") as database:
            database.execute(
                "UPDATE chat_message SET status = 'done', content = 'Olá!', finished_at = CURRENT_TIMESTAMP WHERE id = ?",
                (reply,),
            )
        received = read_until(stream, received, b"event: done")
    assert b"event: done" in received
    assert "Olá!".encode() in received
