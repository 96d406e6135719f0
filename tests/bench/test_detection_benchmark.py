from dataclasses import replace

from bench.detection import MESSAGES, benchmark_detection, generate_skills
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


# The timings themselves are figures `manage.py benchmark` prints, not asserted here.
def test_the_benchmark_reports_both_detectors_on_the_shipped_skills_and_on_500_generated_ones():
    result = benchmark_detection(repeats=3)
    assert result["shipped"]["skills"] == 7
    assert result["generated"]["skills"] == 500
    assert result["generated"]["patterns"] == 15000
    for scenario in ("shipped", "generated"):
        for detector in ("matcher", "naive"):
            assert set(result[scenario][detector]) >= {"p50_us", "p99_us"}
        assert "speedup" in result[scenario]
    assert set(result["hostile"]) == {"sao jose mae", "sem papo de x. gastei"}
