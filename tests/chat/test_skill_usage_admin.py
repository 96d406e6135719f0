"""The skill usage dashboard: skills and reasons over a period, and the fixed tokens saved."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone as dt_timezone
from typing import Any

import pytest
from django.urls import reverse
from django.utils import timezone

from chat.models import Conversation, Message
from skills.usage import LedgerRow, period_bounds, summarize

USAGE = reverse("admin:chat_message_skill_usage")



def test_a_message_with_two_skills_counts_for_both_and_the_saving_compares_averages() -> None:
    summary = summarize(
        [
            LedgerRow(("finance", "health"), "trigger", 1500, 2000),
            LedgerRow(("finance",), "inertia", 1000, 2000),
            LedgerRow(("general",), "fallback", 500, 2000),
            LedgerRow(("general",), "fallback", None, None),
        ]
    )

    assert summary.messages == 4
    assert [(share.name, share.count) for share in summary.per_skill] == [
        ("finance", 2), ("general", 2), ("health", 1),
    ]
    assert [(share.name, share.count, share.percent) for share in summary.per_reason] == [
        ("fallback", 2, 50.0), ("inertia", 1, 25.0), ("trigger", 1, 25.0),
    ]
    assert summary.measured == 3
    assert summary.average_fixed_tokens == 1000
    assert summary.average_monolithic_tokens == 2000
    assert summary.saving_percent == 50.0


def test_an_empty_period_has_no_averages() -> None:
    summary = summarize([])

    assert summary.messages == 0
    assert summary.saving_percent is None and summary.average_fixed_tokens is None


def test_custom_dates_cover_whole_days_including_the_last_one() -> None:
    now = datetime(2025, 3, 10, 15, 0, tzinfo=dt_timezone.utc)

    start, end = period_bounds("custom", now=now, start=date(2025, 3, 1), end=date(2025, 3, 2))

    assert (start, end) == (
        datetime(2025, 3, 1, tzinfo=dt_timezone.utc),
        datetime(2025, 3, 3, tzinfo=dt_timezone.utc),
    )
    assert period_bounds("24h", now=now) == (now - timedelta(hours=24), now)


@pytest.fixture
def ledger(user: Any) -> None:
    """Four assistant replies: two within the last day, one 3 days ago, one 20 days ago."""
    conversation = Conversation.objects.create(owner=user)
    now = timezone.now()
    rows = [
        (["finance"], "trigger", 1000, 2000, timedelta(hours=1)),
        (["finance", "health"], "trigger", 1500, 2000, timedelta(hours=2)),
        (["counselor"], "inertia", 800, 2000, timedelta(days=3)),
        (["general"], "fallback", 600, 2000, timedelta(days=20)),
    ]
    for skills, reason, fixed, monolithic, age in rows:
        message = Message.objects.create(
            conversation=conversation,
            role=Message.Role.ASSISTANT,
            active_skills=skills,
            skill_reason=reason,
            fixed_tokens=fixed,
            monolithic_fixed_tokens=monolithic,
        )
        Message.objects.filter(pk=message.pk).update(created_at=now - age)
    # A user message never counts.
    Message.objects.create(conversation=conversation, role=Message.Role.USER, content="oi")


def counts(response: Any) -> dict[str, int]:
    return {share.name: share.count for share in response.context["summary"].per_skill}


@pytest.mark.usefixtures("ledger")
def test_the_last_24_hours_show_only_the_two_recent_replies(admin_client: Any) -> None:
    response = admin_client.get(USAGE, {"period": "24h"})

    summary = response.context["summary"]
    assert summary.messages == 2
    assert counts(response) == {"finance": 2, "health": 1}
    assert summary.average_fixed_tokens == 1250
    assert round(summary.saving_percent, 1) == 37.5
    page = response.content.decode()
    assert '<strong class="message-count">2</strong>' in page
    assert '<td class="saving">37.5%</td>' in page


@pytest.mark.usefixtures("ledger")
def test_the_default_period_is_the_last_seven_days(admin_client: Any) -> None:
    response = admin_client.get(USAGE)

    assert counts(response) == {"finance": 2, "health": 1, "counselor": 1}
    assert {share.name: share.count for share in response.context["summary"].per_reason} == {
        "trigger": 2, "inertia": 1,
    }


@pytest.mark.usefixtures("ledger")
def test_the_last_30_days_include_the_fallback_reply(admin_client: Any) -> None:
    response = admin_client.get(USAGE, {"period": "30d"})

    assert response.context["summary"].messages == 4
    assert counts(response)["general"] == 1


@pytest.mark.usefixtures("ledger")
def test_a_custom_range_selects_the_replies_of_those_days(admin_client: Any) -> None:
    local_today = timezone.localdate()
    start = local_today - timedelta(days=25)
    end = local_today - timedelta(days=2)

    response = admin_client.get(USAGE, {"period": "custom", "start": start.isoformat(), "end": end.isoformat()})

    assert counts(response) == {"counselor": 1, "general": 1}


def test_a_custom_range_ending_before_it_starts_is_refused(admin_client: Any) -> None:
    response = admin_client.get(USAGE, {"period": "custom", "start": "2025-03-10", "end": "2025-03-01"})

    assert response.context["summary"] is None
    assert "The From date must not be after the To date." in response.content.decode()


@pytest.mark.parametrize(("start", "end"), [("0001-01-01", "9999-12-31"), ("9999-12-31", "9999-12-31"), ("1999-12-31", "2000-01-02")])
def test_dates_at_the_calendars_ends_are_refused_not_a_500(admin_client: Any, start: str, end: str) -> None:
    response = admin_client.get(USAGE, {"period": "custom", "start": start, "end": end})

    assert response.status_code == 200 and response.context["summary"] is None
    assert "Use dates from 2000-01-01 to 9998-12-31." in response.content.decode()


def test_the_dashboard_is_for_staff_only(client: Any, user: Any) -> None:
    client.force_login(user)

    response = client.get(USAGE)

    assert response.status_code == 302
