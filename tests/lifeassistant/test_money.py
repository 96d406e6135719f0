from decimal import Decimal

import pytest

from lifeassistant.money import InvalidAmount, format_brl, parse_amount


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (Decimal("1234.56"), "R$ 1.234,56"),
        (Decimal("50"), "R$ 50,00"),
        (Decimal("0.5"), "R$ 0,50"),
        (Decimal("1234567.8"), "R$ 1.234.567,80"),
        (Decimal("-10"), "-R$ 10,00"),
    ],
)
def test_amounts_are_shown_in_brazilian_format(value: Decimal, shown: str) -> None:
    assert format_brl(value) == shown


@pytest.mark.parametrize(
    ("value", "amount"),
    [
        (50, "50.00"),
        (50.5, "50.50"),
        ("50", "50.00"),
        ("50,00", "50.00"),
        ("1.234,56", "1234.56"),
        ("1,234.56", "1234.56"),
        ("R$ 50", "50.00"),
        ("R$1.234", "1234.00"),
        ("12.50", "12.50"),
        ("0,005", "0.01"),
        (19.999, "20.00"),
    ],
)
def test_amounts_are_read_from_numbers_and_brazilian_text_exactly(value: object, amount: str) -> None:
    assert parse_amount(value) == Decimal(amount)


@pytest.mark.parametrize("value", ["-5", -5, 0, "0,00", "cinquenta", "", "1.2.3,4,5", True, None, float("nan")])
def test_unusable_amounts_are_refused_with_a_reason(value: object) -> None:
    with pytest.raises(InvalidAmount):
        parse_amount(value)


def test_a_zero_amount_is_accepted_when_asked_for() -> None:
    assert parse_amount("0", allow_zero=True) == Decimal("0.00")
