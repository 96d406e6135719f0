"""import_statement: a bank statement's debits proposed as expenses with one confirmation."""

from __future__ import annotations

import json
from datetime import date
from decimal import Decimal
from typing import Any

import pytest

from chat.actions import accept, propose
from chat.models import Conversation, Message, PendingAction
from chat.uploads import upload_file
from lifeassistant.models import Expense
from lifeassistant.tools import ToolContext
from tests.file_fixtures import latin1_csv, ofx_statement

pytestmark = pytest.mark.django_db


@pytest.fixture
def conversation(user: Any) -> Conversation:
    return Conversation.objects.create(owner=user)


def reply_in(conversation: Conversation) -> Message:
    asked = Message.objects.create(conversation=conversation, role="user", content="Importa o extrato")
    return Message.objects.create(conversation=conversation, role="assistant", reply_to=asked, content="Posso?")


def propose_import(conversation: Conversation, document: str) -> Any:
    reply = reply_in(conversation)
    context = ToolContext(conversation.owner, conversation, reply)
    return propose(
        message=reply, context=context, call_id="call_1", name="import_statement",
        arguments=json.dumps({"document": document}),
    )  # fmt: skip


def test_a_statement_is_proposed_as_one_action_and_nothing_is_written(conversation):
    upload_file(conversation=conversation, name="extrato.ofx", data=ofx_statement())

    outcome = propose_import(conversation, "extrato.ofx")

    assert outcome.ok, outcome.error
    [action] = PendingAction.objects.all()
    assert action.summary == "Record 2 expenses of R$153.45 from the statement extrato.ofx"
    assert not Expense.objects.exists()


def test_accepting_writes_every_debit_once_with_guessed_categories(conversation, user):
    upload_file(conversation=conversation, name="extrato.csv", data=latin1_csv())
    action = PendingAction.objects.get(pk=propose_import(conversation, "extrato.csv").result["action_id"])

    ran = accept(action)

    assert ran.status == "executed"
    assert ran.result["recorded"] == 2 and ran.result["credits_left_out"] == 1
    rows = sorted(Expense.objects.values_list("spent_on", "amount", "description", "category", "owner"))
    assert rows == [
        (date(2026, 11, 26), Decimal("45.90"), "Farmácia São João", "health", user.pk),
        (date(2026, 11, 27), Decimal("1234.56"), "Pão de Açúcar", "other", user.pk),
    ]


def test_expenses_already_recorded_are_left_out_and_counted(conversation, user):
    Expense.objects.create(owner=user, amount=Decimal("30.00"), description="Uber *trip", spent_on=date(2026, 11, 10))
    upload_file(conversation=conversation, name="extrato.ofx", data=ofx_statement())

    outcome = propose_import(conversation, "extrato.ofx")
    action = PendingAction.objects.get(pk=outcome.result["action_id"])
    assert action.summary == "Record 1 expense of R$123.45 from the statement extrato.ofx (1 already recorded, left out)"
    ran = accept(action)

    assert (ran.result["recorded"], ran.result["duplicates_left_out"]) == (1, 1)
    assert Expense.objects.count() == 2


def test_a_statement_imported_already_proposes_nothing(conversation, user):
    upload_file(conversation=conversation, name="extrato.ofx", data=ofx_statement())
    accept(PendingAction.objects.get(pk=propose_import(conversation, "extrato.ofx").result["action_id"]))

    again = propose_import(conversation, "extrato.ofx")

    assert not again.ok
    assert "Nothing to import" in again.error
    assert Expense.objects.count() == 2


def test_a_document_without_transactions_cannot_be_imported(conversation):
    upload_file(conversation=conversation, name="notas.txt", data=b"comprar pao")

    outcome = propose_import(conversation, "notas.txt")

    assert not outcome.ok and "no transactions" in outcome.error
    assert not PendingAction.objects.exists()


def test_someone_elses_statement_is_unknown(conversation, other_user):
    theirs = Conversation.objects.create(owner=other_user)
    upload_file(conversation=theirs, name="extrato.ofx", data=ofx_statement())

    outcome = propose_import(conversation, "extrato.ofx")

    assert not outcome.ok and "No document named" in outcome.error
