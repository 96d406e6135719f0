"""A Python client generated from today's schema (openapi-python-client) drives a conversation.

The client is generated fresh into a temporary folder on every run and never
committed, so a schema change that breaks generated clients breaks this test.
Run with ``python -m pytest -m clients``.
"""

from __future__ import annotations

import importlib
import io
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from lifeassistant.models import Expense
from tests.file_fixtures import latin1_csv

from .conftest import PASSWORD, USERNAME

pytestmark = [pytest.mark.clients, pytest.mark.django_db(transaction=True)]

GENERATOR = Path(sys.executable).with_name("openapi-python-client")
PACKAGE = "lifeassistant_client"
REPLY_TIMEOUT_SECONDS = 60


@pytest.fixture
def client_package(schema_file: Path, tmp_path: Path) -> Iterator[ModuleType]:
    """Generate the client package from the served schema and import it."""
    config = tmp_path / "openapi-python-client.yml"
    config.write_text(f"package_name_override: {PACKAGE}\npost_hooks: []\n")
    generated = subprocess.run(
        [str(GENERATOR), "generate", "--path", str(schema_file), "--config", str(config),
         "--output-path", str(tmp_path / PACKAGE), "--meta", "none"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    output = generated.stdout + generated.stderr
    assert generated.returncode == 0, output
    assert "Warning" not in output and "Error" not in output, output
    sys.path.insert(0, str(tmp_path))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(tmp_path))
        for name in [name for name in sys.modules if name == PACKAGE or name.startswith(f"{PACKAGE}.")]:
            del sys.modules[name]


def api(name: str) -> Any:
    """One generated operation module, e.g. ``api("conversations.create_conversation")``."""
    return importlib.import_module(f"{PACKAGE}.api.{name}")


def test_a_generated_python_client_holds_a_conversation_and_confirms_an_action(
    client_package: ModuleType, server: str, expense_proposal: str, user: Any
) -> None:
    models = importlib.import_module(f"{PACKAGE}.models")
    anonymous = client_package.Client(base_url=server, raise_on_unexpected_status=True)

    token = api("auth.create_auth_token").sync(
        client=anonymous, body=models.CredentialsRequest(username=USERNAME, password=PASSWORD)
    )
    assert isinstance(token, models.Token)
    client = client_package.AuthenticatedClient(
        base_url=server, token=token.token, prefix="Token", raise_on_unexpected_status=True
    )

    conversation = api("conversations.create_conversation").sync(
        client=client, body=models.ConversationRequest(title="Mercado")
    )
    assert isinstance(conversation, models.Conversation)

    sent = api("conversations.create_conversation_message").sync_detailed(
        conversation_id=conversation.id,
        client=client,
        body=models.MessageCreateRequest(content=expense_proposal),
        idempotency_key="mobile-1",
    )
    assert sent.status_code == 202
    assert isinstance(sent.parsed, models.Submission)
    assert sent.parsed.user_message.content == expense_proposal

    reply = poll_until_finished(client, sent.parsed.assistant_message.id, models)
    assert reply.status == models.MessageStatusEnum.DONE
    assert reply.content == "Quer que eu registre a despesa de R$ 50,00 no mercado?"
    [proposal] = reply.pending_actions
    assert proposal.tool == "create_expense"
    assert proposal.status == models.PendingActionStatusEnum.PENDING
    assert not Expense.objects.exists()

    accepted = api("actions.accept_action").sync(action_id=proposal.id, client=client)
    assert isinstance(accepted, models.PendingAction)
    assert accepted.status == models.PendingActionStatusEnum.EXECUTED
    [expense] = Expense.objects.all()
    assert (expense.owner, expense.description, str(expense.amount)) == (user, "mercado", "50.00")

    # A bank statement sent as a file (the one multipart operation) becomes a document with transactions.
    types = importlib.import_module(f"{PACKAGE}.types")
    statement = types.File(payload=io.BytesIO(latin1_csv()), file_name="extrato.csv", mime_type="text/csv")
    uploaded = api("conversations.create_conversation_file").sync_detailed(
        conversation_id=conversation.id, client=client, body=models.FileUploadRequest(file=statement)
    )
    assert uploaded.status_code == 201
    [document] = uploaded.parsed.documents
    assert (document.file_name, document.mime_type, len(document.transactions)) == ("extrato.csv", "text/csv", 3)
    detail = api("documents.get_document").sync(document_id=document.id, client=client)
    assert "Pão de Açúcar" in detail.content
    assert detail.transactions[0].amount == "-1234.56"
    refused = api("conversations.create_conversation_file").sync_detailed(
        conversation_id=conversation.id, client=client,
        body=models.FileUploadRequest(file=types.File(payload=io.BytesIO(b"MZ\x90\x00"), file_name="x.csv")),
    )  # fmt: skip
    assert refused.status_code == 415
    assert isinstance(refused.parsed, models.Error)

    # Someone else's conversation, or none: the documented 404, parsed into the error model.
    missing = api("conversations.get_conversation").sync_detailed(conversation_id=conversation.id + 1000, client=client)
    assert missing.status_code == 404
    assert isinstance(missing.parsed, models.Error)
    assert missing.parsed.detail


def poll_until_finished(client: Any, message_id: int, models: ModuleType) -> Any:
    deadline = time.monotonic() + REPLY_TIMEOUT_SECONDS
    while True:
        message = api("messages.get_message").sync(message_id=message_id, client=client)
        assert isinstance(message, models.Message)
        if message.status not in (models.MessageStatusEnum.PENDING, models.MessageStatusEnum.RUNNING):
            return message
        assert time.monotonic() < deadline, f"the reply is still {message.status}"
        time.sleep(0.2)
