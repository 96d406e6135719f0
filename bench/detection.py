"""Benchmark of trigger detection: the compiled matcher against the naive substring loop.

Run ``python -m bench.detection`` to print the numbers as JSON.
"""

import json
import math
import random
from collections.abc import Callable, Sequence
from pathlib import Path
from time import perf_counter_ns
from typing import Any

from skills.domain import DEFAULT_TONE, SkillDefinition
from skills.matching import compile_matcher, naive_match
from skills.opinion import shipped_opinion
from skills.skillmd import read_skill_dir

DEFINITIONS_DIR = Path(__file__).resolve().parent.parent / "skills" / "definitions"
GENERATED_SKILLS = 500
PATTERNS_PER_GENERATED_SKILL = 30
GENERATOR_SEED = 20240501

# Everyday messages of 6 to 12 words, Portuguese and English, with and without triggers.
MESSAGES: tuple[str, ...] = (
    "gastei 50 reais no mercado hoje de manhã",
    "estou com insônia por causa das dívidas do cartão",
    "oi, tudo bem? me recomenda um filme pra hoje",
    "meu chefe marcou uma reunião pra sexta e estou nervoso",
    "quero começar a correr três vezes por semana",
    "minha irmã vai casar em dezembro e preciso de ideias",
    "não sei o que fazer com essa proposta de emprego",
    "paguei o boleto da internet mas esqueci o do aluguel",
    "tô mt cansada hj, dormi super mal essa noite",
    "qual é a capital da Austrália e quantos habitantes tem",
    "I paid my credit card bill this morning",
    "my best friend is moving to another city soon",
    "the deadline for this project is next Friday afternoon",
    "me conta uma história curta pra eu dormir",
    "tomei pouca água hoje e estou com dor de cabeça",
    "quero rezar pela saúde da minha avó",
)

# 100 KB messages made to maximise matching work on the shipped skills: thousands of
# exclusion hits ("sao jose") next to triggers, and thousands of topics set aside.
HOSTILE_UNITS: tuple[str, ...] = ("sao jose mae ", "sem papo de x. gastei ")
HOSTILE_LENGTH = 100_000

_CONSONANTS = "bcdfglmnprstvz"
_VOWELS = "aeiou"


def benchmark_detection(*, repeats: int = 200) -> dict[str, Any]:
    """Time the matcher and the naive loop on the shipped and on 500 generated skills.

    Each message is matched ``repeats`` times per detector; p50 and p99 are per call,
    in microseconds. ``speedup`` is the naive p50 divided by the matcher p50.
    """
    shipped = [parsed.definition for _, parsed in read_skill_dir(DEFINITIONS_DIR) if parsed.definition]
    return {
        "messages": len(MESSAGES),
        "repeats": repeats,
        "shipped": _compare(shipped, repeats),
        "generated": _compare(generate_skills(GENERATED_SKILLS, PATTERNS_PER_GENERATED_SKILL), repeats),
        "hostile": time_hostile_messages(shipped),
    }


def time_hostile_messages(skills: Sequence[SkillDefinition]) -> dict[str, float]:
    """Milliseconds the matcher takes on each 100 KB hostile message (best of three), with the
    learned opinion as served."""
    matcher = compile_matcher(skills, shipped_opinion())
    timings: dict[str, float] = {}
    for unit in HOSTILE_UNITS:
        text = (unit * (HOSTILE_LENGTH // len(unit) + 1))[:HOSTILE_LENGTH]
        timings[unit.strip()] = min(_time_once(matcher.match, text) for _ in range(3)) / 1e6
    return timings


def _time_once(detect: Callable[[str], object], text: str) -> int:
    """Return the duration in nanoseconds of one call of ``detect`` on ``text``."""
    started = perf_counter_ns()
    detect(text)
    return perf_counter_ns() - started


def generate_skills(count: int, patterns_per_skill: int) -> list[SkillDefinition]:
    """Return ``count`` skills with random pronounceable patterns, the same on every run.

    About one pattern in ten is a whole word (``=``) and one in ten a two-word phrase,
    like the shipped skills.
    """
    generator = random.Random(GENERATOR_SEED)
    return [
        SkillDefinition(
            name=f"generated-{index}",
            description="Generated for benchmarking.",
            trigger_patterns=tuple(_random_pattern(generator) for _ in range(patterns_per_skill)),
            tools=(),
            prompt_extension="",
            tone=DEFAULT_TONE,
        )
        for index in range(count)
    ]


def _random_pattern(generator: random.Random) -> str:
    """Return a pronounceable pattern: a prefix, a whole word or a short phrase."""
    kind = generator.random()
    if kind < 0.1:
        return "=" + _random_word(generator)
    if kind < 0.2:
        return f"{_random_word(generator)} {_random_word(generator)}"
    return _random_word(generator)


def _random_word(generator: random.Random) -> str:
    """Return two to four consonant-vowel syllables."""
    return "".join(
        generator.choice(_CONSONANTS) + generator.choice(_VOWELS)
        for _ in range(generator.randint(2, 4))
    )


def _compare(skills: Sequence[SkillDefinition], repeats: int) -> dict[str, Any]:
    """Time both detectors on ``skills`` and report their percentiles and the speedup."""
    matcher = compile_matcher(skills)
    compiled = _percentiles(_time_calls(matcher.match, repeats))
    naive = _percentiles(_time_calls(lambda text: naive_match(text, skills), repeats))
    return {
        "skills": len(skills),
        "patterns": matcher.pattern_count,
        "matcher": compiled,
        "naive": naive,
        "speedup": round(naive["p50_us"] / compiled["p50_us"], 1),
    }


def _time_calls(detect: Callable[[str], object], repeats: int) -> list[int]:
    """Return the duration in nanoseconds of each call of ``detect`` on each message."""
    for text in MESSAGES:
        detect(text)  # Warm-up: first calls pay for caches and lazy allocations.
    durations: list[int] = []
    for _ in range(repeats):
        for text in MESSAGES:
            started = perf_counter_ns()
            detect(text)
            durations.append(perf_counter_ns() - started)
    return durations


def _percentiles(durations_ns: Sequence[int]) -> dict[str, float]:
    """Return the nearest-rank p50 and p99 of the durations, in microseconds."""
    ordered = sorted(durations_ns)
    return {
        "p50_us": _nearest_rank(ordered, 0.50) / 1000,
        "p99_us": _nearest_rank(ordered, 0.99) / 1000,
    }


def _nearest_rank(ordered: Sequence[int], fraction: float) -> int:
    """Return the value at the given fraction of an ascending sequence (nearest rank)."""
    rank = max(1, math.ceil(len(ordered) * fraction))
    return ordered[rank - 1]


if __name__ == "__main__":
    print(json.dumps(benchmark_detection(), indent=2))
