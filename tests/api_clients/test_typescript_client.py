"""A TypeScript client generated from today's schema (openapi-typescript + openapi-fetch) drives a conversation.

The types are generated fresh on every run, ``conversation.ts`` is type-checked
against them with tsc (strict) and run under Node, so a schema change that breaks a
TypeScript client breaks this test. The npm packages (exact versions in
``typescript/package-lock.json``) are installed by .ci/run, or by hand with
``npm ci --prefix tests/api_clients/typescript``. Run with ``python -m pytest -m clients``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from lifeassistant.models import Expense

from .conftest import PASSWORD, USERNAME

pytestmark = [pytest.mark.clients, pytest.mark.django_db(transaction=True)]

PROJECT = Path(__file__).with_name("typescript")
NODE_MODULES = PROJECT / "node_modules"


def node(*arguments: str, cwd: Path, env: dict[str, str] | None = None) -> str:
    executable = shutil.which("node")
    assert executable, "Node is not installed (apt-get install -y nodejs)"
    result = subprocess.run(
        [executable, *arguments], cwd=cwd, env=env, capture_output=True, text=True, timeout=180
    )
    assert result.returncode == 0, f"node {' '.join(arguments)}:\n{result.stdout}\n{result.stderr}"
    return result.stdout


@pytest.fixture
def typescript_client(schema_file: Path, tmp_path: Path) -> Path:
    """Generate the schema's types next to the conversation script and compile it (strict)."""
    assert NODE_MODULES.is_dir(), f"run: npm ci --prefix {PROJECT.relative_to(Path.cwd())}"
    work = tmp_path / "typescript"
    work.mkdir()
    for name in ("conversation.ts", "tsconfig.json", "package.json"):
        shutil.copy(PROJECT / name, work / name)
    (work / "node_modules").symlink_to(NODE_MODULES)
    node("node_modules/openapi-typescript/bin/cli.js", str(schema_file), "--output", "schema.d.ts", cwd=work)
    node("node_modules/typescript/bin/tsc", "--project", ".", cwd=work)
    return work / "out" / "conversation.js"


def test_a_generated_typescript_client_holds_a_conversation_and_confirms_an_action(
    typescript_client: Path, server: str, expense_proposal: str, user: Any
) -> None:
    env = {
        **os.environ,
        "API_BASE_URL": server,
        "API_USERNAME": USERNAME,
        "API_PASSWORD": PASSWORD,
        "MESSAGE": expense_proposal,
    }
    seen = json.loads(node(str(typescript_client), cwd=typescript_client.parent, env=env).strip().splitlines()[-1])

    assert seen["sent_status"] == 202
    assert seen["reply_status"] == "done"
    assert seen["reply_content"] == "Quer que eu registre a despesa de R$ 50,00 no mercado?"
    assert seen["proposal"] == {"tool": "create_expense", "status": "pending"}
    assert seen["accepted_status"] == "executed"
    assert seen["uploaded_status"] == 201
    assert seen["uploaded"] == {
        "file_name": "extrato.csv",
        "transactions": [["2026-11-27", "-12.50", "debit"], ["2026-11-26", "100.00", "credit"]],
    }
    assert seen["missing_status"] == 404
    assert seen["missing_detail"]
    [expense] = Expense.objects.all()
    assert (expense.owner, expense.description, str(expense.amount)) == (user, "mercado", "50.00")
