"""Finance tools (finance skill): expenses, bills and debts, amounts in R$."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from django.db.models import Q, Sum
from django.utils import timezone
from django.utils.translation import gettext as _

from lifeassistant.models import Bill, Debt, Expense
from lifeassistant import formatting
from lifeassistant.money import quantize
from lifeassistant.text import normalize

from .common import DATE_SCHEMA, amount_from, brazilian_date, date_from, money, owned
from .registry import ToolContext, ToolError, tool

if TYPE_CHECKING:
    from django.contrib.auth.models import User

AMOUNT_SCHEMA = {
    "type": ["number", "string"],
    "description": "Amount in reais: 50, 50.5 or \"50,00\" / \"1.234,56\".",
}
# Category guessed from the description when the model gives none.
CATEGORY_WORDS = {
    "groceries": ("mercado", "supermercado", "feira", "hortifruti", "acougue", "padaria", "grocer"),
    "food": ("restaurante", "lanche", "almoco", "jantar", "ifood", "pizza", "cafe", "restaurant", "lunch", "dinner"),
    "transport": ("uber", "99", "taxi", "gasolina", "combustivel", "onibus", "metro", "estacionamento", "gas", "bus"),
    "health": ("farmacia", "remedio", "medico", "consulta", "exame", "dentista", "pharmacy"),
    "housing": ("aluguel", "condominio", "luz", "agua", "energia", "internet", "rent"),
    "leisure": ("cinema", "show", "viagem", "bar", "netflix", "spotify", "jogo", "travel"),
    "education": ("curso", "livro", "escola", "faculdade", "book", "course"),
    "clothing": ("roupa", "sapato", "tenis", "camisa", "clothes"),
}


def guess_category(description: str) -> str:
    words = set(normalize(description).replace(",", " ").split())
    for category, keywords in CATEGORY_WORDS.items():
        if words.intersection(keywords):
            return category
    return "other"


def expense_dict(expense: Expense) -> dict[str, Any]:
    return {
        "id": expense.pk,
        "amount": money(expense.amount),
        "description": expense.description,
        "category": expense.category,
        "date": expense.spent_on.isoformat(),
    }


def bill_dict(bill: Bill, today: date) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": bill.pk,
        "name": bill.name,
        "amount": money(bill.amount),
        "due_date": bill.due_date.isoformat(),
        "due_date_formatted": brazilian_date(bill.due_date),
        "status": bill.status,
        "category": bill.category,
    }
    if bill.status == Bill.Status.PENDING:
        row["days_until_due"] = (bill.due_date - today).days
        row["overdue"] = bill.due_date < today
    else:
        row["paid_on"] = bill.paid_at.isoformat() if bill.paid_at else None
    return row


def _expense_fields(arguments: dict[str, Any]) -> tuple[Decimal, str, str, date]:
    amount = amount_from(arguments["amount"])
    description = " ".join(arguments["description"].split())
    if not description:
        raise ToolError("Say what the expense was for (description).")
    category = (arguments.get("category") or "").strip().lower()[:32] or guess_category(description)
    spent_on = date_from(arguments.get("date"))
    if spent_on > timezone.localdate():
        raise ToolError("An expense cannot be in the future; for something still to pay, it is a bill.")
    return amount, description, category, spent_on


def _summarize_expense(context: ToolContext, arguments: dict[str, Any]) -> str:
    amount, description, _category, spent_on = _expense_fields(arguments)
    # Summaries are built under the reply's language (translation.override), which formatting follows.
    when = "" if spent_on == timezone.localdate() else f", {formatting.day(spent_on)}"
    return _("Record an expense of %(amount)s (%(description)s%(when)s)") % {
        "amount": formatting.money(amount),
        "description": description,
        "when": when,
    }


@tool(
    "create_expense",
    "Record an expense the user made. Requires the user's confirmation: offer to record it, "
    "stating the amount and what it was for.",
    {
        "type": "object",
        "properties": {
            "amount": AMOUNT_SCHEMA,
            "description": {"type": "string", "minLength": 1, "maxLength": 200, "description": "What it was for, e.g. 'mercado'."},
            "category": {
                "type": "string",
                "maxLength": 32,
                "description": "e.g. groceries, food, transport, health, housing, leisure, education, clothing, other. "
                "Guessed from the description when absent.",
            },
            "date": DATE_SCHEMA,
        },
        "required": ["amount", "description"],
        "additionalProperties": False,
    },
    writes=True,
    summary=_summarize_expense,
)
def create_expense(context: ToolContext, arguments: dict[str, Any]) -> dict[str, Any]:
    amount, description, category, spent_on = _expense_fields(arguments)
    expense = Expense.objects.create(
        owner=context.user, amount=amount, description=description, category=category, spent_on=spent_on
    )
    month_total = _spent(context.user, _month_start(spent_on), _next_month(spent_on))
    return {"status": "recorded", "expense": expense_dict(expense), "month_total": money(month_total)}


def _month_start(day: date) -> date:
    return day.replace(day=1)


def _next_month(day: date) -> date:
    return (day.replace(day=28) + timedelta(days=4)).replace(day=1)


def _spent(user: User, start: date, end: date) -> Decimal:
    total = Expense.objects.filter(owner=user, spent_on__gte=start, spent_on__lt=end).aggregate(total=Sum("amount"))["total"]
    return quantize(total or Decimal("0.00"))


def _month_from(value: str | None) -> date:
    if not value:
        return _month_start(timezone.localdate())
    try:
        year, month = (int(part) for part in value.split("-"))
        return date(year, month, 1)
    except ValueError:
        raise ToolError(f"{value!r} is not a month; use YYYY-MM.") from None


@tool(
    "get_finance_summary",
    "The user's finances for one month: total spent, spending by category, the change from the previous "
    "month, bills due and overdue, and what remains of their debts.",
    {
        "type": "object",
        "properties": {"month": {"type": "string", "pattern": r"^\d{4}-\d{2}$", "description": "YYYY-MM; defaults to this month."}},
        "additionalProperties": False,
    },
)
def get_finance_summary(context: ToolContext, arguments: dict[str, Any]) -> dict[str, Any]:
    user, today = context.user, timezone.localdate()
    start = _month_from(arguments.get("month"))
    end = _next_month(start)
    previous_start = _month_start(start - timedelta(days=1))
    expenses = Expense.objects.filter(owner=user, spent_on__gte=start, spent_on__lt=end)
    by_category = expenses.values("category").annotate(total=Sum("amount")).order_by("-total", "category")
    spent = _spent(user, start, end)
    previous = _spent(user, previous_start, start)
    # The month's bills, plus any older bill still unpaid (it is overdue now).
    bills = list(
        Bill.objects.filter(owner=user).filter(
            Q(due_date__gte=start, due_date__lt=end) | Q(status=Bill.Status.PENDING, due_date__lt=today)
        )[:500]
    )
    pending = [b for b in bills if b.status == Bill.Status.PENDING]
    overdue = [b for b in pending if b.due_date < today]
    paid = [b for b in bills if b.status == Bill.Status.PAID and start <= b.due_date < end]
    debts = list(Debt.objects.filter(owner=user))
    remaining = sum((d.remaining_amount for d in debts), Decimal("0.00"))
    return {
        "month": start.strftime("%Y-%m"),
        "spent": money(spent),
        "expense_count": expenses.count(),
        "by_category": [{"category": row["category"], "total": money(row["total"])} for row in by_category],
        "previous_month_spent": money(previous),
        "change_from_previous_month": money(spent - previous),
        "bills": {
            "pending_total": money(sum((b.amount for b in pending), Decimal("0.00"))),
            "pending_count": len(pending),
            "overdue_total": money(sum((b.amount for b in overdue), Decimal("0.00"))),
            "overdue_count": len(overdue),
            "paid_total": money(sum((b.amount for b in paid), Decimal("0.00"))),
        },
        "debts": {"count": len(debts), "remaining_total": money(remaining)},
    }


@tool(
    "get_pending_bills",
    "The user's unpaid bills: overdue ones and those due in the next days, soonest first, with totals.",
    {
        "type": "object",
        "properties": {"days_ahead": {"type": "integer", "minimum": 0, "maximum": 365, "default": 30}},
        "additionalProperties": False,
    },
)
def get_pending_bills(context: ToolContext, arguments: dict[str, Any]) -> dict[str, Any]:
    today = timezone.localdate()
    horizon = today + timedelta(days=arguments.get("days_ahead", 30))
    bills = list(
        Bill.objects.filter(owner=context.user, status=Bill.Status.PENDING, due_date__lte=horizon).order_by("due_date", "id")[:100]
    )
    overdue = [b for b in bills if b.due_date < today]
    return {
        "count": len(bills),
        "total": money(sum((b.amount for b in bills), Decimal("0.00"))),
        "overdue_count": len(overdue),
        "overdue_total": money(sum((b.amount for b in overdue), Decimal("0.00"))),
        "bills": [bill_dict(b, today) for b in bills],
    }


def _unpaid_bill(context: ToolContext, bill_id: int) -> Bill:
    bill = owned(Bill, context, bill_id, "bill")
    if bill.status == Bill.Status.PAID:
        raise ToolError(f"The bill {bill.name!r} was already paid on {bill.paid_at}.")
    return bill


def _summarize_paid(context: ToolContext, arguments: dict[str, Any]) -> str:
    bill = _unpaid_bill(context, arguments["bill_id"])
    date_from(arguments.get("paid_on"))
    return _("Mark the bill %(name)s (%(amount)s, due %(due)s) as paid") % {
        "name": bill.name,
        "amount": formatting.money(bill.amount),
        "due": formatting.day(bill.due_date),
    }


@tool(
    "mark_bill_paid",
    "Mark one of the user's bills as paid, by its id from get_pending_bills. Requires the user's confirmation.",
    {
        "type": "object",
        "properties": {"bill_id": {"type": "integer", "minimum": 1}, "paid_on": DATE_SCHEMA},
        "required": ["bill_id"],
        "additionalProperties": False,
    },
    writes=True,
    summary=_summarize_paid,
)
def mark_bill_paid(context: ToolContext, arguments: dict[str, Any]) -> dict[str, Any]:
    bill = _unpaid_bill(context, arguments["bill_id"])
    paid_on = date_from(arguments.get("paid_on"))
    updated = Bill.objects.filter(pk=bill.pk, status=Bill.Status.PENDING).update(status=Bill.Status.PAID, paid_at=paid_on)
    if not updated:
        raise ToolError(f"The bill {bill.name!r} was already paid.")
    bill.refresh_from_db()
    return {"status": "paid", "bill": bill_dict(bill, timezone.localdate())}


def debt_dict(debt: Debt) -> dict[str, Any]:
    remaining = debt.remaining_amount
    percent = (debt.paid_amount / debt.total_amount * 100).quantize(Decimal("0.1")) if debt.total_amount else Decimal("0")
    row: dict[str, Any] = {
        "id": debt.pk,
        "name": debt.name,
        "creditor": debt.creditor,
        "total": money(debt.total_amount),
        "paid": money(debt.paid_amount),
        "remaining": money(remaining),
        "percent_paid": str(percent),
        "paid_off": remaining == 0,
    }
    if debt.installments_total:
        row["installments"] = {
            "paid": debt.installments_paid,
            "total": debt.installments_total,
            "left": max(debt.installments_total - debt.installments_paid, 0),
            "amount": money((debt.total_amount / debt.installments_total).quantize(Decimal("0.01"))),
        }
    if debt.monthly_interest_rate is not None:
        row["monthly_interest_rate_percent"] = str(debt.monthly_interest_rate)
    return row


@tool(
    "get_debt_progress",
    "How far the user is in paying their debts: paid, remaining, percent and installments, per debt and in total.",
    {
        "type": "object",
        "properties": {"debt_id": {"type": "integer", "minimum": 1, "description": "One debt; all when absent."}},
        "additionalProperties": False,
    },
)
def get_debt_progress(context: ToolContext, arguments: dict[str, Any]) -> dict[str, Any]:
    if "debt_id" in arguments:
        debts = [owned(Debt, context, arguments["debt_id"], "debt")]
    else:
        debts = list(Debt.objects.filter(owner=context.user)[:100])
    total = sum((d.total_amount for d in debts), Decimal("0.00"))
    paid = sum((d.paid_amount for d in debts), Decimal("0.00"))
    return {
        "count": len(debts),
        "total": money(total),
        "paid": money(paid),
        "remaining": money(sum((d.remaining_amount for d in debts), Decimal("0.00"))),
        "debts": [debt_dict(d) for d in debts],
    }
