"""Tracking tools (health skill): metrics the user chose to record."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from lifeassistant import formatting
from lifeassistant.models import MetricEntry

from .common import moment_from, owned
from .registry import ToolContext, ToolError, tool

TYPES = [choice.value for choice in MetricEntry.Type]
# Unit stored when the model gives none, and the plausible range of a value in that unit.
DEFAULT_UNITS = {
    "weight": "kg",
    "water": "ml",
    "sleep": "h",
    "exercise": "min",
    "mood": "score",
    "energy": "score",
    "steps": "steps",
}
RANGES = {
    ("weight", "kg"): (Decimal("1"), Decimal("500")),
    ("water", "ml"): (Decimal("1"), Decimal("20000")),
    ("water", "l"): (Decimal("0.01"), Decimal("20")),
    ("sleep", "h"): (Decimal("0"), Decimal("24")),
    ("exercise", "min"): (Decimal("1"), Decimal("1440")),
    ("mood", "score"): (Decimal("1"), Decimal("10")),
    ("energy", "score"): (Decimal("1"), Decimal("10")),
    ("steps", "steps"): (Decimal("0"), Decimal("200000")),
}
# How a summary names each metric, in the reply's language.
LABELS = {
    "weight": gettext_lazy("weight"),
    "water": gettext_lazy("water"),
    "sleep": gettext_lazy("sleep"),
    "exercise": gettext_lazy("exercise"),
    "mood": gettext_lazy("mood"),
    "energy": gettext_lazy("energy"),
    "steps": gettext_lazy("steps"),
}


def metric_dict(entry: MetricEntry) -> dict[str, Any]:
    return {
        "id": entry.pk,
        "type": entry.type,
        "value": str(entry.value),
        "unit": entry.unit,
        "recorded_at": timezone.localtime(entry.recorded_at).isoformat(timespec="minutes"),
        "note": entry.note,
    }


def checked_value(metric_type: str, value: Any, unit: str) -> Decimal:
    try:
        number = Decimal(str(value)).quantize(Decimal("0.01"))
    except InvalidOperation:
        raise ToolError(f"{value!r} is not a number.") from None
    bounds = RANGES.get((metric_type, unit))
    if bounds is not None and not bounds[0] <= number <= bounds[1]:
        raise ToolError(f"A {metric_type} of {number} {unit} is outside the plausible range {bounds[0]}–{bounds[1]} {unit}.")
    if number < 0:
        raise ToolError("A metric value cannot be negative.")
    return number


def unit_for(metric_type: str, unit: str | None) -> str:
    return (unit or DEFAULT_UNITS[metric_type]).strip().lower()[:16]


def _describe(metric_type: str, value: Any, unit: str) -> str:
    return f"{LABELS.get(metric_type, metric_type)} {value} {unit}"


def _summarize_record(context: ToolContext, arguments: dict[str, Any]) -> str:
    unit = unit_for(arguments["type"], arguments.get("unit"))
    value = checked_value(arguments["type"], arguments["value"], unit)
    moment_from(arguments.get("recorded_at"))
    return _("Record %(metric)s") % {"metric": _describe(arguments["type"], value, unit)}


@tool(
    "record_metric",
    "Record a health metric the user reported (weight, water, sleep, exercise, mood 1-10, energy 1-10, steps). "
    "Requires the user's confirmation: offer to record, never record on your own.",
    {
        "type": "object",
        "properties": {
            "type": {"type": "string", "enum": TYPES},
            "value": {"type": "number", "description": "The measured value, in the unit given (or the default unit)."},
            "unit": {"type": "string", "maxLength": 16, "description": "Defaults: kg, ml, h, min, score, steps."},
            "recorded_at": {"type": "string", "description": "ISO date or date-time; defaults to now."},
            "note": {"type": "string", "maxLength": 500},
        },
        "required": ["type", "value"],
        "additionalProperties": False,
    },
    writes=True,
    summary=_summarize_record,
)
def record_metric(context: ToolContext, arguments: dict[str, Any]) -> dict[str, Any]:
    metric_type = arguments["type"]
    unit = unit_for(metric_type, arguments.get("unit"))
    entry = MetricEntry.objects.create(
        owner=context.user,
        type=metric_type,
        value=checked_value(metric_type, arguments["value"], unit),
        unit=unit,
        recorded_at=moment_from(arguments.get("recorded_at")),
        note=arguments.get("note", ""),
    )
    return {"status": "recorded", "metric": metric_dict(entry)}


def history_stats(entries: list[MetricEntry]) -> dict[str, Any]:
    """Count, average, min, max and the change from oldest to newest of one metric type."""
    if not entries:
        return {"count": 0}
    values = [entry.value for entry in entries]
    newest, oldest = entries[0], entries[-1]
    return {
        "count": len(values),
        "average": str((sum(values, Decimal(0)) / len(values)).quantize(Decimal("0.01"))),
        "min": str(min(values)),
        "max": str(max(values)),
        "latest": str(newest.value),
        "change": str(newest.value - oldest.value),
        "unit": newest.unit,
    }


@tool(
    "get_tracking_history",
    "The user's recorded metrics over the last days, with per-type statistics (average, min, max, change).",
    {
        "type": "object",
        "properties": {
            "type": {"type": "string", "enum": TYPES, "description": "One metric type; all types when absent."},
            "days": {"type": "integer", "minimum": 1, "maximum": 365, "default": 30},
            "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 30},
        },
        "additionalProperties": False,
    },
)
def get_tracking_history(context: ToolContext, arguments: dict[str, Any]) -> dict[str, Any]:
    days = arguments.get("days", 30)
    entries = MetricEntry.objects.filter(owner=context.user, recorded_at__gte=timezone.now() - timedelta(days=days))
    if arguments.get("type"):
        entries = entries.filter(type=arguments["type"])
    rows = list(entries.order_by("-recorded_at", "-id")[:1000])
    by_type: dict[str, list[MetricEntry]] = {}
    for entry in rows:
        by_type.setdefault(entry.type, []).append(entry)
    return {
        "days": days,
        "stats": {metric_type: history_stats(group) for metric_type, group in by_type.items()},
        "entries": [metric_dict(entry) for entry in rows[: arguments.get("limit", 30)]],
    }


def _summarize_update(context: ToolContext, arguments: dict[str, Any]) -> str:
    entry = owned(MetricEntry, context, arguments["metric_id"], "metric")
    if not any(key in arguments for key in ("value", "unit", "recorded_at", "note")):
        raise ToolError("Nothing to change: give a new value, unit, recorded_at or note.")
    unit = unit_for(entry.type, arguments.get("unit") or entry.unit)
    value = checked_value(entry.type, arguments.get("value", entry.value), unit)
    before = _describe(entry.type, entry.value, entry.unit)
    after = _describe(entry.type, value, unit)
    return _("Update entry #%(id)s: %(before)s → %(after)s") % {"id": entry.pk, "before": before, "after": after}


@tool(
    "update_metric",
    "Correct a metric entry the user recorded (value, unit, time or note), by its id from get_tracking_history. "
    "Requires the user's confirmation.",
    {
        "type": "object",
        "properties": {
            "metric_id": {"type": "integer", "minimum": 1},
            "value": {"type": "number"},
            "unit": {"type": "string", "maxLength": 16},
            "recorded_at": {"type": "string"},
            "note": {"type": "string", "maxLength": 500},
        },
        "required": ["metric_id"],
        "additionalProperties": False,
    },
    writes=True,
    summary=_summarize_update,
)
def update_metric(context: ToolContext, arguments: dict[str, Any]) -> dict[str, Any]:
    entry = owned(MetricEntry, context, arguments["metric_id"], "metric")
    entry.unit = unit_for(entry.type, arguments.get("unit") or entry.unit)
    entry.value = checked_value(entry.type, arguments.get("value", entry.value), entry.unit)
    if "recorded_at" in arguments:
        entry.recorded_at = moment_from(arguments["recorded_at"])
    if "note" in arguments:
        entry.note = arguments["note"]
    entry.save()
    return {"status": "updated", "metric": metric_dict(entry)}


def _summarize_delete(context: ToolContext, arguments: dict[str, Any]) -> str:
    entry = owned(MetricEntry, context, arguments["metric_id"], "metric")
    day = formatting.day(timezone.localtime(entry.recorded_at).date())
    what = _describe(entry.type, entry.value, entry.unit)
    return _("Delete entry #%(id)s (%(what)s, %(day)s)") % {"id": entry.pk, "what": what, "day": day}


@tool(
    "delete_metric",
    "Delete a metric entry by its id from get_tracking_history. Requires the user's confirmation.",
    {
        "type": "object",
        "properties": {"metric_id": {"type": "integer", "minimum": 1}},
        "required": ["metric_id"],
        "additionalProperties": False,
    },
    writes=True,
    summary=_summarize_delete,
)
def delete_metric(context: ToolContext, arguments: dict[str, Any]) -> dict[str, Any]:
    entry = owned(MetricEntry, context, arguments["metric_id"], "metric")
    deleted = metric_dict(entry)
    entry.delete()
    return {"status": "deleted", "metric": deleted}
