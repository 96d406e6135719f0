"""Figures of streaming (docs/performance.md), for ``manage.py benchmark --section streaming``.

- Latency from the model's first token to the first event an SSE reader gets, over
  Redis on loopback: the worker side is ``ReplyProgress`` on a real reply row (its batch
  UPDATE, then ``XADD``), the reader the SSE view's wait (``XREAD BLOCK`` on
  ``redis.asyncio``) in another thread. Goal: p95 ≤ 250 ms.
- Worker CPU per reply, streamed (``answering.answer``: litellm ``stream=True``, text
  saved and published per batch) against not streamed (one ``completion`` and one
  UPDATE, the path before streaming), with two providers that spread their words
  ``TOKEN_DELAY`` apart: the offline model (in process, so the non-streamed call costs
  almost nothing and the ratio shows litellm's per-chunk work at its starkest) and an
  OpenAI-compatible server on loopback (``bench.instant_model``, as a real provider is
  called). Goal: streamed ≤ +10%. CPU is ``time.process_time``: every
  thread of the process, so litellm's background logging threads count too; the two
  kinds alternate in one run and the medians are compared.

Rows are written inside a transaction that is rolled back; the Redis keys are deleted.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
import uuid
from decimal import Decimal
from typing import Any

from django.contrib.auth import get_user_model
from django.test.utils import override_settings
from django.utils import timezone

from lifeassistant import llm

from chat.answering import answer, build_llm_messages
from chat.reply_progress import ReplyProgress
from chat.replies import claim
from lifeassistant.event_log import RedisEventLog
from chat.light_context_store import remember_round
from chat.models import Conversation, Message
from .pipeline import instant_model, rolled_back
from chat.services import submit_message

REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/13")
LATENCY_GOAL_MS = 250.0
CPU_GOAL_PERCENT = 10.0
FIRST_TOKEN_AFTER = 0.1  # seconds from the call to the model's first token
TOKEN_DELAY = 0.02
# About as long as the offline model's answer (~40 words), so both providers stream alike.
HTTP_ANSWER = (
    "Claro! Para organizar as contas da casa este mês, comece listando todas as despesas fixas, "
    "como aluguel, luz, água e internet. Depois anote os gastos variáveis da semana, defina um "
    "limite para cada categoria e reserve uma parte da renda para imprevistos. Quer que eu registre alguma despesa agora?"
)


def measure_streaming(*, replies: int = 20) -> dict[str, Any]:
    log = RedisEventLog(REDIS_URL, cap=10_000, ttl=60, running_ttl=120, prefix=f"bench-events-{uuid.uuid4().hex}:")
    try:
        log.exists(0)
    except Exception as exc:  # no Redis here: say so instead of failing
        return {"unavailable": f"Redis at {REDIS_URL} ({type(exc).__name__})"}
    latencies = _latencies(log, replies)
    cpu = _cpu_per_reply_both(max(10, replies))
    for key in log._client.scan_iter(f"{log.prefix}*"):
        log._client.delete(key)
    latencies.sort()
    return {
        "redis": REDIS_URL,
        "replies": replies,
        "latency_ms": {
            "p50": latencies[len(latencies) // 2],
            "p95": latencies[min(len(latencies) - 1, int(len(latencies) * 0.95))],
            "goal_p95": LATENCY_GOAL_MS,
        },
        "cpu_ms": {**cpu, "goal_percent": CPU_GOAL_PERCENT},
    }


def _latencies(log: RedisEventLog, replies: int) -> list[float]:
    samples: list[float] = []
    with rolled_back():
        for _ in range(replies):
            reply = _reply_row()
            Message.objects.filter(pk=reply.pk).update(status=Message.Status.RUNNING, started_at=timezone.now())
            read_at: list[float] = []

            def reader(reply_id: int = reply.pk) -> None:
                async def first_delta() -> None:
                    deadline = time.monotonic() + 10
                    while not read_at and time.monotonic() < deadline:
                        events = await log.wait(reply_id, None, 5)
                        if any(e.type == "delta" for e in events):
                            read_at.append(time.perf_counter())

                asyncio.run(first_delta())

            thread = threading.Thread(target=reader)
            thread.start()
            # On the Redis log the reader follows (the settings' log may be the in-process one).
            progress = ReplyProgress(
                reply.pk, log, batch_seconds=0.075, checkpoint_seconds=5.0,
                save=lambda text: True, still_running=lambda: True,
            )
            time.sleep(FIRST_TOKEN_AFTER)  # the client waits on the stream meanwhile
            first_token = time.perf_counter()
            for word in ["Olá, ", "Ana! ", "Você ", "gastou ", "R$ 50 "]:
                progress.text(word)
                time.sleep(TOKEN_DELAY)
            progress.flush()
            thread.join(15)
            if read_at:
                samples.append((read_at[0] - first_token) * 1000)
    return samples


def _cpu_per_reply(replies: int, **model: Any) -> dict[str, float]:
    """Median CPU per reply, streamed and not, with the model settings ``model``."""
    streamed: list[float] = []
    plain: list[float] = []
    with override_settings(**model, EVENTS_REDIS_URL=REDIS_URL), rolled_back():
        for _ in range(replies):
            for kind, samples in (("plain", plain), ("streamed", streamed)):
                reply = _reply_row()
                message = claim(reply.pk)
                assert message is not None
                started = time.process_time()
                if kind == "streamed":
                    answer(message)
                else:
                    _answer_without_streaming(message)
                samples.append((time.process_time() - started) * 1000)
    streamed_ms = sorted(streamed)[len(streamed) // 2]
    plain_ms = sorted(plain)[len(plain) // 2]
    return {"replies": replies, "streamed": streamed_ms, "not_streamed": plain_ms, "overhead_percent": (streamed_ms / plain_ms - 1) * 100}


def _cpu_per_reply_both(replies: int) -> dict[str, dict[str, float]]:
    """The offline model (in process, no HTTP) and an OpenAI-compatible server on loopback
    (``bench.instant_model``, another process), both a word every ``TOKEN_DELAY``."""
    offline = _cpu_per_reply(replies, LLM_OFFLINE_TOKEN_DELAY_SECONDS=TOKEN_DELAY)
    with instant_model("--token-delay", str(TOKEN_DELAY), "--answer", HTTP_ANSWER) as api_base:
        http = _cpu_per_reply(replies, LLM_MODEL="openai/instant", LLM_API_BASE=api_base, LLM_API_KEY="bench")
    return {"offline": offline, "http": http}


def _answer_without_streaming(message: Message) -> None:
    """The reply as it was stored before streaming: one call, one UPDATE, the light context."""
    response = llm.completion(build_llm_messages(message), temperature=message.temperature)
    Message.objects.filter(pk=message.pk).update(
        status=Message.Status.DONE,
        content=response.text,
        prompt_tokens=response.prompt_tokens,
        completion_tokens=response.completion_tokens,
        cost=Decimal("0"),
        finished_at=timezone.now(),
    )
    remember_round(message)


def _reply_row() -> Message:
    user, _ = get_user_model().objects.get_or_create(username="bench-streaming")
    # Titled by the user, so no reply here asks the model for a title: both kinds measure the answer only.
    conversation = Conversation.objects.create(owner=user, title="bench", title_source=Conversation.TitleSource.USER)
    with override_settings(EMBEDDED_REPLY_THREADS=0):
        submission = submit_message(
            user=user, conversation=conversation, content="Me conte como organizar as contas da casa este mês, por favor."
        )
    assert submission.assistant_message is not None
    return submission.assistant_message


def render_streaming(figures: dict[str, Any]) -> list[str]:
    if "unavailable" in figures:
        return [f"skipped: {figures['unavailable']}"]
    latency = figures["latency_ms"]
    cpu = figures["cpu_ms"]
    met_latency = "(met)" if latency["p95"] <= latency["goal_p95"] else "(MISSED)"
    lines = [
        f"first token → first SSE event over Redis ({figures['redis']}), {figures['replies']} replies: "
        f"p50 {latency['p50']:.1f} ms, p95 {latency['p95']:.1f} ms; goal p95 ≤ {latency['goal_p95']:g} ms {met_latency}",
    ]
    for key, provider in (("offline", "offline model, in process"), ("http", "OpenAI-compatible server on loopback")):
        run = cpu[key]
        met = "(met)" if run["overhead_percent"] <= cpu["goal_percent"] else "(MISSED)"
        lines.append(
            f"worker CPU per reply, median of {run['replies']} each ({provider}, a word every {TOKEN_DELAY * 1000:.0f} ms): "
            f"streamed {run['streamed']:.1f} ms, not streamed {run['not_streamed']:.1f} ms, "
            f"{run['overhead_percent']:+.1f}%; goal ≤ +{cpu['goal_percent']:g}% {met}"
        )
    return lines
