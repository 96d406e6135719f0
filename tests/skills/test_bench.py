from dataclasses import replace

from skills.bench import MESSAGES, benchmark_detection, generate_skills
from skills.matching import compile_matcher, naive_match


def test_generated_skills_are_the_same_on_every_run():
    assert generate_skills(3, 30) == generate_skills(3, 30)
    assert [len(skill.trigger_patterns) for skill in generate_skills(3, 30)] == [30, 30, 30]


def test_the_matcher_fires_only_where_the_naive_loop_does_on_plain_patterns():
    # Plain generated patterns are lowercase letters, so a word-start hit is a substring hit.
    skills = [
        replace(skill, trigger_patterns=tuple(p for p in skill.trigger_patterns if not p.startswith("=")))
        for skill in generate_skills(200, 30)
    ]
    matcher = compile_matcher(skills)
    fired = 0
    for text in MESSAGES:
        found = set(matcher.match(text))
        assert found <= set(naive_match(text, skills))
        fired += len(found)
    assert fired > 0


def test_the_benchmark_reports_percentiles_and_a_large_speedup_at_500_skills():
    result = benchmark_detection(repeats=3)
    assert result["shipped"]["skills"] == 7
    assert result["generated"]["skills"] == 500
    assert result["generated"]["patterns"] == 15000
    for scenario in ("shipped", "generated"):
        for detector in ("matcher", "naive"):
            timings = result[scenario][detector]
            assert 0 < timings["p50_us"] <= timings["p99_us"]
    assert result["generated"]["speedup"] >= 10
    assert set(result["hostile"]) == {"sao jose mae", "sem papo de x. gastei"}
