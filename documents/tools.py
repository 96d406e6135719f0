"""Tools over the user's documents: ``read_document`` reads one by name;
``import_statement`` (a finance tool) proposes a bank statement's debits as expenses."""

from __future__ import annotations

from typing import Any

from django.utils.translation import ngettext

from lifeassistant import formatting
from lifeassistant.models import Expense
from lifeassistant.tools.common import money
from lifeassistant.tools.finance import guess_category
from lifeassistant.tools.registry import ToolContext, ToolError, tool

from .models import ChatDocument
from .services import IMPORT_STATEMENT_TOOL, READ_DOCUMENT_TOOL, find_document
from .statements import ImportPlan, Transaction, plan_import

MAX_CHARS = 50_000


@tool(
    READ_DOCUMENT_TOOL,
    "Read the full content of a document listed in AVAILABLE_DOCUMENTS, by its file name.",
    {
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "The document's file name, e.g. user_context_1.txt"},
            "offset": {"type": "integer", "minimum": 0, "description": "Character offset for long documents."},
        },
        "required": ["name"],
        "additionalProperties": False,
    },
)
def read_document(context: ToolContext, arguments: dict[str, Any]) -> dict[str, Any]:
    document = find_document(user=context.user, conversation=context.conversation, name=arguments["name"])
    if document is None:
        raise ToolError(f"No document named {arguments['name']!r}.")
    offset = arguments.get("offset", 0)
    chunk = document.content[offset : offset + MAX_CHARS]
    return {
        "name": document.file_name,
        "mime_type": document.mime_type,
        "size_bytes": document.size_bytes,
        "offset": offset,
        "content": chunk,
        "truncated": offset + len(chunk) < len(document.content),
    }


def _statement(context: ToolContext, arguments: dict[str, Any]) -> tuple[ChatDocument, ImportPlan]:
    """The statement document named in ``arguments`` and what importing it would record now."""
    document = find_document(user=context.user, conversation=context.conversation, name=arguments["document"])
    if document is None:
        raise ToolError(f"No document named {arguments['document']!r}.")
    if not document.transactions:
        raise ToolError(
            f"{document.file_name} has no transactions: only an OFX file or a CSV statement "
            "(date, description and amount columns) can be imported."
        )
    transactions = [Transaction.from_json(row) for row in document.transactions]
    recorded = Expense.objects.filter(
        owner=context.user, spent_on__in={transaction.date for transaction in transactions}
    ).values_list("spent_on", "amount", "description")
    plan = plan_import(transactions, list(recorded))
    if not plan.expenses:
        raise ToolError(
            f"Nothing to import from {document.file_name}: {plan.duplicates} expenses are already recorded "
            f"and {plan.credits} lines are money in."
        )
    return document, plan


def _summarize_import(context: ToolContext, arguments: dict[str, Any]) -> str:
    document, plan = _statement(context, arguments)
    # The one confirmation card for the whole batch, in the reply's language.
    summary = ngettext(
        "Record %(count)s expense of %(total)s from the statement %(name)s",
        "Record %(count)s expenses of %(total)s from the statement %(name)s",
        len(plan.expenses),
    ) % {"count": len(plan.expenses), "total": formatting.money(plan.total), "name": document.file_name}
    if plan.duplicates:
        summary += ngettext(
            " (%(count)s already recorded, left out)", " (%(count)s already recorded, left out)", plan.duplicates
        ) % {"count": plan.duplicates}
    return summary


@tool(
    IMPORT_STATEMENT_TOOL,
    "Record the expenses of a bank statement the user sent (an OFX or CSV document listed in "
    "AVAILABLE_DOCUMENTS), all at once. Money in is left out, and so are expenses already recorded "
    "(same date, amount and description). Categories are guessed. Requires the user's confirmation: "
    "one for the whole statement.",
    {
        "type": "object",
        "properties": {
            "document": {"type": "string", "minLength": 1, "description": "The statement's file name, e.g. extrato.ofx"},
        },
        "required": ["document"],
        "additionalProperties": False,
    },
    writes=True,
    summary=_summarize_import,
)
def import_statement(context: ToolContext, arguments: dict[str, Any]) -> dict[str, Any]:
    # Read again when the user accepts: an expense recorded since the proposal is not doubled.
    document, plan = _statement(context, arguments)
    expenses = Expense.objects.bulk_create(
        Expense(
            owner=context.user,
            amount=-transaction.amount,
            description=transaction.description or document.file_name,
            category=guess_category(transaction.description),
            spent_on=transaction.date,
        )
        for transaction in plan.expenses
    )
    return {
        "status": "recorded",
        "document": document.file_name,
        "recorded": len(expenses),
        "total": money(plan.total),
        "duplicates_left_out": plan.duplicates,
        "credits_left_out": plan.credits,
    }
