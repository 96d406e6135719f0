"""The registry: the fourteen tools, schema validation, and failures fed back instead of crashing."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import jsonschema
import pytest

from lifeassistant.tools import REGISTRY, ToolContext
from lifeassistant.models import Expense

pytestmark = pytest.mark.django_db

SEED_TOOLS = {
    "search_knowledge", "add_knowledge", "analyze_context",
    "record_metric", "get_tracking_history", "update_metric", "delete_metric",
    "get_finance_summary", "get_pending_bills", "mark_bill_paid", "create_expense", "get_debt_progress",
    "get_person", "update_person",
}
WRITING = {"add_knowledge", "record_metric", "update_metric", "delete_metric", "mark_bill_paid", "create_expense", "update_person"}


def test_the_fourteen_tools_of_the_seed_are_registered_and_only_the_writers_write() -> None:
    assert SEED_TOOLS <= set(REGISTRY.names())
    assert {name for name in SEED_TOOLS if REGISTRY.get(name).writes} == WRITING


def test_every_tool_describes_itself_with_a_strict_object_schema() -> None:
    for name in SEED_TOOLS:
        definition = REGISTRY.catalog()[name]["function"]
        assert definition["description"]
        assert definition["parameters"]["type"] == "object"
        assert definition["parameters"]["additionalProperties"] is False


def test_arguments_that_break_the_schema_come_back_as_a_tool_error(user: Any) -> None:
    outcome = REGISTRY.execute("create_expense", '{"amount": 50}', ToolContext(user, None, None))

    assert not outcome.ok
    assert "description" in outcome.error
    assert '"error"' in outcome.as_tool_content()


def test_a_call_is_validated_without_checking_its_schema_again(user: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # A tool's schema is checked once, when it is registered: re-checking it on each call
    # cost ~2 ms of a worker's CPU a tool call (jsonschema.validate does).
    def check_again(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the schema was checked again for a call")

    monkeypatch.setattr(jsonschema.Draft202012Validator, "check_schema", check_again)

    wrong = REGISTRY.execute("create_expense", '{"amount": 50}', ToolContext(user, None, None))
    arguments, summary = REGISTRY.describe("create_expense", '{"amount": 50, "description": "mercado"}', ToolContext(user, None, None))

    assert not wrong.ok and "description" in wrong.error
    assert arguments == {"amount": 50, "description": "mercado"} and summary


def test_arguments_that_are_not_json_come_back_as_a_tool_error(user: Any) -> None:
    outcome = REGISTRY.execute("get_finance_summary", "{not json", ToolContext(user, None, None))

    assert not outcome.ok
    assert "not valid JSON" in outcome.error


def test_an_unknown_tool_is_an_error_for_the_model_not_a_crash(user: Any) -> None:
    outcome = REGISTRY.execute("transfer_money", "{}", ToolContext(user, None, None))

    assert not outcome.ok
    assert "Unknown tool" in outcome.error


def test_a_handler_that_fails_half_way_leaves_nothing_behind(user: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    registered = REGISTRY.get("create_expense")

    def explode_after_writing(context: ToolContext, arguments: dict[str, Any]) -> None:
        Expense.objects.create(owner=context.user, amount=1, description="x", spent_on="2025-01-01")
        raise RuntimeError("disk full")

    monkeypatch.setitem(REGISTRY._tools, "create_expense", replace(registered, handler=explode_after_writing))

    outcome = REGISTRY.execute("create_expense", {"amount": 1, "description": "x"}, ToolContext(user, None, None))

    assert not outcome.ok
    assert outcome.error == "The tool create_expense failed unexpectedly."
    assert not Expense.objects.exists()
