"""Finance tools over the user's own expenses, bills and debts."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.utils import timezone, translation

from lifeassistant.tools import REGISTRY, ToolContext
from lifeassistant.models import Bill, Debt, Expense

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def users_time_zone() -> Any:
    """The tools run in the user's time zone (their profile's, São Paulo by default): the
    test's "today" is the user's too, whatever the hour in UTC."""
    with timezone.override("America/Sao_Paulo"):
        yield


def run(user: Any, tool: str, /, **arguments: Any) -> Any:
    outcome = REGISTRY.execute(tool, arguments, ToolContext(user, None, None))
    return outcome.result if outcome.ok else outcome.error


def test_an_expense_is_stored_exactly_and_shown_in_reais(user: Any) -> None:
    result = run(user, "create_expense", amount="1.234,56", description="notebook")

    expense = Expense.objects.get()
    assert expense.amount == Decimal("1234.56")
    assert expense.spent_on == timezone.localdate()
    assert result["expense"]["amount"] == {"value": "1234.56", "formatted": "R$ 1.234,56"}
    assert result["month_total"]["formatted"] == "R$ 1.234,56"


def test_an_expense_gets_a_category_from_its_description(user: Any) -> None:
    run(user, "create_expense", amount=50, description="mercado")

    assert Expense.objects.get().category == "groceries"


def test_an_expense_in_the_future_is_refused(user: Any) -> None:
    tomorrow = (timezone.localdate() + timedelta(days=1)).isoformat()

    error = run(user, "create_expense", amount=50, description="mercado", date=tomorrow)

    assert "future" in error
    assert not Expense.objects.exists()


def test_the_finance_summary_adds_up_the_month_by_category(user: Any, other_user: Any) -> None:
    today = timezone.localdate()
    Expense.objects.create(owner=user, amount=Decimal("50.10"), description="mercado", category="groceries", spent_on=today)
    Expense.objects.create(owner=user, amount=Decimal("20.00"), description="uber", category="transport", spent_on=today)
    Expense.objects.create(owner=other_user, amount=Decimal("999"), description="not mine", spent_on=today)

    summary = run(user, "get_finance_summary")

    assert summary["spent"] == {"value": "70.10", "formatted": "R$ 70,10"}
    assert [row["category"] for row in summary["by_category"]] == ["groceries", "transport"]
    assert summary["expense_count"] == 2


def test_pending_bills_list_overdue_ones_first_with_totals(user: Any, other_user: Any) -> None:
    today = timezone.localdate()
    Bill.objects.create(owner=user, name="Luz", amount=Decimal("120.00"), due_date=today - timedelta(days=2))
    Bill.objects.create(owner=user, name="Aluguel", amount=Decimal("1500.00"), due_date=today + timedelta(days=5))
    Bill.objects.create(owner=user, name="Paga", amount=Decimal("10.00"), due_date=today, status="paid", paid_at=today)
    Bill.objects.create(owner=other_user, name="Not mine", amount=Decimal("1.00"), due_date=today)

    result = run(user, "get_pending_bills")

    assert [bill["name"] for bill in result["bills"]] == ["Luz", "Aluguel"]
    assert result["bills"][0]["overdue"] is True
    assert result["total"]["formatted"] == "R$ 1.620,00"
    assert result["overdue_total"]["formatted"] == "R$ 120,00"


def test_a_bill_is_marked_paid_once(user: Any) -> None:
    bill = Bill.objects.create(owner=user, name="Luz", amount=Decimal("120.00"), due_date=timezone.localdate())

    run(user, "mark_bill_paid", bill_id=bill.pk)
    again = run(user, "mark_bill_paid", bill_id=bill.pk)

    bill.refresh_from_db()
    assert bill.status == "paid"
    assert bill.paid_at == timezone.localdate()
    assert "already paid" in again


def test_another_users_bill_is_not_found(user: Any, other_user: Any) -> None:
    theirs = Bill.objects.create(owner=other_user, name="Luz", amount=Decimal("1"), due_date=timezone.localdate())

    error = run(user, "mark_bill_paid", bill_id=theirs.pk)

    assert error == f"No bill with id {theirs.pk} was found."
    theirs.refresh_from_db()
    assert theirs.status == "pending"


def test_debt_progress_shows_what_is_paid_and_what_remains(user: Any, other_user: Any) -> None:
    Debt.objects.create(owner=user, name="Cartão", total_amount=Decimal("1200"), paid_amount=Decimal("300"),
                        installments_total=12, installments_paid=3)
    Debt.objects.create(owner=other_user, name="Not mine", total_amount=Decimal("5"))

    result = run(user, "get_debt_progress")

    [debt] = result["debts"]
    assert debt["remaining"]["formatted"] == "R$ 900,00"
    assert debt["percent_paid"] == "25.0"
    assert debt["installments"] == {"paid": 3, "total": 12, "left": 9, "amount": {"value": "100.00", "formatted": "R$ 100,00"}}
    assert result["remaining"]["value"] == "900.00"


def test_another_users_debt_is_not_found(user: Any, other_user: Any) -> None:
    theirs = Debt.objects.create(owner=other_user, name="Not mine", total_amount=Decimal("5"))

    assert run(user, "get_debt_progress", debt_id=theirs.pk) == f"No debt with id {theirs.pk} was found."


@pytest.mark.parametrize("impossible", ["2024-02-30", "2023-13-01", "2024-04-31"])
def test_an_impossible_date_is_an_error_the_model_can_correct(user: Any, impossible: str) -> None:
    outcome = REGISTRY.execute(
        "create_expense", {"amount": 50, "description": "mercado", "date": impossible}, ToolContext(user, None, None)
    )

    assert not outcome.ok
    assert outcome.error == f"'{impossible}' is not a real date; use an existing YYYY-MM-DD."
    assert "failed unexpectedly" not in outcome.error
    assert not Expense.objects.exists()


@pytest.mark.parametrize(
    ("language", "summary"),
    [
        ("pt-br", "Marcar como paga a conta luz (R$ 1.234,50, vence 22/11/2026)"),
        ("en", "Mark the bill luz (R$1,234.50, due 11/22/2026) as paid"),
    ],
)
def test_an_action_card_shows_amounts_and_dates_in_the_readers_language(user: Any, language: str, summary: str) -> None:
    bill = Bill.objects.create(owner=user, name="luz", amount=Decimal("1234.50"), due_date=date(2026, 11, 22))

    with translation.override(language):
        _arguments, shown = REGISTRY.describe("mark_bill_paid", {"bill_id": bill.pk}, ToolContext(user, None, None))

    assert shown == summary


@pytest.mark.parametrize("zone", ["Pacific/Kiritimati", "Pacific/Pago_Pago"])  # UTC+14 and UTC-11
def test_today_and_yesterday_are_the_users_not_the_servers(user: Any, zone: str) -> None:
    """25 hours apart, the two zones never share a date, so one of them always differs
    from the server's (UTC): "hoje" was the server's day."""
    import zoneinfo

    from lifeassistant.models import Profile

    Profile.objects.filter(user=user).update(timezone=zone) or Profile.objects.create(user=user, timezone=zone)
    users_today = timezone.now().astimezone(zoneinfo.ZoneInfo(zone)).date()

    run(user, "create_expense", amount=10, description="padaria")
    run(user, "create_expense", amount=20, description="uber", date="ontem")
    summary = REGISTRY.describe("create_expense", {"amount": 30, "description": "cafe", "date": users_today.isoformat()}, ToolContext(user, None, None))[1]

    assert sorted(Expense.objects.values_list("spent_on", flat=True)) == [users_today - timedelta(days=1), users_today]
    assert "/" not in summary  # the user's today: no date shown, and not refused as the future


def test_amounts_are_in_the_users_currency(user: Any) -> None:
    from lifeassistant.models import Profile

    Profile.objects.filter(user=user).update(currency="USD") or Profile.objects.create(user=user, currency="USD")

    result = run(user, "create_expense", amount="1234.56", description="notebook")
    with translation.override("en"):
        summary = REGISTRY.describe("create_expense", {"amount": 50, "description": "groceries"}, ToolContext(user, None, None))[1]

    assert result["expense"]["amount"]["formatted"] == "US$ 1.234,56"
    assert summary == "Record an expense of US$50.00 (groceries)"
