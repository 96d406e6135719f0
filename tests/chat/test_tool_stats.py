"""Tool-call success rate per tool and per skill, in the admin."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from chat.models import Conversation, Message, PendingAction, ToolCall
from chat.tool_stats import Event, tally


def test_success_rate_counts_runs_and_keeps_proposals_apart() -> None:
    by_tool, by_skill = tally(
        [
            Event("get_pending_bills", ("finance",), "run", ok=True),
            Event("get_pending_bills", ("finance",), "run", ok=False),
            Event("create_expense", ("finance", "counselor"), "executed"),
            Event("create_expense", ("finance",), "rejected"),
            Event("search_knowledge", (), "run", ok=True),
        ]
    )

    tools = {s.name: s for s in by_tool}
    assert (tools["get_pending_bills"].runs, tools["get_pending_bills"].success_rate) == (2, 50.0)
    assert (tools["create_expense"].proposed, tools["create_expense"].confirmed, tools["create_expense"].rejected) == (2, 1, 1)
    assert tools["create_expense"].success_rate == 100.0
    skills = {s.name: s for s in by_skill}
    assert (skills["finance"].runs, skills["finance"].ok) == (3, 2)
    assert skills["counselor"].runs == 1
    assert skills["(none)"].runs == 1


@pytest.mark.django_db
def test_the_admin_shows_the_success_rate_per_tool_and_per_skill(admin_client: Client, user: Any) -> None:
    conversation = Conversation.objects.create(owner=user)
    reply = Message.objects.create(conversation=conversation, role="assistant", active_skills=["finance"])
    for number, ok in enumerate([True, True, True, False]):
        ToolCall.objects.create(message=reply, call_id=f"call_{number}", tool="get_finance_summary", ok=ok)
    old = ToolCall.objects.create(message=reply, call_id="call_old", tool="get_debt_progress", ok=False)
    ToolCall.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(days=90))
    PendingAction.objects.create(
        conversation=conversation, message=reply, tool_call_id="call_x", tool="create_expense",
        summary="Registrar despesa", status="rejected", expires_at=timezone.now(),
    )

    page = admin_client.get("/admin/chat/toolcall/stats/").content.decode()

    assert "<td>get_finance_summary</td><td>4</td><td>3</td><td>1</td>\n      <td>75.0%</td>" in page
    assert "<td>finance</td>" in page
    assert "get_debt_progress" not in page  # outside the 30-day window
    assert "<td>create_expense</td><td>0</td><td>0</td><td>0</td>\n      <td>—</td>\n      <td>1</td><td>0</td><td>1</td>" in page
    assert "/admin/chat/toolcall/stats/" in admin_client.get("/admin/chat/toolcall/").content.decode()
