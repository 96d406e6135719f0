"""What the chat shows while a tool runs, in plain words and the reply's language.

Sent with each ``tool_started`` event (``label``), so a client needs no list of tool
names of its own; a tool not listed here (a skill added later) gets the generic phrase.
"""

from __future__ import annotations

from django.utils.translation import gettext, gettext_noop

_LABELS = {
    "create_expense": gettext_noop("Recording the expense…"),
    "get_finance_summary": gettext_noop("Adding up your finances…"),
    "get_pending_bills": gettext_noop("Checking your bills…"),
    "mark_bill_paid": gettext_noop("Marking the bill as paid…"),
    "get_debt_progress": gettext_noop("Checking your debts…"),
    "add_knowledge": gettext_noop("Saving a note…"),
    "search_knowledge": gettext_noop("Searching your notes…"),
    "get_person": gettext_noop("Looking up the person…"),
    "update_person": gettext_noop("Updating the person's details…"),
    "record_metric": gettext_noop("Recording the measurement…"),
    "update_metric": gettext_noop("Updating the measurement…"),
    "delete_metric": gettext_noop("Deleting the measurement…"),
    "get_tracking_history": gettext_noop("Reading your history…"),
    "analyze_context": gettext_noop("Analysing your data…"),
    "conversation_context": gettext_noop("Recalling the conversation…"),
}


def tool_label(name: str) -> str:
    """``name``'s phrase in the active language (the worker activates the reply's)."""
    return gettext(_LABELS.get(name, gettext_noop("Working on it…")))
