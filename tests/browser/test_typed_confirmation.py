"""Confirming by typing updates the card, even after a question in between (docs/api.md,
"Writes the model proposes"): the proposal is not stranded, and the card says what became of it."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from lifeassistant.models import Expense
from tests.browser.conftest import (
    DESKTOP_EN,
    PHONE_PT,
    REPLY_TIMEOUT_MS,
    Client,
    clients,
    last_reply,
    send,
    shot,
    sign_in,
    start_conversation,
    text,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _answered(page: Page, replies: int) -> None:
    """The ``replies``-th reply is on the page and done (not the previous one, still the last for a moment)."""
    expect(page.locator("[data-testid=message][data-role=assistant]")).to_have_count(replies, timeout=REPLY_TIMEOUT_MS)
    expect(last_reply(page)).to_have_attribute("data-status", "done", timeout=REPLY_TIMEOUT_MS)


@clients([PHONE_PT, DESKTOP_EN])
def test_a_typed_yes_after_a_question_confirms_the_waiting_card(
    page: Page, base_url: str, user: Any, client: Client, scripted_llm: Any, shipped_skills: Any
) -> None:
    sign_in(page, base_url)
    start_conversation(page)
    scripted_llm.reply_tool_call("create_expense", {"amount": 50, "description": "mercado"})
    scripted_llm.reply_text(text(client, "Shall I record R$ 50.00?", "Registro R$ 50,00?"))
    send(page, text(client, "I spent 50 at the market", "Gastei 50 reais no mercado"))
    _answered(page, 1)
    card = page.get_by_test_id("action-card").first
    expect(card).to_have_attribute("data-status", "pending")

    # A question in between: its reply proposes nothing, and the card stays answerable.
    scripted_llm.reply_text(text(client, "You spent R$ 320.00 this month.", "Você gastou R$ 320,00 este mês."))
    send(page, text(client, "how much did I spend this month?", "quanto gastei este mês?"))
    _answered(page, 2)
    expect(card.get_by_role("button")).not_to_have_count(0)

    scripted_llm.reply_text(text(client, "Done, recorded.", "Pronto, registrei."))
    send(page, text(client, "yes, add that", "sim, pode registrar"))
    _answered(page, 3)

    expect(card).to_have_attribute("data-status", "accepted")
    expect(card).to_contain_text(text(client, "Done", "Feito"))
    expect(card.get_by_role("button")).to_have_count(0)
    assert Expense.objects.filter(owner=user).count() == 1
    shot(page, "typed-confirmation")
