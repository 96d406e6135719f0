"""analyze_context (base tool): connections across the user's own data, inferred without a model.

It gathers, for a window of days, the user's metrics, spending, bills, debts, people and
remembered facts related to a topic, and applies a few explicit rules (short sleep with
low mood, overdue bills with stress, exercise and mood...) to name connections.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import date, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from django.db.models import Sum
from django.utils import timezone

from lifeassistant.models import Bill, Debt, Expense, MetricEntry, Person
from lifeassistant.money import format_brl, quantize
from lifeassistant.text import normalize

from .common import money, words_of
from .knowledge import knowledge_dict, matching_knowledge
from .people import person_dict
from .registry import ToolContext, tool

if TYPE_CHECKING:
    from django.contrib.auth.models import User

ANALYSIS_AREAS = ["health", "finance", "relationships", "knowledge"]
STRESS_WORDS = ("stress", "estress", "ansied", "ansios", "preocup", "cansad", "exaust", "burnout", "anxi", "worr", "sono", "sleep")
SHORT_SLEEP_HOURS = Decimal("6.5")
LOW_SCORE = Decimal("5")


def _average(values: list[Decimal]) -> Decimal | None:
    return (sum(values, Decimal(0)) / len(values)).quantize(Decimal("0.1")) if values else None


def _daily(entries: list[MetricEntry], metric_type: str) -> dict[date, Decimal]:
    """One value per day for a metric (the day's average)."""
    per_day: dict[date, list[Decimal]] = defaultdict(list)
    for entry in entries:
        if entry.type == metric_type:
            per_day[timezone.localtime(entry.recorded_at).date()].append(entry.value)
    return {day: sum(values, Decimal(0)) / len(values) for day, values in per_day.items()}


def health_findings(entries: list[MetricEntry]) -> tuple[dict[str, Any], list[str], list[str]]:
    """Per-type averages, plain facts, and connections between metrics."""
    facts: list[str] = []
    connections: list[str] = []
    summary: dict[str, Any] = {}
    for metric_type in sorted({e.type for e in entries}):
        values = [e.value for e in entries if e.type == metric_type]
        summary[metric_type] = {"count": len(values), "average": str(_average(values))}
    sleep, mood, energy, exercise = (_daily(entries, t) for t in ("sleep", "mood", "energy", "exercise"))
    sleep_avg = _average(list(sleep.values()))
    mood_avg = _average(list(mood.values()))
    energy_avg = _average(list(energy.values()))
    if sleep_avg is not None and sleep_avg < SHORT_SLEEP_HOURS:
        facts.append(f"Average sleep is {sleep_avg} h, below {SHORT_SLEEP_HOURS} h.")
        low = [name for name, avg in (("mood", mood_avg), ("energy", energy_avg)) if avg is not None and avg <= LOW_SCORE]
        if low:
            connections.append(f"Short sleep comes with low {' and '.join(low)} in the same period.")
    short_days = [day for day, hours in sleep.items() if hours < SHORT_SLEEP_HOURS]
    rested_days = [day for day, hours in sleep.items() if hours >= SHORT_SLEEP_HOURS]
    for name, series in (("mood", mood), ("energy", energy)):
        after_short = _average([series[d] for d in short_days if d in series])
        after_rest = _average([series[d] for d in rested_days if d in series])
        if after_short is not None and after_rest is not None and after_rest - after_short >= 1:
            connections.append(f"On days with short sleep, {name} averages {after_short} against {after_rest} on rested days.")
    with_exercise = _average([v for d, v in mood.items() if d in exercise])
    without_exercise = _average([v for d, v in mood.items() if d not in exercise])
    if with_exercise is not None and without_exercise is not None and with_exercise - without_exercise >= 1:
        connections.append(f"Mood averages {with_exercise} on days with exercise against {without_exercise} without.")
    return summary, facts, connections


def finance_findings(user: User, since: date, days: int) -> tuple[dict[str, Any], list[str]]:
    today = timezone.localdate()
    spent = quantize(Expense.objects.filter(owner=user, spent_on__gte=since).aggregate(total=Sum("amount"))["total"] or Decimal("0"))
    before = quantize(
        Expense.objects.filter(owner=user, spent_on__gte=since - timedelta(days=days), spent_on__lt=since).aggregate(
            total=Sum("amount")
        )["total"]
        or Decimal("0")
    )
    top = list(
        Expense.objects.filter(owner=user, spent_on__gte=since)
        .values("category")
        .annotate(total=Sum("amount"))
        .order_by("-total")[:3]
    )
    overdue = list(Bill.objects.filter(owner=user, status=Bill.Status.PENDING, due_date__lt=today)[:50])
    debts = list(Debt.objects.filter(owner=user)[:50])
    remaining = sum((d.remaining_amount for d in debts), Decimal("0"))
    facts = [f"Spent {format_brl(spent)} in the last {days} days."]
    if before and spent > before * Decimal("1.2"):
        facts.append(f"Spending is up {((spent / before - 1) * 100).quantize(Decimal('1'))}% on the previous {days} days ({format_brl(before)}).")
    if overdue:
        facts.append(f"{len(overdue)} overdue bill(s), {format_brl(sum((b.amount for b in overdue), Decimal('0')))} in total.")
    if remaining:
        facts.append(f"{format_brl(remaining)} of debt remaining.")
    summary = {
        "spent": money(spent),
        "previous_period_spent": money(before),
        "top_categories": [{"category": row["category"], "total": format_brl(row["total"])} for row in top],
        "overdue_bills": len(overdue),
        "debt_remaining": money(remaining),
    }
    return summary, facts


@tool(
    "analyze_context",
    "Look for connections across the user's own data (sleep, mood, energy, exercise, spending, bills, debts, "
    "people, remembered facts) about a topic, to ground advice in patterns rather than guesses.",
    {
        "type": "object",
        "properties": {
            "topic": {"type": "string", "minLength": 1, "maxLength": 300, "description": "What the user is talking about."},
            "areas": {"type": "array", "items": {"type": "string", "enum": ANALYSIS_AREAS}, "uniqueItems": True},
            "days": {"type": "integer", "minimum": 1, "maximum": 365, "default": 30},
        },
        "required": ["topic"],
        "additionalProperties": False,
    },
)
def analyze_context(context: ToolContext, arguments: dict[str, Any]) -> dict[str, Any]:
    user, topic = context.user, arguments["topic"]
    areas = set(arguments.get("areas") or ANALYSIS_AREAS)
    days = arguments.get("days", 30)
    since = timezone.localdate() - timedelta(days=days)
    facts: list[str] = []
    connections: list[str] = []
    data: dict[str, Any] = {}
    stressed = any(word in normalize(topic) for word in STRESS_WORDS)
    low_mood = False
    if "health" in areas:
        entries = list(MetricEntry.objects.filter(owner=user, recorded_at__date__gte=since).order_by("-recorded_at")[:1000])
        data["health"], health_facts, health_links = health_findings(entries)
        facts += health_facts
        connections += health_links
        moods = [e.value for e in entries if e.type == "mood"]
        low_mood = bool(moods) and (_average(moods) or Decimal(10)) <= LOW_SCORE
    if "finance" in areas:
        data["finance"], finance_facts = finance_findings(user, since, days)
        facts += finance_facts
        money_pressure = data["finance"]["overdue_bills"] or Decimal(data["finance"]["debt_remaining"]["value"])
        if money_pressure and (stressed or low_mood):
            connections.append("Financial pressure (overdue bills or debts) may be weighing on how the user feels.")
    if "relationships" in areas:
        words = words_of(topic)
        people = [p for p in Person.objects.filter(owner=user)[:1000] if any(w in normalize(f"{p.name} {p.relationship}") for w in words)]
        data["people"] = [person_dict(p) for p in people[:5]]
        facts += [f"{p.name} ({p.relationship or 'person'}) is mentioned in this topic." for p in people[:5]]
    if "knowledge" in areas:
        known = matching_knowledge(user, topic, limit=5) if words_of(topic) else []
        data["knowledge"] = [knowledge_dict(item) for item in known]
        facts += [f"Known: {item.content}" for item in known]
    return {"topic": topic, "days": days, "facts": facts, "connections": connections, "data": data}
