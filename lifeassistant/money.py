"""Money as the user sees it (R$ 1.234,56) and as it is stored (exact two-place decimals)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any

CENTS = Decimal("0.01")
MAX_AMOUNT = Decimal("9999999999.99")  # fits DecimalField(max_digits=12, decimal_places=2)

_CURRENCY_PREFIX = re.compile(r"^(r\$|brl|\$)\s*", re.IGNORECASE)


class InvalidAmount(ValueError):
    """The value is not a usable amount of money; the message is safe to show."""


def quantize(value: Decimal) -> Decimal:
    """Round to cents, half up, as money is rounded on a receipt."""
    return value.quantize(CENTS, rounding=ROUND_HALF_UP)


# The ISO 4217 codes of currencies in circulation (2025 list, without funds, metals and test
# codes): what a profile may choose. A typo such as "BRR" would otherwise label every amount.
CURRENCY_CODES = frozenset(
    """
    AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BRL BSD BTN BWP
    BYN BZD CAD CDF CHF CLP CNY COP CRC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP
    GEL GHS GIP GMD GNF GTQ GYD HKD HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR
    KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK
    MXN MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR
    SBD SCR SDG SEK SGD SHP SLE SLL SOS SRD SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY TTD TWD
    TZS UAH UGX USD UYU UZS VED VES VND VUV WST XAF XCD XCG XOF XPF YER ZAR ZMW ZWG
    """.split()
)

# How each currency is written; Brazilian usage distinguishes the dollar ("US$") from the real.
SYMBOLS = {"BRL": "R$", "USD": "US$", "EUR": "€"}

# The currency of the user being served (their profile's), set around their tool calls.
_CURRENCY: ContextVar[str] = ContextVar("currency", default="BRL")


def active_currency() -> str:
    return _CURRENCY.get()


@contextmanager
def currency_override(code: str) -> Iterator[None]:
    """Amounts formatted inside are in ``code`` (an ISO 4217 code) unless one is given."""
    token = _CURRENCY.set(code.upper() or "BRL")
    try:
        yield
    finally:
        _CURRENCY.reset(token)


def format_brl(value: Decimal | int | str, currency: str | None = None) -> str:
    """Brazilian format: ``R$ 1.234,56``; negatives as ``-R$ 10,00``. Another ``currency``
    (default: the active one) changes the symbol only: ``US$ 1.234,56``."""
    amount = quantize(Decimal(value))
    sign = "-" if amount < 0 else ""
    integer, cents = f"{abs(amount):,.2f}".split(".")
    code = (currency or active_currency()).upper()
    return f"{sign}{SYMBOLS.get(code, code)} {integer.replace(',', '.')},{cents}"


def parse_amount(value: Any, *, allow_zero: bool = False, allow_negative: bool = False) -> Decimal:
    """An exact two-place Decimal from a number or a string such as ``"50"``, ``"50,00"``,
    ``"1.234,56"``, ``"R$ 50"`` or ``"1234.56"``.

    Raises ``InvalidAmount`` for anything else, and for zero or negative amounts unless allowed.
    """
    if isinstance(value, bool):
        raise InvalidAmount("The amount must be a number, e.g. 50 or \"50,00\".")
    if isinstance(value, (int, Decimal)):
        amount = Decimal(value)
    elif isinstance(value, float):
        amount = Decimal(repr(value))
    elif isinstance(value, str):
        amount = _parse_text(value)
    else:
        raise InvalidAmount("The amount must be a number, e.g. 50 or \"50,00\".")
    if not amount.is_finite():
        raise InvalidAmount("The amount must be a finite number.")
    amount = quantize(amount)
    if amount < 0 and not allow_negative:
        raise InvalidAmount(f"The amount must be positive, got {format_brl(amount)}.")
    if amount == 0 and not allow_zero:
        raise InvalidAmount("The amount must be greater than zero.")
    if abs(amount) > MAX_AMOUNT:
        raise InvalidAmount(f"The amount {format_brl(amount)} is too large.")
    return amount


def _parse_text(text: str) -> Decimal:
    cleaned = _CURRENCY_PREFIX.sub("", text.strip().replace("\u00a0", " ")).replace(" ", "")
    negative = cleaned.startswith("-")
    digits = cleaned.lstrip("-+")
    if not digits or not re.fullmatch(r"[0-9.,]+", digits):
        raise InvalidAmount(f"{text!r} is not an amount of money.")
    normalized = _normalize_separators(digits)
    try:
        amount = Decimal(normalized)
    except InvalidOperation:
        raise InvalidAmount(f"{text!r} is not an amount of money.") from None
    return -amount if negative else amount


def _normalize_separators(digits: str) -> str:
    """Decide which of ``.`` and ``,`` is the decimal separator (Brazilian first)."""
    if "," in digits and "." in digits:
        decimal_sep = "," if digits.rfind(",") > digits.rfind(".") else "."
        thousands = "." if decimal_sep == "," else ","
        integer, _, fraction = digits.rpartition(decimal_sep)
        if not _valid_grouping(integer, thousands):
            raise InvalidAmount(f"{digits!r} is not an amount of money.")
        return integer.replace(thousands, "") + "." + fraction
    for sep in (",", "."):
        if sep in digits:
            parts = digits.split(sep)
            # "1.234" / "1.234.567" are thousands (Brazilian); "50,5" / "12.50" are decimals.
            if len(parts) > 2 or (len(parts[-1]) == 3 and sep == "." and parts[0] not in ("", "0")):
                if not _valid_grouping(digits, sep):
                    raise InvalidAmount(f"{digits!r} is not an amount of money.")
                return digits.replace(sep, "")
            return parts[0] + "." + parts[1]
    return digits


def _valid_grouping(integer: str, sep: str) -> bool:
    if sep not in integer:
        return integer.isdigit()
    groups = integer.split(sep)
    return 1 <= len(groups[0]) <= 3 and groups[0].isdigit() and all(len(g) == 3 and g.isdigit() for g in groups[1:])
