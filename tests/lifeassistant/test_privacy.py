"""The pure rules of the user's data: what waits for consent, CSV cells, the deletion record's hash."""

from __future__ import annotations

from typing import Any

from lifeassistant.privacy import csv_cell, purposes_to_ask, subject_hash, withheld_skills, withheld_tools


def test_without_consent_the_health_writing_tools_and_the_spiritual_skill_are_withheld() -> None:
    assert withheld_tools(set()) == {"record_metric", "update_metric"}
    assert withheld_skills(set()) == ("spiritual",)


def test_consent_releases_only_its_own_purpose() -> None:
    assert withheld_tools({"health"}) == frozenset()
    assert withheld_skills({"health"}) == ("spiritual",)
    assert withheld_skills({"spiritual"}) == ()


def test_reading_and_deleting_metrics_never_wait_for_consent() -> None:
    assert not {"get_tracking_history", "delete_metric"} & withheld_tools(set())


def test_a_purpose_is_asked_when_something_the_message_wanted_needs_it() -> None:
    assert purposes_to_ask(set(), wanted_skills=["health"], wanted_tools=["record_metric", "get_tracking_history"]) == ["health"]
    assert purposes_to_ask(set(), wanted_skills=["spiritual"], wanted_tools=[]) == ["spiritual"]
    assert purposes_to_ask({"health"}, wanted_skills=[], wanted_tools=["record_metric"]) == []
    assert purposes_to_ask(set(), wanted_skills=["finance"], wanted_tools=["create_expense"]) == []


def test_a_cell_a_spreadsheet_would_run_is_quoted() -> None:
    for formula in ("=1+1", "+55 11 9999", "-2+3", "@SUM(A1)", "\t=1"):
        assert csv_cell(formula) == "'" + formula
    assert csv_cell("mercado") == "mercado"
    assert csv_cell(None) == ""


def test_numbers_stay_numbers() -> None:
    values: list[Any] = [-12.5, 3, "-12.50"]
    assert [csv_cell(value) for value in values] == ["-12.5", "3", "-12.50"]


def test_the_deletion_records_hash_is_stable_keyed_and_not_the_id(settings: Any) -> None:
    first = subject_hash(42)
    assert first == subject_hash(42) and len(first) == 64
    assert first != subject_hash(43) and "42" != first
    settings.SECRET_KEY = "another-deployment"
    assert subject_hash(42) != first
