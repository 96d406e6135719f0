"""Type at once: the home page is a new conversation whose message box is ready, and the
first message creates the conversation (no "start" button first). Drafts go at sign-out."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import (
    EVERY_CLIENT,
    OTHER_TWO_CLIENTS,
    REPLY_TIMEOUT_MS,
    Client,
    assert_accessible,
    clients,
    last_reply,
    shot,
    sign_in,
    text,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@clients(EVERY_CLIENT)
def test_the_home_pages_message_box_is_ready_and_the_first_message_creates_the_conversation(
    page: Page, base_url: str, user: Any, client: Client
) -> None:
    from chat.models import Conversation

    sign_in(page, base_url)
    composer = page.get_by_test_id("composer")

    expect(composer).to_be_visible()
    expect(page.locator("#messages")).to_have_attribute(
        "data-welcome", text(client, "Hello! Write below to start a conversation.", "Olá! Escreva abaixo para começar uma conversa.")
    )
    expect(page.get_by_role("button", name=re.compile("Start a conversation|Começar uma conversa"))).to_have_count(0)
    assert_accessible(page, "home")
    shot(page, "home")
    if client.phone:  # focus would open the keyboard over the welcome: a tap does
        composer.tap()
        composer.fill("Quanto gastei no mercado?")
        page.get_by_test_id("send").tap()
    else:  # typed straight away, with no click first
        expect(composer).to_be_focused()
        page.keyboard.type("Quanto gastei no mercado?")
        page.keyboard.press("Enter")

    expect(page).to_have_url(re.compile(r"/c/\d+/$"))
    expect(last_reply(page)).to_have_attribute("data-status", "done", timeout=REPLY_TIMEOUT_MS)
    conversation = Conversation.objects.get(owner=user)
    assert page.url == f"{base_url}/c/{conversation.pk}/"
    assert [m.content for m in conversation.messages.filter(role="user")] == ["Quanto gastei no mercado?"]
    expect(composer).to_have_value("")
    expect(page.locator("#conversation-title")).not_to_have_text("")
    if not client.phone:
        expect(page.locator(".conversation-link[aria-current=page]")).to_have_count(1)
    page.reload()
    expect(page.get_by_test_id("message")).to_have_count(2)
    expect(composer).to_have_value("")  # the home page's draft went with the message


@clients(OTHER_TWO_CLIENTS)
def test_signing_out_clears_every_draft_from_the_browser(page: Page, base_url: str, user: Any, client: Client) -> None:
    """Drafts stayed in localStorage after sign-out: the next person at a shared computer saw them."""
    from chat.models import Conversation

    conversation = Conversation.objects.create(owner=user, title="Orçamento")
    sign_in(page, base_url)
    page.get_by_test_id("composer").fill("Começo de uma mensagem na página inicial")
    page.goto(f"{base_url}/c/{conversation.pk}/")
    expect(page.locator("#conversation-title")).to_have_text("Orçamento")
    page.get_by_test_id("composer").fill("Meu salário é de")
    drafts = "() => Object.keys(localStorage).filter((key) => key.startsWith('draft:')).sort()"
    assert page.evaluate(drafts) == [f"draft:{conversation.pk}", "draft:new"]

    page.get_by_role("button", name=text(client, "Sign out", "Sair")).click()

    expect(page).to_have_url(f"{base_url}/login/")
    assert page.evaluate(drafts) == []
    sign_in(page, base_url, next_path=f"/c/{conversation.pk}/")
    expect(page.locator("#conversation-title")).to_have_text("Orçamento")
    expect(page.get_by_test_id("composer")).to_have_value("")
    page.goto(f"{base_url}/")
    expect(page.get_by_test_id("composer")).to_have_value("")
