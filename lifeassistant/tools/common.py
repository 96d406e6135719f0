"""Helpers shared by the tool modules: ownership, dates and money."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import Any, TypeVar

from django.db import models
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime

from lifeassistant.models import Area
from lifeassistant.text import normalize
from lifeassistant.money import InvalidAmount, format_brl, parse_amount, quantize

from .registry import ToolContext, ToolError

M = TypeVar("M", bound=models.Model)

AREAS = [choice.value for choice in Area]
DATE_SCHEMA = {
    "type": "string",
    "description": "A date as YYYY-MM-DD, or 'hoje'/'today', 'ontem'/'yesterday'. Defaults to today.",
}


def owned(model: type[M], context: ToolContext, object_id: int, label: str) -> M:
    """The user's row ``object_id``; another user's row is reported exactly like a missing one."""
    found = model._default_manager.filter(owner=context.user, pk=object_id).first()
    if found is None:
        raise ToolError(f"No {label} with id {object_id} was found.")
    return found


def amount_from(value: Any) -> Decimal:
    try:
        return parse_amount(value)
    except InvalidAmount as exc:
        raise ToolError(str(exc)) from None


def money(value: Decimal | int) -> dict[str, str]:
    """An amount for a tool result: the exact decimal and how the user should read it."""
    # Sums come back from SQLite as long decimals; money always has two places.
    exact = quantize(Decimal(value))
    return {"value": str(exact), "formatted": format_brl(exact)}


_RELATIVE_DAYS = {"hoje": 0, "today": 0, "ontem": 1, "yesterday": 1, "anteontem": 2}


def date_from(value: str | None) -> date:
    """A calendar date from the model's argument (today when absent)."""
    today = timezone.localdate()
    if value is None or not value.strip():
        return today
    text = normalize(value)
    if text in _RELATIVE_DAYS:
        return today - timedelta(days=_RELATIVE_DAYS[text])
    try:
        parsed = parse_date(value.strip()[:10]) if len(value.strip()) >= 10 else None
    except ValueError:  # well formed but not on the calendar: 2024-02-30, 2023-13-01
        raise ToolError(f"{value!r} is not a real date; use an existing YYYY-MM-DD.") from None
    if parsed is None:
        raise ToolError(f"{value!r} is not a date; use YYYY-MM-DD.")
    if parsed > today + timedelta(days=3650) or parsed.year < 1900:
        raise ToolError(f"{value!r} is out of range.")
    return parsed


def moment_from(value: str | None) -> datetime:
    """A timezone-aware moment from an ISO date-time or a date (now when absent)."""
    if value is None or not value.strip():
        return timezone.now()
    try:
        parsed = parse_datetime(value.strip())
    except ValueError:  # well formed but impossible: 2024-02-30T10:00, 2024-02-28T25:00
        raise ToolError(
            f"{value!r} is not a real date and time; use an existing YYYY-MM-DD or YYYY-MM-DDTHH:MM."
        ) from None
    if parsed is None:
        day = date_from(value)
        moment = timezone.make_aware(datetime.combine(day, time(12, 0)))
        return min(moment, timezone.now()) if day == timezone.localdate() else moment
    if timezone.is_naive(parsed):
        parsed = timezone.make_aware(parsed)
    return parsed


def words_of(text: str) -> list[str]:
    """The meaningful words of a query, folded (short words and stop words dropped)."""
    cleaned = "".join(ch if ch.isalnum() else " " for ch in normalize(text))
    return [w for w in cleaned.split() if len(w) >= 3 and w not in _STOP_WORDS]


_STOP_WORDS = {
    "que", "com", "para", "por", "uma", "um", "dos", "das", "nos", "nas", "meu", "minha", "meus", "minhas",
    "sobre", "como", "mais", "muito", "esta", "isso", "the", "and", "for", "with", "about", "what", "how",
    "from", "that", "this", "sua", "seu", "ele", "ela", "ter", "tem", "foi", "ser", "esta", "estou",
}


def brazilian_date(day: date) -> str:
    return day.strftime("%d/%m/%Y")
