"""``manage.py benchmark [--json]``: the project's measured figures, section by section.

Each section is a ``Section`` in ``SECTIONS``: a name (the key in the JSON output), a
title, a ``measure(options)`` function returning a dict of figures, and a ``render``
function turning those figures into table lines. To add figures, append a section.
Figures are printed next to their targets; nothing here fails when a target is missed.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypedDict

from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from bench.detection import DEFINITIONS_DIR, benchmark_detection
from bench.pipeline import measure_pipeline, render_pipeline
from bench.reading import measure_reading, render_reading
from bench.streaming import measure_streaming, render_streaming
from chat.history import fit_history, group_turns
from lifeassistant import light_context
from lifeassistant.llm import litellm_module
from lifeassistant.tokens import count_tokens
from lifeassistant.tools import REGISTRY
from skills.composition import BASE_PROMPT, compose, compose_monolithic, domain_catalog
from skills.inertia import EMPTY_STATE, decide, is_allowed
from skills.matching import compile_matcher
from skills.skillmd import read_skill_dir

Figures = dict[str, Any]


class StoredContext(TypedDict):
    """The keyword arguments of ``lifeassistant.light_context.store_context`` after the store and key."""

    last_intent: str
    last_task_id: str | int | None
    pending_fields: list[str]
    last_user_message: str


@dataclass(frozen=True)
class Section:
    name: str
    title: str
    measure: Callable[[dict[str, Any]], Figures]
    render: Callable[[Figures], list[str]]


# --- detection time -----------------------------------------------------------------

DETECTION_TARGETS = {"shipped_p50_us": 20.0, "generated_p50_us": 50.0, "generated_speedup": 10.0}


def detection_section(options: dict[str, Any]) -> Figures:
    """Trigger detection per message: the compiled matcher against the seed's naive loop.

    Both run in the same process on the same messages, with the seven shipped skills and
    with 500 generated skills of 30 patterns each (bench/detection.py).
    """
    figures = benchmark_detection(repeats=options["repeats"])
    shipped, generated = figures["shipped"], figures["generated"]
    figures["targets"] = DETECTION_TARGETS
    figures["meets_targets"] = {
        "shipped_p50_us": shipped["matcher"]["p50_us"] <= DETECTION_TARGETS["shipped_p50_us"],
        "generated_p50_us": generated["matcher"]["p50_us"] <= DETECTION_TARGETS["generated_p50_us"],
        "generated_speedup": generated["speedup"] >= DETECTION_TARGETS["generated_speedup"],
    }
    return figures


def render_detection(figures: Figures) -> list[str]:
    lines = [
        f"{figures['messages']} messages x {figures['repeats']} repeats; times per message in µs",
        f"{'skills':>7} {'patterns':>9} {'detector':<9} {'p50':>9} {'p99':>9} {'speedup':>8}  target",
    ]
    targets = figures["targets"]
    met = figures["meets_targets"]
    for key, p50_target in (("shipped", "shipped_p50_us"), ("generated", "generated_p50_us")):
        row = figures[key]
        target = f"p50 <= {targets[p50_target]:g} µs {_ok(met[p50_target])}"
        if key == "generated":
            target += f"; speedup >= {targets['generated_speedup']:g}x {_ok(met['generated_speedup'])}"
        lines.append(
            f"{row['skills']:>7} {row['patterns']:>9} {'matcher':<9} {row['matcher']['p50_us']:>9.1f} "
            f"{row['matcher']['p99_us']:>9.1f} {row['speedup']:>7.1f}x  {target}"
        )
        lines.append(
            f"{'':>7} {'':>9} {'naive':<9} {row['naive']['p50_us']:>9.1f} {row['naive']['p99_us']:>9.1f}"
        )
    hostile = ", ".join(f"{unit!r} x 100 KB: {ms:.0f} ms" for unit, ms in figures["hostile"].items())
    lines.append(f"hostile messages, shipped skills: {hostile}")
    return lines


# --- fixed tokens ---------------------------------------------------------------------

# The seven scenarios of the skills architecture (docs/specification.md, §7.1), in its order.
TOKEN_SCENARIOS = (
    "Oi, tudo bem?",
    "Gastei 50 no mercado",
    "Estou triste hoje",
    "Pesei 82kg hoje",
    "Como estão minhas dívidas?",
    "Não sei se peço demissão",
    "Insônia por causa das dívidas",
)
SAVING_TARGET_PERCENT = 48.0


def tokens_section(options: dict[str, Any]) -> Figures:
    """Fixed tokens (system prompt + tool definitions) per scenario, with and without skills.

    Uses the SHIPPED skills read from skills/definitions (not database rows), so the
    figures do not depend on what staff edited and need no database; tools come from
    lifeassistant.tools.REGISTRY and tokens from lifeassistant.tokens.count_tokens (an estimate).
    Each scenario is the first message of a conversation, for a user with no preferences;
    as in the spine, the monolithic setup holds every tool and the prompt extensions of the
    skills that user may use (so not the preference-gated spiritual skill).
    """
    def fixed(system_prompt: str, tools: tuple[dict[str, Any], ...]) -> int:
        return count_tokens(messages=[{"role": "system", "content": system_prompt}], tools=list(tools))

    skills = [parsed.definition for _, parsed in read_skill_dir(DEFINITIONS_DIR) if parsed.definition]
    catalog = REGISTRY.catalog()
    matcher = compile_matcher(skills)
    preferences: dict[str, bool] = {}
    usable = [skill for skill in skills if is_allowed(skill, preferences)]
    monolithic = compose_monolithic(usable, domain_catalog(catalog, skills), base_prompt=BASE_PROMPT)
    monolithic_tokens = fixed(monolithic.system_prompt, monolithic.tools)
    scenarios: list[Figures] = []
    missing: set[str] = set()
    for text in TOKEN_SCENARIOS:
        decision = decide(skills, matcher.match(text), EMPTY_STATE, now=timezone.now(), preferences=preferences)
        composition = compose(decision.active, catalog, base_prompt=BASE_PROMPT)
        missing.update(composition.missing_tools)
        tokens = fixed(composition.system_prompt, composition.tools)
        scenarios.append(
            {
                "text": text,
                "skills": list(composition.skill_names),
                "reason": decision.reason,
                "tools": len(composition.tool_names),
                "temperature": composition.temperature,
                "fixed_tokens": tokens,
                "monolithic_fixed_tokens": monolithic_tokens,
                "saving_percent": round(100.0 * (1 - tokens / monolithic_tokens), 1),
            }
        )
    total = sum(row["fixed_tokens"] for row in scenarios)
    total_monolithic = monolithic_tokens * len(scenarios)
    average_saving = round(100.0 * (1 - total / total_monolithic), 1)
    return {
        "source": "skills/definitions (shipped SKILL.md files)",
        "skills": len(skills),
        "registered_tools": len(catalog),
        "monolithic_tools": len(monolithic.tool_names),
        "monolithic_skills": len(usable),
        "missing_tools": sorted(missing),
        "scenarios": scenarios,
        "average_fixed_tokens": round(total / len(scenarios), 1),
        "monolithic_fixed_tokens": monolithic_tokens,
        "average_saving_percent": average_saving,
        "targets": {"average_saving_percent": SAVING_TARGET_PERCENT},
        "meets_targets": {"average_saving_percent": average_saving >= SAVING_TARGET_PERCENT},
    }


def render_tokens(figures: Figures) -> list[str]:
    lines = [
        f"{figures['source']}: {figures['skills']} skills; monolithic = all "
        f"{figures['monolithic_tools']} tools + the extensions of {figures['monolithic_skills']} usable skills",
        f"{'scenario':<32} {'skills':<28} {'tools':>5} {'fixed':>7} {'monolithic':>10} {'saving':>7}",
    ]
    for row in figures["scenarios"]:
        lines.append(
            f"{row['text']:<32} {','.join(row['skills']):<28} {row['tools']:>5} "
            f"{row['fixed_tokens']:>7} {row['monolithic_fixed_tokens']:>10} {row['saving_percent']:>6.1f}%"
        )
    met = figures["meets_targets"]["average_saving_percent"]
    lines.append(
        f"{'average':<32} {'':<28} {'':>5} {figures['average_fixed_tokens']:>7.0f} "
        f"{figures['monolithic_fixed_tokens']:>10} {figures['average_saving_percent']:>6.1f}%"
        f"  target >= {figures['targets']['average_saving_percent']:g}% {_ok(met)}"
    )
    if figures["missing_tools"]:
        lines.append(f"not registered (left out of the counts): {', '.join(figures['missing_tools'])}")
    return lines


# --- light context -------------------------------------------------------------------

CONTEXT_TARGET_US = 10_000.0  # the context spec: "accessible within 10ms"
CONTEXT_REDIS_URL = "redis://127.0.0.1:6379/13"


class _DictStore:
    """The spec's recommended in-memory Map, as the baseline."""

    def __init__(self) -> None:
        self.data: dict[str, Any] = {}

    def get(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default)

    def set(self, key: str, value: Any, timeout: int) -> None:
        self.data[key] = value

    def delete(self, key: str) -> None:
        self.data.pop(key, None)


def context_section(options: dict[str, Any]) -> Figures:
    """Store and retrieve of the light context (lifeassistant/light_context.py) per backend.

    The same calls the message service makes, timed against a plain dict (the spec's
    in-memory Map), Django's local-memory cache and Redis (skipped when unreachable).
    """
    repeats = max(options["repeats"] * 5, 50)
    url = os.environ.get("BENCH_REDIS_URL", CONTEXT_REDIS_URL)
    backends: dict[str, Any] = {"dict (baseline)": _DictStore(), "locmem": LocMemCache("bench", {})}
    redis = RedisCache(url, {})
    try:
        redis.set("bench:ping", 1, 5)
        backends["redis"] = redis
    except Exception as exc:  # no Redis here: say so instead of failing
        backends["redis"] = f"unavailable ({type(exc).__name__})"
    figures: Figures = {"repeats": repeats, "target_us": CONTEXT_TARGET_US, "backends": {}}
    fields: StoredContext = {
        "last_intent": "create_expense",
        "last_task_id": 42,
        "pending_fields": ["confirmation"],
        "last_user_message": "Gastei 50 reais no mercado",
    }
    for name, store in backends.items():
        if isinstance(store, str):
            figures["backends"][name] = {"unavailable": store}
            continue
        key = light_context.context_key(1, 1)
        store_times = _time_calls(lambda: light_context.store_context(store, key, 60, **fields), repeats)
        retrieve_times = _time_calls(lambda: light_context.retrieve_context(store, key, 60), repeats)
        store.delete(key)
        figures["backends"][name] = {"store": store_times, "retrieve": retrieve_times}
    return figures


def _time_calls(call: Callable[[], Any], repeats: int) -> dict[str, float]:
    samples = []
    for _ in range(repeats):
        started = time.perf_counter_ns()
        call()
        samples.append((time.perf_counter_ns() - started) / 1000)
    samples.sort()
    return {"p50_us": samples[len(samples) // 2], "p99_us": samples[min(len(samples) - 1, int(len(samples) * 0.99))]}


def render_context(figures: Figures) -> list[str]:
    lines = [
        f"{figures['repeats']} calls each; µs per call; target: retrieve p99 < {figures['target_us']:g} µs (10 ms)",
        f"{'backend':<16} {'store p50':>10} {'store p99':>10} {'get p50':>10} {'get p99':>10}",
    ]
    for name, row in figures["backends"].items():
        if "unavailable" in row:
            lines.append(f"{name:<16} {row['unavailable']}")
            continue
        met = _ok(row["retrieve"]["p99_us"] < figures["target_us"])
        lines.append(
            f"{name:<16} {row['store']['p50_us']:>10.1f} {row['store']['p99_us']:>10.1f} "
            f"{row['retrieve']['p50_us']:>10.1f} {row['retrieve']['p99_us']:>10.1f}  {met}"
        )
    return lines


def _ok(met: bool) -> str:
    return "(met)" if met else "(MISSED)"


HISTORY_MESSAGES = 2000
HISTORY_WINDOW = 128_000


def history_section(options: dict[str, Any]) -> Figures:
    """Fitting a 2,000-message history to a 128k window (chat/history.py): the token
    estimate it uses, against litellm's exact counter on the same messages."""
    messages = [
        {"role": "user" if n % 2 == 0 else "assistant", "content": f"mensagem {n} " + "gastei cinquenta reais no mercado " * 8}
        for n in range(HISTORY_MESSAGES)
    ]
    turns = group_turns([[m] for m in messages], [m["role"] for m in messages])
    budget = HISTORY_WINDOW - 4096 - int(HISTORY_WINDOW * 0.1)
    started = time.perf_counter()
    fitted = fit_history(turns, budget_tokens=budget, count=lambda turn: count_tokens(messages=turn))
    fit_ms = (time.perf_counter() - started) * 1000
    counter = litellm_module().token_counter
    started = time.perf_counter()
    counter(model="gpt-4o-mini", messages=messages[:2])  # loads the tokenizer
    load_ms = (time.perf_counter() - started) * 1000
    started = time.perf_counter()
    exact_all = int(counter(model="gpt-4o-mini", messages=messages))
    exact_ms = (time.perf_counter() - started) * 1000
    return {
        "messages": HISTORY_MESSAGES,
        "budget_tokens": budget,
        "fit_ms": fit_ms,
        "kept_messages": len(fitted),
        "kept_estimated_tokens": count_tokens(messages=fitted),
        "kept_exact_tokens": int(counter(model="gpt-4o-mini", messages=fitted)),
        "estimate_all_tokens": count_tokens(messages=messages),
        "exact_all_tokens": exact_all,
        "exact_all_ms": exact_ms,
        "tokenizer_load_ms": load_ms,
    }


def render_history(figures: Figures) -> list[str]:
    return [
        f"{figures['messages']} messages, budget {figures['budget_tokens']} tokens (128k window): "
        f"fitted in {figures['fit_ms']:.1f} ms with the estimate, {figures['kept_messages']} messages kept",
        f"kept: {figures['kept_estimated_tokens']} estimated / {figures['kept_exact_tokens']} exact tokens "
        f"{_ok(figures['kept_exact_tokens'] <= figures['budget_tokens'])}",
        f"all: estimate {figures['estimate_all_tokens']} vs litellm.token_counter {figures['exact_all_tokens']} tokens, "
        f"the counter taking {figures['exact_all_ms']:.0f} ms (+{figures['tokenizer_load_ms']:.0f} ms to load its tokenizer)",
    ]


def pipeline_section(options: dict[str, Any]) -> Figures:
    """The message pipeline in process: latency ratios, CPU, queries, sizes (docs/performance.md)."""
    return measure_pipeline(runs=options["runs"], posts=options["posts"], replies=options["posts"])


def streaming_section(options: dict[str, Any]) -> Figures:
    """First token to first SSE event over Redis, and worker CPU streamed vs not (docs/performance.md)."""
    return measure_streaming(replies=options["posts"])


def reading_section(options: dict[str, Any]) -> Figures:
    """A POST's text steps on hostile 100,000-character messages against ordinary prose."""
    return measure_reading()


SECTIONS: list[Section] = [
    Section("detection", "Detection time per message", detection_section, render_detection),
    Section("tokens", "Fixed tokens per scenario (§7.1)", tokens_section, render_tokens),
    Section("context", "Light context store / retrieve", context_section, render_context),
    Section("pipeline", "Message pipeline: POST and reply cost", pipeline_section, render_pipeline),
    Section("history", "Long history: fitting 2,000 messages to the window", history_section, render_history),
    Section("streaming", "Streaming replies: latency over Redis and worker CPU", streaming_section, render_streaming),
    Section("reading", "Reading hostile messages: a POST's text steps", reading_section, render_reading),
]


class Command(BaseCommand):
    help = (
        "Measure the project's figures and print them next to their targets: skill detection "
        "time (compiled matcher vs the naive loop, 7 shipped and 500 generated skills) and the "
        "fixed tokens of the seven scenarios with and without skills. The token section reads "
        "the shipped SKILL.md files in skills/definitions, not database rows, so it needs no "
        "loaded skills. The context section times the light context on a dict, the local-memory "
        "cache and Redis (BENCH_REDIS_URL, default redis://127.0.0.1:6379/13). The pipeline section "
        "times POSTs against a bare create and replies against an instant model in a child process, "
        "inside a transaction it rolls back; the other sections make no model calls. The reading "
        "section times a POST's text steps on messages of MESSAGE_MAX_CHARS made of one unit "
        "repeated, against ordinary prose of that length."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--json", action="store_true", help="Print one JSON object keyed by section.")
        parser.add_argument(
            "--repeats", type=int, default=200, help="Timing repeats per message (default 200)."
        )
        parser.add_argument("--runs", type=int, default=3, help="Pipeline section: runs (min/median/max over them).")
        parser.add_argument("--posts", type=int, default=30, help="Pipeline section: POSTs and replies per run.")
        parser.add_argument(
            "--section",
            action="append",
            choices=[section.name for section in SECTIONS],
            help="Only these sections (repeatable); all by default.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["repeats"] < 1 or options["runs"] < 1 or options["posts"] < 1:
            raise CommandError("--repeats, --runs and --posts must be at least 1")
        chosen = [s for s in SECTIONS if not options["section"] or s.name in options["section"]]
        results = {section.name: section.measure(options) for section in chosen}
        if options["json"]:
            self.stdout.write(json.dumps(results, ensure_ascii=False, indent=2))
            return
        for section in chosen:
            self.stdout.write(f"\n== {section.title}")
            self.stdout.write("\n".join(section.render(results[section.name])))
