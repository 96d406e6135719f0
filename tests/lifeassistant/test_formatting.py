"""Amounts and dates in the reader's language (lifeassistant.formatting)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest
from django.utils import translation

from lifeassistant.formatting import day, money


@pytest.mark.parametrize(
    ("amount", "currency", "language", "shown"),
    [
        (Decimal("50"), "BRL", "pt-br", "R$ 50,00"),
        (Decimal("50"), "BRL", "en", "R$50.00"),
        (Decimal("1234567.8"), "BRL", "pt-br", "R$ 1.234.567,80"),
        (Decimal("1234567.8"), "BRL", "en", "R$1,234,567.80"),
        ("0.005", "BRL", "pt", "R$ 0,01"),  # rounded half up, like a receipt; "pt" is Brazilian
        (-10, "USD", "pt-BR", "-US$ 10,00"),
        (-10, "usd", "en-US", "-US$10.00"),
        (7, "EUR", "de", "€7.00"),  # a language we do not speak reads English
    ],
)
def test_money_follows_the_readers_language(amount: Decimal, currency: str, language: str, shown: str) -> None:
    assert money(amount, currency, language) == shown


def test_money_and_days_without_a_language_follow_the_active_one() -> None:
    with translation.override("en"):
        assert (money(50), day(date(2026, 11, 22))) == ("R$50.00", "11/22/2026")
    with translation.override("pt-br"):
        assert (money(50), day(date(2026, 11, 22))) == ("R$ 50,00", "22/11/2026")


def test_days_are_day_month_year_in_portuguese() -> None:
    assert day(date(2026, 11, 22), "pt-br") == "22/11/2026"
    assert day(date(2026, 1, 2), "en") == "01/02/2026"
