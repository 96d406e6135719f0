"""Tool-call success rates per tool and per skill (docs/specification.md, skills architecture §13, phase 4).

A *run* is a tool that actually executed (or was refused for bad arguments): reading
calls, and writing calls once the user confirmed them. A writing call the model made is
first *proposed*; proposals are counted apart, with what the user decided. A call made
while several skills were active counts for each of them. Computed in Python over a
bounded window, so it works the same on SQLite and PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.utils import timezone

from .actions import is_proposal
from .models import PendingAction, ToolCall

MAX_ROWS = 100_000
NO_SKILL = "(none)"


@dataclass
class ToolStats:
    name: str
    runs: int = 0
    ok: int = 0
    proposed: int = 0
    confirmed: int = 0
    rejected: int = 0
    expired: int = 0

    @property
    def errors(self) -> int:
        return self.runs - self.ok

    @property
    def success_rate(self) -> float | None:
        """Share of runs that succeeded, 0–100; None without runs."""
        return round(100 * self.ok / self.runs, 1) if self.runs else None


@dataclass(frozen=True)
class Event:
    """One fact about a tool: ``kind`` is 'run' (with ``ok``), or an action status."""

    tool: str
    skills: tuple[str, ...]
    kind: str
    ok: bool = False


def tally(events: Iterable[Event]) -> tuple[list[ToolStats], list[ToolStats]]:
    """Per-tool and per-skill statistics, most used first."""
    by_tool: dict[str, ToolStats] = {}
    by_skill: dict[str, ToolStats] = {}
    for event in events:
        targets = [by_tool.setdefault(event.tool, ToolStats(event.tool))]
        targets += [by_skill.setdefault(skill, ToolStats(skill)) for skill in (event.skills or (NO_SKILL,))]
        for stats in targets:
            _count(stats, event)
    order = lambda s: (-(s.runs + s.proposed), s.name)  # noqa: E731
    return sorted(by_tool.values(), key=order), sorted(by_skill.values(), key=order)


def _count(stats: ToolStats, event: Event) -> None:
    if event.kind == "run":
        stats.runs += 1
        stats.ok += int(event.ok)
        return
    stats.proposed += 1
    if event.kind in ("executed", "failed"):
        stats.runs += 1
        stats.ok += int(event.kind == "executed")
        stats.confirmed += 1
    elif event.kind == "rejected":
        stats.rejected += 1
    elif event.kind == "expired":
        stats.expired += 1


def recent_events(days: int) -> list[Event]:
    """Events of the last ``days`` days from the stored tool calls and pending actions."""
    since = timezone.now() - timedelta(days=days)
    events: list[Event] = []
    calls = (
        ToolCall.objects.filter(created_at__gte=since)
        .exclude(call_id__startswith="action_")  # executions of confirmed actions: counted below
        .values_list("tool", "ok", "result", "message__active_skills")
        .order_by("-id")[:MAX_ROWS]
    )
    for tool, ok, result, skills in calls.iterator():
        if ok and is_proposal(result):
            continue  # the proposal itself: counted with its action below
        events.append(Event(tool, _skills(skills), "run", ok))
    actions = (
        PendingAction.objects.filter(created_at__gte=since)
        .values_list("tool", "status", "message__active_skills")
        .order_by("-id")[:MAX_ROWS]
    )
    for tool, status, skills in actions.iterator():
        events.append(Event(tool, _skills(skills), status))
    return events


def _skills(value: Any) -> tuple[str, ...]:
    return tuple(str(skill) for skill in value) if isinstance(value, list) else ()
