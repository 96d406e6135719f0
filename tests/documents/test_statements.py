"""Statement lines as banks write them, and which debits an import would record."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from documents.statements import Transaction, parse_amount, parse_date, plan_import


@pytest.mark.parametrize(
    ("text", "amount"),
    [("-1.234,56", "-1234.56"), ("1.234,56", "1234.56"), ("R$ -50,00", "-50.00"), ("(1.234,56)", "-1234.56"),
     ("89,90 D", "-89.90"), ("89,90 C", "89.90"), ("-30.00", "-30.00"), ("1234.5", "1234.50")],  # fmt: skip
)
def test_amounts_read_as_brazilian_banks_write_them(text, amount):
    assert parse_amount(text) == Decimal(amount)


@pytest.mark.parametrize("text", ["", "abc", "12/11/2026", "=1+1"])
def test_what_is_no_amount_is_refused(text):
    with pytest.raises(ValueError):
        parse_amount(text)


@pytest.mark.parametrize("text", ["27/11/2026", "27/11/26", "27-11-2026", "27.11.2026", "2026-11-27", "27/11/2026 14:30"])
def test_dates_are_day_first_or_iso(text):
    assert parse_date(text) == date(2026, 11, 27)


def test_an_impossible_date_is_refused():
    with pytest.raises(ValueError):
        parse_date("31/02/2026")


def debit(day: int, amount: str, description: str) -> Transaction:
    return Transaction(date(2026, 11, day), description, -Decimal(amount), "debit")


def test_an_import_leaves_out_money_in_and_what_is_recorded_one_for_one():
    coffee = debit(3, "5.00", "Café")
    transactions = [coffee, coffee, debit(4, "30.00", "Uber"), Transaction(date(2026, 11, 5), "Salário", Decimal("10"), "credit")]

    plan = plan_import(transactions, [(date(2026, 11, 3), Decimal("5.00"), "cafe")])

    assert plan.expenses == (coffee, debit(4, "30.00", "Uber"))
    assert (plan.duplicates, plan.credits, plan.total) == (1, 1, Decimal("35.00"))
