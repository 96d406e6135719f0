"""What the offline model reads in a message (lifeassistant.offline_requests): pure."""

from __future__ import annotations

from datetime import date

import pytest

from lifeassistant.offline_requests import ToolRequest, read_request

TODAY = date(2026, 3, 15)
EVERY_TOOL = {"create_expense", "get_finance_summary", "record_metric", "add_knowledge"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("gastei 50 reais no mercado", ToolRequest("create_expense", {"amount": "50.00", "description": "mercado"})),
        ("Gastei R$ 1.250,90 na farmácia ontem", ToolRequest("create_expense", {"amount": "1250.90", "description": "farmácia", "date": "2026-03-14"})),
        ("comprei 2 kg de arroz por 10 reais", ToolRequest("create_expense", {"amount": "10.00", "description": "arroz"})),
        ("I spent $40 on gas", ToolRequest("create_expense", {"amount": "40.00", "description": "gas"})),
        ("gasté 30 euros en el súper", ToolRequest("create_expense", {"amount": "30.00", "description": "súper"})),
        ("quanto gastei este mês?", ToolRequest("get_finance_summary", {})),
        ("How much did I spend last month?", ToolRequest("get_finance_summary", {"month": "2026-02"})),
        ("¿Cuánto gasté este mes?", ToolRequest("get_finance_summary", {})),
        ("pesei 72 kg hoje", ToolRequest("record_metric", {"type": "weight", "value": 72.0, "unit": "kg"})),
        ("I weigh 80.5 kg", ToolRequest("record_metric", {"type": "weight", "value": 80.5, "unit": "kg"})),
        ("dormí 8 horas", ToolRequest("record_metric", {"type": "sleep", "value": 8.0, "unit": "h"})),
        ("I slept 6 hours last night", ToolRequest("record_metric", {"type": "sleep", "value": 6.0, "unit": "h"})),
        ("sou enfermeira", ToolRequest("add_knowledge", {"content": "Sou enfermeira", "area": "general", "kind": "fact"})),
        ("Oi! Eu trabalho como professora.", ToolRequest("add_knowledge", {"content": "Eu trabalho como professora", "area": "professional", "kind": "fact"})),
        ("My name is Ana", ToolRequest("add_knowledge", {"content": "My name is Ana", "area": "general", "kind": "fact"})),
        ("me llamo Lucía", ToolRequest("add_knowledge", {"content": "Me llamo Lucía", "area": "general", "kind": "fact"})),
    ],
)
def test_everyday_requests_become_the_tool_call_a_model_would_make(text, expected):
    assert read_request(text, EVERY_TOOL, TODAY) == expected


@pytest.mark.parametrize(
    "text",
    [
        "oi, tudo bem?",
        "sou um fracasso",  # a feeling, not a fact to remember
        "sou muito ansiosa",
        "I am so tired",
        "perdi 2 kg",  # a change, not a weight
        "dormi mal",
        "quanto custa um tênis?",
        "gastei demais esse mês",  # no amount
    ],
)
def test_anything_else_is_no_request(text):
    assert read_request(text, EVERY_TOOL, TODAY) is None


def test_a_request_for_a_tool_not_offered_is_none():
    assert read_request("gastei 50 reais no mercado", {"add_knowledge"}, TODAY) is None
