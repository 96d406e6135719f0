"""Bank statements: transactions out of an OFX file or a statement-like CSV. Pure, no ORM.

Brazilian banks export OFX (1.x SGML or 2.x XML, read by ``ofxtools``) and CSV with
their own conventions: ``;`` between fields, amounts such as ``-1.234,56`` or
``R$ 1.234,56 D``, dates such as ``27/11/2026``. A CSV is a statement when its header
names a date, a description and an amount (or a debit and a credit) column.
"""

from __future__ import annotations

import io
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any, Literal

from lifeassistant import money

TransactionType = Literal["debit", "credit"]


@dataclass(frozen=True)
class Transaction:
    """One line of a statement: money out (``debit``, a negative amount) or in (``credit``)."""

    date: date
    description: str
    amount: Decimal
    type: TransactionType

    def as_json(self) -> dict[str, Any]:
        return {"date": self.date.isoformat(), "description": self.description, "amount": str(self.amount), "type": self.type}

    @classmethod
    def from_json(cls, row: dict[str, Any]) -> Transaction:
        return cls(date.fromisoformat(row["date"]), row["description"], Decimal(row["amount"]), row["type"])


class StatementError(ValueError):
    """The file claims to be a statement but cannot be read as one (the message says why)."""


def signed(amount: Decimal, description: str, on: date) -> Transaction:
    description = " ".join(description.split())[:200]
    return Transaction(on, description, amount, "debit" if amount < 0 else "credit")


# ------------------------------------------------------------------------------- OFX


def read_ofx(data: bytes) -> list[Transaction]:
    """Every transaction of every statement (bank or credit card) in an OFX file."""
    from ofxtools.Parser import OFXTree  # a heavy import, paid only when an OFX arrives

    tree = OFXTree()
    try:
        tree.parse(io.BytesIO(data))
        ofx = tree.convert()
        statements = ofx.statements
    except Exception as exc:  # ofxtools raises many kinds (ParseError, ValueError, KeyError...)
        raise StatementError(f"malformed OFX ({type(exc).__name__})") from None
    transactions = []
    for statement in statements:
        for row in statement.transactions:
            if row.dtposted is None or row.trnamt is None:
                continue
            description = row.name or row.memo or row.trntype or ""
            if row.name and row.memo and row.memo not in row.name:
                description = f"{row.name} {row.memo}"
            transactions.append(signed(Decimal(row.trnamt), description, row.dtposted.date()))
    return transactions


# ------------------------------------------------------------------------------- CSV

_DATE_WORDS = ("data", "date", "dt", "fecha", "data lancamento", "data do lancamento", "data movimento")
_DESCRIPTION_WORDS = (
    "descricao", "historico", "lancamento", "description", "memo", "detalhes", "estabelecimento",
    "descripcion", "concepto", "titulo",
)  # fmt: skip
_AMOUNT_WORDS = ("valor", "amount", "quantia", "valor r", "valor rs", "importe", "montante")
_DEBIT_WORDS = ("debito", "saida", "saidas", "debit", "retirada")
_CREDIT_WORDS = ("credito", "entrada", "entradas", "credit", "deposito")
_TYPE_WORDS = ("tipo", "type", "d c", "dc", "natureza")


def _folded(text: str) -> str:
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    return " ".join(re.sub(r"[^a-z0-9]+", " ", text).split())


def _column(header: Sequence[str], words: tuple[str, ...]) -> int | None:
    folded = [_folded(cell) for cell in header]
    for index, cell in enumerate(folded):  # an exact name wins over one that only starts with it
        if cell in words:
            return index
    for index, cell in enumerate(folded):
        if any(cell.startswith(word + " ") for word in words):
            return index
    return None


_STATEMENT_SIGN = re.compile(r"^\((?P<parenthesized>.*)\)$|^(?P<marked>.*?)\s*(?P<mark>[cCdD])$")


def parse_amount(text: str) -> Decimal:
    """An amount as banks write it: ``-1.234,56``, ``1234.56`` and ``R$ 1.234,56`` as
    signed, ``(1.234,56)`` and ``1.234,56 D`` negative, ``1.234,56 C`` positive."""
    raw = text.strip()
    negative = False
    wrapped = _STATEMENT_SIGN.match(raw)
    if wrapped and wrapped["parenthesized"] is not None:
        raw, negative = wrapped["parenthesized"], True
    elif wrapped and wrapped["marked"]:
        raw, negative = wrapped["marked"], wrapped["mark"] in "dD"
    try:
        amount = money.parse_amount(raw, allow_zero=True, allow_negative=True)
    except money.InvalidAmount:
        raise ValueError(f"not an amount: {text!r}") from None
    return -abs(amount) if negative else amount


_DAY_FIRST = re.compile(r"^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4}|\d{2})(?:[ T][\d:]+)?$")
_ISO = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:[ T][\d:.+Z-]+)?$")


def parse_date(text: str) -> date:
    """A date as Brazilian banks write it, day first (``27/11/2026``, ``27-11-26``,
    ``27.11.2026``, a time after it ignored), or ISO (``2026-11-27``)."""
    raw = text.strip()
    try:
        if match := _DAY_FIRST.match(raw):
            day, month, year = (int(part) for part in match.groups())
            return date(year + 2000 if year < 100 else year, month, day)
        if match := _ISO.match(raw):
            year, month, day = (int(part) for part in match.groups())
            return date(year, month, day)
    except ValueError:
        pass
    raise ValueError(f"not a date: {text!r}")


@dataclass(frozen=True)
class StatementColumns:
    date: int
    description: int
    amount: int | None
    debit: int | None
    credit: int | None
    type: int | None


def statement_columns(header: Sequence[str]) -> StatementColumns | None:
    """Where a statement's fields are, when ``header`` names them; None when it is no statement."""
    on, description = _column(header, _DATE_WORDS), _column(header, _DESCRIPTION_WORDS)
    amount, debit, credit = _column(header, _AMOUNT_WORDS), _column(header, _DEBIT_WORDS), _column(header, _CREDIT_WORDS)
    if on is None or description is None or (amount is None and (debit is None or credit is None)):
        return None
    found = StatementColumns(on, description, amount, debit, credit, _column(header, _TYPE_WORDS))
    return found


def csv_transactions(rows: Sequence[Sequence[str]]) -> list[Transaction]:
    """The transactions of a statement-like CSV (first row: the header); [] when it is not one.

    Lines that are not transactions (a balance line, a blank amount) are skipped; a
    statement of which no line reads is no statement.
    """
    if not rows:
        return []
    columns = statement_columns(rows[0])
    if columns is None:
        return []
    transactions = []
    for row in rows[1:]:
        try:
            transactions.append(_transaction(row, columns))
        except (ValueError, IndexError):
            continue
    return transactions


def _transaction(row: Sequence[str], columns: StatementColumns) -> Transaction:
    on = parse_date(row[columns.date])
    description = row[columns.description].strip()
    if not description or description.lower().startswith(("saldo", "balance")):
        raise ValueError("a balance line")
    if columns.amount is not None:
        amount = parse_amount(row[columns.amount])
        if columns.type is not None and _folded(row[columns.type])[:1] == "d":
            amount = -abs(amount)
        elif columns.type is not None and _folded(row[columns.type])[:1] == "c":
            amount = abs(amount)
    else:
        assert columns.debit is not None and columns.credit is not None
        debit, credit = row[columns.debit].strip(), row[columns.credit].strip()
        amount = -abs(parse_amount(debit)) if debit else abs(parse_amount(credit))
    if amount == 0:
        raise ValueError("no amount")
    return signed(amount, description, on)


# ---------------------------------------------------------------------------- import


@dataclass(frozen=True)
class ImportPlan:
    """What importing a statement as expenses would record, and what it leaves out."""

    expenses: tuple[Transaction, ...]  # the debits not recorded yet
    duplicates: int  # debits already recorded as expenses (same date, amount, description)
    credits: int  # money in: not an expense

    @property
    def total(self) -> Decimal:
        return sum((-expense.amount for expense in self.expenses), Decimal("0.00"))


def plan_import(transactions: Sequence[Transaction], recorded: Sequence[tuple[date, Decimal, str]]) -> ImportPlan:
    """The statement's debits as expenses, less those ``recorded`` already (date, positive
    amount, description; descriptions compared without case, accents or punctuation).

    Counted one for one: two coffees of R$ 5 on the same day with one recorded leave one to import.
    """
    already = Counter((on, Decimal(amount), _folded(description)) for on, amount, description in recorded)
    expenses: list[Transaction] = []
    duplicates = credits = 0
    for transaction in transactions:
        if transaction.type == "credit":
            credits += 1
            continue
        key = (transaction.date, -transaction.amount, _folded(transaction.description))
        if already[key] > 0:
            already[key] -= 1
            duplicates += 1
            continue
        expenses.append(transaction)
    return ImportPlan(tuple(expenses), duplicates, credits)
