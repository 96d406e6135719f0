"""SKILL.md folders into Skill rows, and back."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import call_command

from skills.loading import export_directory, load_directory
from skills.models import Skill

pytestmark = pytest.mark.django_db

SHIPPED = Path(__file__).resolve().parents[2] / "skills" / "definitions"


def write(root: Path, folder: str, text: str | bytes) -> None:
    (root / folder).mkdir(parents=True)
    path = root / folder / "SKILL.md"
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))


def test_it_loads_the_seven_shipped_skills():
    report = load_directory(SHIPPED)
    assert sorted(report.created) == [
        "counselor", "finance", "general", "health", "professional", "relationships", "spiritual"
    ]
    finance = Skill.objects.get(name="finance")
    assert finance.temperature == 0.3 and finance.priority == 3
    assert finance.tools == ["get_finance_summary", "get_pending_bills", "mark_bill_paid", "create_expense", "get_debt_progress"]
    assert Skill.objects.get(name="spiritual").requires_user_preference == "christian_perspective"


def test_loading_again_reports_unchanged_rows():
    load_directory(SHIPPED)
    report = load_directory(SHIPPED)
    assert report.created == [] and report.updated == [] and len(report.unchanged) == 7


def test_a_mixed_folder_loads_the_valid_files_and_explains_the_rest(tmp_path):
    write(tmp_path, "valid", "---\nname: travel\ndescription: Trips and holidays.\ntriggers: [viag, =ferias]\npriority: 4\n---\nPlan trips.\n")
    write(tmp_path, "foreign", "---\nname: pdf-tools\ndescription: Work with PDF files.\nlicense: MIT\nallowed-tools: Read\nmystery: 1\n---\nUse pdftotext.\n")
    write(tmp_path, "bad-yaml", "---\nname: [unclosed\n---\nbody\n")
    write(tmp_path, "bad-temperature", "---\nname: hot\ndescription: x\ntemperature: 7\n---\n")
    write(tmp_path, "no-name", "---\ndescription: nameless\n---\n")
    write(tmp_path, "binary", b"\xff\xfe\x00garbage")
    report = load_directory(tmp_path)
    assert sorted(report.created) == ["pdf-tools", "travel"]
    assert len(report.errors) == 4
    assert any("bad-temperature" in error and "temperature" in error for error in report.errors)
    assert any("mystery" in warning for warning in report.warnings)
    travel = Skill.objects.get(name="travel")
    assert travel.trigger_patterns == ["viag", "=ferias"] and travel.prompt_extension == "Plan trips."


def test_a_second_load_updates_a_changed_skill(tmp_path):
    write(tmp_path, "travel", "---\nname: travel\ndescription: Trips.\n---\nv1\n")
    load_directory(tmp_path)
    (tmp_path / "travel" / "SKILL.md").write_text("---\nname: travel\ndescription: Trips.\n---\nv2\n")
    report = load_directory(tmp_path)
    assert report.updated == ["travel"]
    assert Skill.objects.get(name="travel").prompt_extension == "v2"


def test_export_then_load_gives_identical_rows(tmp_path):
    load_directory(SHIPPED)
    before = {skill.name: skill.to_definition() for skill in Skill.objects.all()}
    export_directory(tmp_path)
    Skill.objects.exclude(name="general").delete()  # the fallback skill cannot be deleted
    Skill.objects.filter(name="general").update(description="changed")
    report = load_directory(tmp_path)
    assert len(report.created) == 6 and report.updated == ["general"] and not report.errors
    assert {skill.name: skill.to_definition() for skill in Skill.objects.all()} == before


def test_the_commands_print_a_report(tmp_path, capsys):
    call_command("load_skills", str(SHIPPED))
    assert "created: 7" in capsys.readouterr().out
    call_command("export_skills", str(tmp_path))
    assert "finance/SKILL.md" in capsys.readouterr().out
    call_command("load_skills", str(tmp_path / "missing"))
    assert "not a directory" in capsys.readouterr().out


def test_a_file_that_disables_the_fallback_skill_is_skipped_with_the_reason(tmp_path):
    load_directory(SHIPPED)
    write(tmp_path, "general", "---\nname: general\ndescription: Fallback.\nenabled: false\n---\n")
    report = load_directory(tmp_path)
    assert report.updated == [] and len(report.errors) == 1
    assert "general" in report.errors[0]
    assert Skill.objects.get(name="general").enabled is True


def test_a_file_the_admin_would_refuse_is_skipped_and_the_others_still_load(tmp_path):
    """They were created unchecked (an unknown tool, a bad preference name), or crashed the
    whole load on a constraint (a negative priority), so no valid file loaded either."""
    write(tmp_path, "travel", "---\nname: travel\ndescription: Trips.\n---\nPlan.\n")
    write(tmp_path, "unknown-tool", "---\nname: tooly\ndescription: x\ntools: [nope_tool]\n---\n")
    write(tmp_path, "bad-preference", '---\nname: prefy\ndescription: x\nrequires_user_preference: "Bad Pref"\n---\n')
    write(tmp_path, "negative-priority", "---\nname: lowly\ndescription: x\npriority: -1\n---\n")
    write(tmp_path, "nul", '---\nname: nully\ndescription: x\ntriggers: ["ab\\0c"]\n---\n')

    report = load_directory(tmp_path)

    assert report.created == ["travel"]
    assert sorted(error.split("/")[-2] for error in report.errors) == [
        "bad-preference", "negative-priority", "nul", "unknown-tool"
    ]
    assert all(error.count("SKILL.md") == 1 for error in report.errors)  # the path once
    assert list(Skill.objects.values_list("name", flat=True)) == ["travel"]


def test_a_skill_naming_another_in_a_compound_loads_whatever_the_order(tmp_path):
    # "aa-first" sorts before "zz-referenced" but names it with @zz.
    write(tmp_path, "aa-first", '---\nname: aa\ndescription: x\ntriggers: ["medo & @zz"]\n---\n')
    write(tmp_path, "zz-referenced", "---\nname: zz\ndescription: y\ntriggers: [divida]\n---\n")

    report = load_directory(tmp_path)

    assert sorted(report.created) == ["aa", "zz"] and report.errors == []
