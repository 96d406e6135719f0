"""Skill usage over a period: which skills answered, why, and the fixed tokens saved.

``summarize`` is pure: it reads the ledger fields of assistant messages (active skills,
reason, fixed tokens and the monolithic figure) and aggregates them in Python, so it
behaves the same on SQLite and PostgreSQL. The admin page that feeds it a bounded query is chat's (the
ledger is stored on chat's messages).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Any
REASON_HELP = {
    "trigger": "its trigger patterns fired on the message",
    "explicit": "the user asked for it with /name",
    "inertia": "nothing fired; the skills of a recent message stay active",
    "router": "nothing fired; the semantic router chose it",
    "fallback": "no pattern fired, so the fallback skill answers",
    "disabled": "skills are switched off (SKILLS_ENABLED=false): the monolithic setup answers",
}

PERIODS: dict[str, timedelta] = {
    "24h": timedelta(hours=24),
    "7d": timedelta(days=7),
    "30d": timedelta(days=30),
}


@dataclass(frozen=True)
class LedgerRow:
    """The ledger fields of one assistant message."""

    active_skills: tuple[str, ...]
    reason: str
    fixed_tokens: int | None
    monolithic_fixed_tokens: int | None


@dataclass(frozen=True)
class Share:
    """How many messages had a skill (or a reason), and their share of all messages."""

    name: str
    count: int
    percent: float


@dataclass(frozen=True)
class UsageSummary:
    """The aggregated ledger of a period.

    ``per_skill`` counts a message once for each of its active skills, so its counts may
    add up to more than ``messages``. Token figures only use messages that recorded both
    counts (``measured``); ``saving_percent`` is 1 - average fixed / average monolithic.
    """

    messages: int
    per_skill: tuple[Share, ...]
    per_reason: tuple[Share, ...]
    measured: int
    average_fixed_tokens: float | None
    average_monolithic_tokens: float | None
    saving_percent: float | None
    truncated: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "messages": self.messages,
            "per_skill": {share.name: share.count for share in self.per_skill},
            "per_reason": {share.name: share.count for share in self.per_reason},
            "measured": self.measured,
            "average_fixed_tokens": self.average_fixed_tokens,
            "average_monolithic_tokens": self.average_monolithic_tokens,
            "saving_percent": self.saving_percent,
            "truncated": self.truncated,
        }


def summarize(rows: Iterable[LedgerRow], *, truncated: bool = False) -> UsageSummary:
    """Aggregate ledger rows: counts per skill and per reason, average tokens and saving."""
    skills: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    messages = measured = fixed_total = monolithic_total = 0
    for row in rows:
        messages += 1
        skills.update(dict.fromkeys(row.active_skills, 1))
        reasons[row.reason or "unknown"] += 1
        if row.fixed_tokens is not None and row.monolithic_fixed_tokens is not None:
            measured += 1
            fixed_total += row.fixed_tokens
            monolithic_total += row.monolithic_fixed_tokens
    average_fixed = fixed_total / measured if measured else None
    average_monolithic = monolithic_total / measured if measured else None
    saving = (
        100.0 * (1 - fixed_total / monolithic_total) if measured and monolithic_total else None
    )
    return UsageSummary(
        messages=messages,
        per_skill=_shares(skills, messages),
        per_reason=_shares(reasons, messages),
        measured=measured,
        average_fixed_tokens=average_fixed,
        average_monolithic_tokens=average_monolithic,
        saving_percent=saving,
        truncated=truncated,
    )


def _shares(counts: Counter[str], total: int) -> tuple[Share, ...]:
    ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return tuple(
        Share(name, count, 100.0 * count / total if total else 0.0) for name, count in ordered
    )


def period_bounds(
    period: str,
    *,
    now: datetime,
    start: date | None = None,
    end: date | None = None,
    tz: Any = None,
) -> tuple[datetime, datetime]:
    """Return the [from, to) instants of a named period, or of custom inclusive dates.

    Custom dates are whole days in ``tz`` (``now``'s timezone when not given).
    """
    if period in PERIODS:
        return now - PERIODS[period], now
    if period != "custom" or start is None or end is None:
        raise ValueError(f"unknown period {period!r}")
    zone = tz or now.tzinfo
    return (
        datetime.combine(start, time.min, tzinfo=zone),
        datetime.combine(end + timedelta(days=1), time.min, tzinfo=zone),
    )
