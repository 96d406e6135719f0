"""Amounts and dates as a reader of each language expects them: "R$ 50,00" and 22/11/2026 in
pt-BR, "R$50.00" and 11/22/2026 in English.

The separators and date order come from Django's locale formats (django/conf/locale/*/formats.py),
so a language added to settings.LANGUAGES formats correctly without changes here.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from django.utils import formats, translation

from .money import SYMBOLS, active_currency, quantize

# Languages that put a space between the symbol and the number ("R$ 50,00", not "R$50.00").
_SPACED = ("pt", "es")


def money(amount: Decimal | int | str, currency: str | None = None, language: str | None = None) -> str:
    """``amount`` in ``currency`` (None: the active one, ``money.currency_override``) for a
    reader of ``language`` (a Django code such as "pt-br" or "en", or "pt"/"en-US"; None:
    the active language). Negatives read "-R$ 10,00"."""
    value = quantize(Decimal(amount))
    code = _django_code(language)
    with translation.override(code):
        number = formats.number_format(abs(value), decimal_pos=2, use_l10n=True, force_grouping=True)
    code_of_currency = (currency or active_currency()).upper()
    symbol = SYMBOLS.get(code_of_currency, code_of_currency)
    space = " " if code.split("-")[0] in _SPACED else ""
    sign = "-" if value < 0 else ""
    return f"{sign}{symbol}{space}{number}"


def day(value: date, language: str | None = None) -> str:
    """A calendar day in the language's short form: 22/11/2026 in pt-BR, 11/22/2026 in English."""
    with translation.override(_django_code(language)):
        return formats.date_format(value, "SHORT_DATE_FORMAT", use_l10n=True)


def _django_code(language: str | None) -> str:
    """The supported Django language for "pt", "pt-BR", "en-US"…; English for one we do not speak."""
    try:
        return translation.get_supported_language_variant((language or translation.get_language() or "pt-br").lower())
    except LookupError:
        return "en"
