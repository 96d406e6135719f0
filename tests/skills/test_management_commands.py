"""The evaluate_routing and benchmark management commands."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command

from skills.models import Skill

DEV_SET = Path(settings.BASE_DIR).parent / "shared" / "eval" / "routing-dev.jsonl"

LABELLED = [
    {"text": "gastei 50 reais no mercado", "skills": ["finance"]},
    {"text": "dormi super mal essa noite", "skills": ["health"]},
    {"text": "me recomenda um filme", "skills": ["general"]},
    {"text": "quero rezar hoje", "skills": ["spiritual"], "preferences": {"christian_perspective": True}},
    {
        "conversation": [
            {"text": "paguei o boleto da internet", "skills": ["finance"]},
            {"text": "e o que mais?", "skills": ["finance"]},
        ]
    },
]


def run(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def write_jsonl(tmp_path: Path, lines: list[Any], name: str = "labelled.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("\n".join(json.dumps(line, ensure_ascii=False) for line in lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.usefixtures("shipped_skills")
def test_evaluate_routing_prints_accuracy_per_skill_scores_and_no_misses(tmp_path: Path) -> None:
    output = run("evaluate_routing", str(write_jsonl(tmp_path, LABELLED)))

    assert "exact match: 6/6 (100.0%)" in output
    assert "finance" in output and "precision" in output and "recall" in output
    assert "misses:" not in output


@pytest.mark.usefixtures("shipped_skills")
def test_evaluate_routing_in_json_mode_prints_one_object_with_the_scores(tmp_path: Path) -> None:
    lines = [*LABELLED, {"text": "estou triste hoje", "skills": ["health"]}]

    report = json.loads(run("evaluate_routing", str(write_jsonl(tmp_path, lines)), "--json"))

    assert report["n"] == 7
    assert report["exact_match"] == pytest.approx(6 / 7)
    assert report["per_skill"]["finance"]["precision"] == 1.0
    assert report["per_skill"]["finance"]["recall"] == 1.0
    assert report["per_skill"]["health"]["recall"] == pytest.approx(1 / 2)
    assert report["misses"] == [{"text": "estou triste hoje", "expected": ["health"], "got": ["counselor"]}]


@pytest.mark.usefixtures("shipped_skills")
def test_evaluate_routing_uses_the_skills_as_edited_in_the_database(tmp_path: Path) -> None:
    Skill.objects.filter(name="health").update(enabled=False)

    report = json.loads(run("evaluate_routing", str(write_jsonl(tmp_path, LABELLED)), "--json"))

    assert report["exact_match"] == pytest.approx(5 / 6)
    assert report["misses"] == [
        {"text": "dormi super mal essa noite", "expected": ["health"], "got": ["general"]}
    ]


@pytest.mark.usefixtures("shipped_skills")
def test_evaluate_routing_carries_inertia_only_within_a_conversation(tmp_path: Path, settings: Any) -> None:
    settings.SKILL_INERTIA_MESSAGES = 0

    report = json.loads(run("evaluate_routing", str(write_jsonl(tmp_path, LABELLED)), "--json"))

    assert report["misses"] == [{"text": "e o que mais?", "expected": ["finance"], "got": ["general"]}]


@pytest.mark.usefixtures("shipped_skills")
def test_evaluate_routing_scores_several_files_in_turn_each_with_its_own_report(tmp_path: Path) -> None:
    first = write_jsonl(tmp_path, LABELLED, "first.jsonl")
    second = write_jsonl(tmp_path, [{"text": "estou triste hoje", "skills": ["health"]}], "second.jsonl")

    output = run("evaluate_routing", str(first), str(second))

    first_report, second_report = output.split(f"{second}:")
    assert first_report.startswith(f"{first}:") and "exact match: 6/6 (100.0%)" in first_report
    assert "exact match: 0/1 (0.0%)" in second_report
    assert "'estou triste hoje': expected health; got counselor" in second_report


@pytest.mark.usefixtures("shipped_skills")
def test_evaluate_routing_reads_every_file_before_scoring_any(tmp_path: Path) -> None:
    out = StringIO()

    with pytest.raises(CommandError, match="absent.jsonl: no such file"):
        call_command("evaluate_routing", str(write_jsonl(tmp_path, LABELLED)), str(tmp_path / "absent.jsonl"), stdout=out)

    assert out.getvalue() == ""


@pytest.mark.usefixtures("shipped_skills")
def test_evaluate_routing_prints_json_for_one_file_only(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path, LABELLED)

    with pytest.raises(CommandError, match="--json prints one file's figures"):
        run("evaluate_routing", str(path), str(path), "--json")


@pytest.mark.django_db
def test_evaluate_routing_names_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="no such file"):
        run("evaluate_routing", str(tmp_path / "absent.jsonl"))


@pytest.mark.usefixtures("shipped_skills")
def test_evaluate_routing_names_the_line_of_bad_json(tmp_path: Path) -> None:
    path = tmp_path / "broken.jsonl"
    path.write_text('{"text": "oi", "skills": ["general"]}\n\n{"text": "oops"\n', encoding="utf-8")

    with pytest.raises(CommandError, match=r"broken\.jsonl:3: invalid JSON"):
        run("evaluate_routing", str(path))


@pytest.mark.usefixtures("shipped_skills")
def test_evaluate_routing_names_the_line_of_a_sample_without_skills(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path, [{"text": "oi", "skills": ["general"]}, {"conversation": [{"text": "oi"}]}])

    with pytest.raises(CommandError, match=r":2: turn 1: each message needs 'skills'"):
        run("evaluate_routing", str(path))


@pytest.mark.django_db
def test_evaluate_routing_asks_to_load_skills_when_there_are_none(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="No enabled skills"):
        run("evaluate_routing", str(write_jsonl(tmp_path, LABELLED)))


@pytest.mark.usefixtures("shipped_skills")
@pytest.mark.skipif(not DEV_SET.is_file(), reason="the shared routing development set is absent")
def test_the_shipped_skills_route_at_least_95_percent_of_the_development_set_exactly() -> None:
    report = json.loads(run("evaluate_routing", str(DEV_SET), "--json"))

    assert report["n"] >= 50
    assert report["exact_match"] >= 0.95, report["misses"]


def test_the_benchmark_prints_both_sections_as_one_json_object() -> None:
    figures = json.loads(
        run("benchmark", "--json", "--repeats", "1", "--section", "detection", "--section", "tokens", "--section", "context")
    )

    assert set(figures) == {"detection", "tokens", "context"}
    detection = figures["detection"]
    assert detection["shipped"]["skills"] == 7
    assert detection["generated"]["skills"] == 500
    assert {"p50_us", "p99_us"} <= set(detection["generated"]["matcher"])
    assert {"p50_us", "p99_us"} <= set(detection["generated"]["naive"])
    assert "speedup" in detection["generated"]
    tokens = figures["tokens"]
    assert [row["text"] for row in tokens["scenarios"]] == [
        "Oi, tudo bem?",
        "Gastei 50 no mercado",
        "Estou triste hoje",
        "Pesei 82kg hoje",
        "Como estão minhas dívidas?",
        "Não sei se peço demissão",
        "Insônia por causa das dívidas",
    ]
    assert tokens["scenarios"][1]["skills"] == ["finance"]
    assert all(row["fixed_tokens"] > 0 for row in tokens["scenarios"])
    assert "average_saving_percent" in tokens and "targets" in tokens


def test_the_benchmark_prints_a_readable_table_with_targets() -> None:
    output = run("benchmark", "--repeats", "1", "--section", "tokens")

    assert "== Fixed tokens per scenario" in output
    assert "Gastei 50 no mercado" in output
    assert "target >= 48%" in output
    assert "Detection time" not in output


def test_the_benchmark_refuses_zero_repeats() -> None:
    with pytest.raises(CommandError, match="--repeats"):
        run("benchmark", "--repeats", "0")


@pytest.mark.usefixtures("shipped_skills")
def test_evaluate_routing_scores_a_line_without_preferences_with_the_optional_skills_on_unless_told(
    tmp_path: Path,
) -> None:
    path = write_jsonl(tmp_path, [{"text": "Quero me aproximar mais de Deus", "skills": ["spiritual"]}])

    as_labelled = json.loads(run("evaluate_routing", str(path), "--json"))
    as_new_user = json.loads(run("evaluate_routing", str(path), "--json", "--unstated-preferences", "off"))

    assert as_labelled["exact_match"] == 1.0
    assert as_new_user["exact_match"] == 0.0
    assert as_new_user["misses"][0]["got"] == ["general"]
