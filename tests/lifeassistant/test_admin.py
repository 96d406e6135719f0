"""Every domain table has an admin page that lists, searches and filters it."""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from lifeassistant.models import Bill, Debt, Expense, KnowledgeItem, MetricEntry, Person

pytestmark = pytest.mark.django_db


@pytest.fixture
def rows(user: Any) -> None:
    KnowledgeItem.objects.create(owner=user, content="Gosta de café")
    MetricEntry.objects.create(owner=user, type="sleep", value=Decimal("7"), unit="h", recorded_at=timezone.now())
    Expense.objects.create(owner=user, amount=Decimal("50"), description="mercado", spent_on=date.today())
    Bill.objects.create(owner=user, name="Luz", amount=Decimal("120"), due_date=date.today())
    Debt.objects.create(owner=user, name="Cartão", total_amount=Decimal("1000"))
    Person.objects.create(owner=user, name="Carla", relationship="irmã")


@pytest.mark.parametrize(
    ("path", "shown"),
    [
        ("lifeassistant/knowledgeitem", "Gosta de café"),
        ("lifeassistant/metricentry", "sleep"),
        ("lifeassistant/expense", "mercado"),
        ("lifeassistant/bill", "Luz"),
        ("lifeassistant/debt", "Cartão"),
        ("lifeassistant/person", "Carla"),
        ("chat/pendingaction", "0 pending actions"),
    ],
)
def test_the_admin_lists_and_searches_each_table(admin_client: Client, rows: None, path: str, shown: str) -> None:
    listing = admin_client.get(f"/admin/{path}/")
    searched = admin_client.get(f"/admin/{path}/", {"q": "ana"})

    assert listing.status_code == 200
    assert shown in listing.content.decode()
    assert searched.status_code == 200


def test_the_profile_admin_refuses_an_unknown_currency_or_time_zone(admin_client: Client, user: Any) -> None:
    """The API refused them; staff could store one, and every amount was labelled with it."""
    from lifeassistant.models import Profile

    profile = Profile.for_user(user)
    form = {"user": user.pk, "display_name": "", "language": "", "disabled_skills": "[]", "preferences": "{}"}
    response = admin_client.post(
        f"/admin/lifeassistant/profile/{profile.pk}/change/", {**form, "timezone": "Mars/Olympus", "currency": "BRR"}
    )
    assert response.status_code == 200
    assert "Use an IANA time zone name" in response.content.decode()
    assert "ISO 4217 code of a currency" in response.content.decode()
    profile.refresh_from_db()
    assert (profile.timezone, profile.currency) == ("America/Sao_Paulo", "BRL")

    admin_client.post(f"/admin/lifeassistant/profile/{profile.pk}/change/", {**form, "timezone": "Asia/Tokyo", "currency": "JPY"})
    profile.refresh_from_db()
    assert (profile.timezone, profile.currency) == ("Asia/Tokyo", "JPY")
