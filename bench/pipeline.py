"""In-process figures of the message pipeline (docs/performance.md), for ``manage.py benchmark``.

Everything runs inside one transaction that is rolled back, so the database it runs on
keeps no benchmark rows. Latencies are ratios against a bare DRF create of one row
(``POST /api/v1/conversations/``) measured in the same run, interleaved, so a noisy
machine slows both alike. The reply uses the real litellm → OpenAI client → HTTP path
against the instant model (``bench.instant_model``) in a separate process, so its CPU
is not counted as ours.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext, override_settings
from rest_framework.test import APIClient
from rest_framework.throttling import ScopedRateThrottle

from chat import reply_html
from chat.models import Conversation, Message, Prompt
from chat.tasks import generate_reply

SHORT = "Gastei 50 reais no mercado hoje"
HISTORY_SIZES = (10, 1_000, 10_000)


def paste_message(kilobytes: int = 40) -> str:
    row = "2024-09-05,mercado,42.50\n"
    rows = row * (kilobytes * 1024 // len(row))
    return f"Analise estes gastos e me diga onde economizar:\n\n```csv\ndate,place,amount\n{rows}```\n"


class _Rollback(Exception):
    pass


@contextmanager
def rolled_back() -> Iterator[None]:
    try:
        with transaction.atomic():
            yield
            raise _Rollback
    except _Rollback:
        pass


@contextmanager
def instant_model(*options: str) -> Iterator[str]:
    """The instant model in a child process (``options``: its command-line options); yields its API base."""
    with tempfile.TemporaryDirectory() as folder:
        port_file = Path(folder) / "port"
        process = subprocess.Popen(
            [sys.executable, "-m", "bench.instant_model", "--port", "0", "--port-file", str(port_file), *options],
            cwd=settings.BASE_DIR,
            stdout=subprocess.DEVNULL,
        )
        try:
            for _ in range(100):
                if port_file.exists() and port_file.read_text():
                    break
                time.sleep(0.05)
            yield f"http://127.0.0.1:{port_file.read_text()}/v1"
        finally:
            process.terminate()
            process.wait(timeout=10)


def _timed(call: Callable[[], Any]) -> tuple[float, float, Any]:
    wall, cpu = time.perf_counter(), time.process_time()
    result = call()
    return time.perf_counter() - wall, time.process_time() - cpu, result


def spread(values: list[float]) -> dict[str, float]:
    return {"min": min(values), "median": statistics.median(values), "max": max(values)}


def measure_pipeline(*, runs: int = 3, posts: int = 30, replies: int = 30) -> dict[str, Any]:
    """The figures of ``runs`` runs, each as min / median / max over the runs."""
    per_run: list[dict[str, float]] = []
    queries: dict[str, dict[int, float]] = {}
    page: dict[str, float] = {}
    throttle_rates = {**ScopedRateThrottle.THROTTLE_RATES, "messages": "1000000/minute"}
    with instant_model() as api_base, override_settings(
        LLM_MODEL="openai/instant", LLM_API_BASE=api_base, LLM_API_KEY="bench"
    ), mock.patch.object(ScopedRateThrottle, "THROTTLE_RATES", throttle_rates), mock.patch(
        "chat.services.dispatch_reply"  # replies are run (and timed) below, not on commit
    ), rolled_back():
        user = get_user_model().objects.create_user(username="pipeline-benchmark")
        client = APIClient()
        client.force_authenticate(user)
        for _ in range(runs):
            per_run.append(_one_run(client, posts=posts, replies=replies))
        queries = _by_history_size(client)
        page = _first_page(client)
        page.update(_reading_a_thread(client))
    figures: dict[str, Any] = {
        name: spread([run[name] for run in per_run]) for name in per_run[0]
    }
    figures["queries"] = queries
    figures.update(page)
    figures["runs"] = runs
    return figures


def _new_conversation(client: APIClient) -> int:
    response = client.post("/api/v1/conversations/", {"title": "benchmark"}, format="json")
    return int(response.json()["id"])


def _one_run(client: APIClient, *, posts: int, replies: int) -> dict[str, float]:
    # Pastes go to a thread of their own: each adds documents, and so changes the prompts.
    conversations = {SHORT: _new_conversation(client), "paste": _new_conversation(client)}
    paste = paste_message()

    def bare() -> Any:
        return client.post("/api/v1/conversations/", {"title": "bare"}, format="json")

    def send(text: str) -> Callable[[], Any]:
        conversation = conversations.get(text, conversations["paste"])
        return lambda: client.post(f"/api/v1/conversations/{conversation}/messages/", {"content": text}, format="json")

    for call in (bare, send(SHORT), send(paste)):  # warm: catalog, analyzer, first-use costs
        call()
    samples: dict[str, list[tuple[float, float]]] = {"bare": [], "short": [], "paste": []}
    reply_ids: list[int] = []
    for n in range(posts):
        samples["bare"].append(_timed(bare)[:2])
        wall, cpu, response = _timed(send(SHORT))
        samples["short"].append((wall, cpu))
        reply_ids.append(response.json()["assistant_message"]["id"])
        if n % 3 == 0:  # pastes are slower to build; fewer of them
            samples["paste"].append(_timed(send(paste))[:2])
    generate_reply(reply_ids[0])  # warm: litellm's first call
    reply_cpu: list[float] = []
    for reply_id in reply_ids[1 : replies + 1]:
        _, cpu, _ = _timed(lambda: generate_reply(reply_id))
        reply_cpu.append(cpu)
    assert Message.objects.filter(pk__in=reply_ids[1 : replies + 1], status="done").count() == len(reply_cpu)

    def median(kind: str, index: int) -> float:
        return statistics.median(sample[index] for sample in samples[kind])

    short_replies = Message.objects.filter(pk__in=reply_ids)

    return {
        "bare_ms": 1000 * median("bare", 0),
        "short_ms": 1000 * median("short", 0),
        "paste_ms": 1000 * median("paste", 0),
        "short_ratio": median("short", 0) / median("bare", 0),
        "paste_ratio": median("paste", 0) / median("bare", 0),
        "bare_cpu_ms": 1000 * median("bare", 1),
        "web_cpu_ms": 1000 * median("short", 1),
        "worker_cpu_ms": 1000 * statistics.median(reply_cpu),
        "cpu_ratio": median("short", 1) / median("bare", 1),
        "prompt_bytes_per_reply": _distinct_prompt_bytes(short_replies) / len(reply_ids),
    }


def _distinct_prompt_bytes(replies: Any) -> int:
    """Bytes of the distinct system prompts ``replies`` reference (as if all were new)."""
    used = replies.values("prompt_id")
    return sum(len(text.encode()) for text in Prompt.objects.filter(pk__in=used).values_list("text", flat=True))


# Replies timed at each history size: a reply replays up to HISTORY_SCAN_MESSAGES of it.
DEEP_REPLIES = 5


def _by_history_size(client: APIClient) -> dict[str, dict[int, float]]:
    """Queries of one POST and of one reply at each history size (steady state), and the
    worker's CPU per reply there (median of ``DEEP_REPLIES``)."""
    counts: dict[str, dict[int, float]] = {"post": {}, "reply": {}, "reply_cpu_ms": {}}
    for size in HISTORY_SIZES:
        conversation = _new_conversation(client)
        row = Conversation.objects.get(pk=conversation)
        Message.objects.bulk_create(
            (Message(conversation=row, role="user" if n % 2 == 0 else "assistant", content=f"mensagem {n}")
             for n in range(size)),
            batch_size=2_000,
        )
        url = f"/api/v1/conversations/{conversation}/messages/"
        client.post(url, {"content": SHORT}, format="json")
        with CaptureQueriesContext(connection) as post:
            reply_id = client.post(url, {"content": SHORT}, format="json").json()["assistant_message"]["id"]
        # One batch of streamed text: a reply that straddles the batch window (a slow first
        # chunk on a loaded machine) saves its text once more, which is timing, not history.
        with override_settings(EVENTS_BATCH_SECONDS=60), CaptureQueriesContext(connection) as reply:
            generate_reply(reply_id)
        counts["post"][size] = _statements(post)
        counts["reply"][size] = _statements(reply)
        cpu = []
        for _ in range(DEEP_REPLIES):
            reply_id = client.post(url, {"content": SHORT}, format="json").json()["assistant_message"]["id"]
            cpu.append(_timed(lambda: generate_reply(reply_id))[1] * 1000)
        counts["reply_cpu_ms"][size] = statistics.median(cpu)
    return counts


def _statements(captured: CaptureQueriesContext) -> int:
    """Queries, less the SAVEPOINT / RELEASE the enclosing transaction adds."""
    return sum(1 for query in captured.captured_queries if not query["sql"].startswith(("SAVEPOINT", "RELEASE")))


def _first_page(client: APIClient) -> dict[str, float]:
    """Size of the first page of a thread of 10 pastes and their replies, and the system
    prompt bytes stored per reply (the distinct prompts those replies use, as if new)."""
    conversation = _new_conversation(client)
    paste = paste_message()
    for _ in range(10):
        client.post(f"/api/v1/conversations/{conversation}/messages/", {"content": paste}, format="json")
    body = client.get(f"/api/v1/conversations/{conversation}/messages/").content
    replies = Message.objects.filter(conversation_id=conversation, role=Message.Role.ASSISTANT)
    return {
        "first_page_kb": len(body) / 1024,
        "pasted_kb": 10 * len(paste.encode()) / 1024,
        "prompt_bytes_per_paste_reply": _distinct_prompt_bytes(replies) / 10,
    }


# A reply as the model writes them: a table, a list, a link and code (~800 characters).
MARKDOWN_REPLY = (
    "Aqui vai o resumo dos seus **gastos** deste mês:\n\n| categoria | valor |\n|---|---:|\n"
    "| mercado | R$ 450,00 |\n| transporte | R$ 120,00 |\n| lazer | R$ 80,00 |\n\n"
    "1. Compare preços em [sites de ofertas](https://exemplo.com.br).\n"
    "2. Planeje as compras da semana com uma lista.\n3. Evite ir ao mercado com fome.\n\n"
    "```python\ntotal = 450 + 120 + 80\n```\n\nQuer que eu monte um orçamento para o próximo mês? "
) * 2
PAGE_READS = 15


def _reading_a_thread(client: APIClient) -> dict[str, float]:
    """Wall time of reading the first page of a thread of 20 questions and 20 ended markdown
    replies: with each reply's HTML kept from an earlier read (``chat.reply_html``), against
    the same read with every reply rendered, interleaved (median of ``PAGE_READS`` each)."""
    conversation = Conversation.objects.get(pk=_new_conversation(client))
    replies = []
    for n in range(20):
        asked = Message.objects.create(conversation=conversation, role="user", content=f"pergunta {n}")
        text = f"{MARKDOWN_REPLY}({n})"
        replies.append(text)
        Message.objects.create(conversation=conversation, role="assistant", reply_to=asked, content=text, status="done")
    keys = [reply_html.cache_key(text) for text in replies]
    url = f"/api/v1/conversations/{conversation.pk}/messages/"
    client.get(url)  # warm
    kept, rendered = [], []
    for _ in range(PAGE_READS):
        kept.append(_timed(lambda: client.get(url))[0])
        cache.delete_many(keys)
        rendered.append(_timed(lambda: client.get(url))[0])
    cache.delete_many(keys)  # the rows are rolled back; their HTML goes too
    return {"page_kept_ms": 1000 * statistics.median(kept), "page_rendered_ms": 1000 * statistics.median(rendered)}


def render_pipeline(figures: dict[str, Any]) -> list[str]:
    def row(label: str, key: str, unit: str, goal: str) -> str:
        f = figures[key]
        return f"  {label:<44} {f['min']:8.2f} {f['median']:8.2f} {f['max']:8.2f} {unit:<6} goal {goal}"

    lines = [
        f"  {'figure (over ' + str(figures['runs']) + ' runs)':<44} {'min':>8} {'median':>8} {'max':>8}",
        row("POST short / bare DRF create (median)", "short_ratio", "x", "<= 2"),
        row("POST 40 KB paste / bare DRF create (median)", "paste_ratio", "x", "<= 3"),
        row("bare DRF create, wall", "bare_ms", "ms", "-"),
        row("POST short, wall", "short_ms", "ms", "-"),
        row("POST 40 KB paste, wall", "paste_ms", "ms", "-"),
        row("POST short / bare DRF create, CPU (median)", "cpu_ratio", "x", "-"),
        row("web CPU per accepted message", "web_cpu_ms", "ms", "<= 16"),
        row("web CPU per bare create", "bare_cpu_ms", "ms", "-"),
        row("worker CPU per reply (instant model)", "worker_cpu_ms", "ms", "<= 30"),
        row("system prompt bytes stored per reply", "prompt_bytes_per_reply", "B", "<= 200"),
    ]
    for kind, goal in (("post", 8), ("reply", 10)):
        counts = figures["queries"][kind]
        shown = ", ".join(f"{size:,} history: {count}" for size, count in counts.items())
        lines.append(f"  queries per {kind:<5} {shown}  goal <= {goal}, flat")
    deep = ", ".join(f"{size:,} history: {ms:.1f} ms" for size, ms in figures["queries"]["reply_cpu_ms"].items())
    lines.append(f"  worker CPU per reply {deep}  goal <= 30 ms")
    lines.append(
        f"  first page of a thread of 10 pastes: {figures['first_page_kb']:.1f} KB "
        f"(pasted {figures['pasted_kb']:.0f} KB)  goal <= 100 KB"
    )
    lines.append(
        f"  system prompt bytes stored per reply in that thread: {figures['prompt_bytes_per_paste_reply']:.0f} "
        "(the documents are listed when a reply runs, not stored: the pastes do not make new prompts)"
    )
    lines.append(
        f"  reading a page of 20 ended markdown replies: {figures['page_kept_ms']:.1f} ms with their HTML kept, "
        f"{figures['page_rendered_ms']:.1f} ms rendering each ({figures['page_rendered_ms'] / figures['page_kept_ms']:.2f}x)"
    )
    return lines


