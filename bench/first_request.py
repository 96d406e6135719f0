"""CPU of a web process's first message POSTs, after the warm-up the ASGI entry point runs.

A process that has served nothing yet pays, on its first request, for whatever it loads
lazily; while that request holds the GIL the rest of a first burst waits. This imports the
ASGI app as a server would (``lifeassistant.asgi`` runs ``lifeassistant.warmup``), then posts
``--posts`` messages, each on a new thread as the ASGI handler's threads are, and prints the
CPU each took in that thread (``time.thread_time``) and its wall time.

Needs a real stack: ``DATABASE_URL`` (migrated) and ``CELERY_BROKER_URL`` (the queued
replies are left in the broker's queue; point it at a Redis database of its own). A user
``bench-first-request`` with a token and a conversation per post is created, and deleted
after.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/lifeassistant_concurrency \\
        CELERY_BROKER_URL=redis://127.0.0.1:6379/9 CACHE_URL=redis://127.0.0.1:6379/8 DEBUG=false \\
        SECRET_KEY=bench-only-not-secret-bench-only ALLOWED_HOSTS='*' SECURE_SSL_REDIRECT=false \\
        python -m bench.first_request
"""

from __future__ import annotations

import argparse
import os
import threading
import time

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "lifeassistant.settings")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--posts", type=int, default=4, help="message POSTs, one after another")
    args = parser.parse_args()
    if not os.environ.get("CELERY_BROKER_URL"):
        parser.error("CELERY_BROKER_URL must name a broker (a reply is queued per POST)")

    import lifeassistant.asgi  # noqa: F401  (the server's import: settings, apps, warm-up)

    from django.contrib.auth import get_user_model
    from django.db import connections

    from chat.api_tokens import issue_token
    from chat.models import Conversation

    user, _ = get_user_model().objects.get_or_create(username="bench-first-request")
    token = issue_token(user, client="bench")[1]
    conversations = [Conversation.objects.create(owner=user) for _ in range(args.posts)]
    connections.close_all()  # each request thread opens its own, as under the server
    try:
        for number, conversation in enumerate(conversations, 1):
            thread = threading.Thread(target=_post, args=(number, token, conversation.pk))
            thread.start()
            thread.join()
    finally:
        user.delete()


def _post(number: int, token: str, conversation_id: int) -> None:
    from django.db import connections
    from django.test import Client

    client = Client(HTTP_AUTHORIZATION=f"Token {token}")
    cpu, wall = time.thread_time(), time.perf_counter()
    response = client.post(
        f"/api/v1/conversations/{conversation_id}/messages/",
        {"content": "Gastei 50 reais no mercado hoje"},
        content_type="application/json",
    )
    cpu, wall = time.thread_time() - cpu, time.perf_counter() - wall
    connections.close_all()
    print(f"POST {number}: {response.status_code}, CPU {cpu * 1000:.1f} ms, wall {wall * 1000:.1f} ms", flush=True)


if __name__ == "__main__":
    main()
