"""What a person sees when something goes wrong: a failed reply in plain words with Retry,
and a session that ended while they were typing."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import (
    DESKTOP_EN,
    DESKTOP_PT,
    PHONE_EN,
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


@clients([PHONE_PT, DESKTOP_EN])
def test_a_failed_reply_says_what_happened_in_the_users_language_and_retries(
    page: Page,
    base_url: str,
    user: Any,
    client: Client,
    scripted_llm: Any,
    settings: Any,
) -> None:
    settings.LLM_MAX_RETRIES = 0
    scripted_llm.reply_error(
        503, "upstream overloaded: provider trace id 7f3a", times=3
    )
    sign_in(page, base_url)
    start_conversation(page)

    send(page, "Quanto gastei este mês?")

    reply = last_reply(page)
    expect(reply).to_have_attribute("data-status", "failed", timeout=REPLY_TIMEOUT_MS)
    # A 503 is an outage (error_code model_unavailable), said as such.
    expect(reply.locator(".error")).to_have_text(
        text(client, "The assistant is unavailable right now.", "O assistente está indisponível no momento.")
    )
    # The provider's words and the error's class stay in the logs.
    expect(reply).not_to_contain_text("7f3a")
    expect(reply).not_to_contain_text("Error")
    # Retry runs it again; a Regenerate next to it did the same under another name.
    expect(reply.get_by_test_id("retry")).to_be_visible()
    expect(reply.get_by_test_id("regenerate")).to_have_count(0)
    shot(page, "failed")

    while scripted_llm.pending:  # the outage is over
        scripted_llm.next_reply({})
    scripted_llm.reply_text("Você gastou R$ 320,00.")
    reply.get_by_test_id("retry").click()

    expect(last_reply(page)).to_have_attribute(
        "data-status", "done", timeout=REPLY_TIMEOUT_MS
    )
    expect(last_reply(page).get_by_test_id("message-body")).to_have_text(
        "Você gastou R$ 320,00."
    )
    expect(page.locator("[data-testid=message][data-role=assistant]")).to_have_count(1)


@clients([DESKTOP_PT, PHONE_EN])
def test_an_expired_session_keeps_the_draft_and_returns_to_the_same_conversation(
    page: Page, base_url: str, user: Any
) -> None:
    sign_in(page, base_url)
    start_conversation(page)
    conversation_url = page.url
    page.get_by_test_id("composer").fill("Rascunho que não pode se perder")

    page.context.clear_cookies()  # the session ends while the person is typing
    page.get_by_test_id("send").click()

    expect(page).to_have_url(re.compile(r"/login/\?next="))
    # It says why the person is there (a bare sign-in page explained nothing).
    expect(page.get_by_test_id("session-ended")).to_have_text(
        re.compile(r"^(Your session ended\. Sign in again: what you were writing was kept\."
                   r"|Sua sessão terminou\. Entre de novo: o que você estava escrevendo foi guardado\.)$")
    )
    page.locator("input[name=username]").fill("ana")
    page.locator("input[name=password]").fill("pass-ana-123")
    page.get_by_test_id("sign-in").click()

    expect(page).to_have_url(conversation_url)
    expect(page.get_by_test_id("composer")).to_have_value(
        "Rascunho que não pode se perder"
    )
    shot(page, "draft-kept")


def test_text_typed_while_a_conversation_opens_or_is_created_is_kept(
    page: Page, base_url: str, user: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The load restored the stored draft over what was typed meanwhile (8 of 12 tries: the
    text vanished, lost letters, or was saved as the previous conversation's draft)."""
    import time

    from chat.api import views
    from chat.models import Conversation

    first = Conversation.objects.create(owner=user, title="Primeira")
    second = Conversation.objects.create(owner=user, title="Segunda")
    sign_in(page, base_url)
    page.goto(f"{base_url}/c/{first.pk}/")
    expect(page.get_by_test_id("composer")).to_be_visible()

    slow_list, slow_create = views.ConversationMessagesView.get, views.ConversationViewSet.create
    monkeypatch.setattr(views.ConversationMessagesView, "get", lambda *a, **k: (time.sleep(1.0), slow_list(*a, **k))[1])
    monkeypatch.setattr(views.ConversationViewSet, "create", lambda *a, **k: (time.sleep(1.0), slow_create(*a, **k))[1])

    page.get_by_role("link", name="Segunda").click()
    page.keyboard.type("Olá de novo")  # at once, into whatever has focus: the box, from the click on
    expect(page).to_have_title(re.compile("^Segunda"))
    page.wait_for_timeout(300)
    expect(page.get_by_test_id("composer")).to_have_value("Olá de novo")

    page.get_by_role("link", name="Primeira").click()
    expect(page).to_have_title(re.compile("^Primeira"))
    expect(page.get_by_test_id("composer")).to_have_value("")  # the draft went with Segunda
    page.get_by_role("link", name="Segunda").click()
    expect(page).to_have_title(re.compile("^Segunda"))
    expect(page.get_by_test_id("composer")).to_have_value("Olá de novo")

    page.locator("#new-conversation").click()
    page.keyboard.type("Conversa nova")  # the home page's box, at once
    expect(page).to_have_url(f"{base_url}/")
    page.wait_for_timeout(300)
    expect(page.get_by_test_id("composer")).to_have_value("Conversa nova")
    page.keyboard.press("Enter")
    page.keyboard.type("e mais")  # while the conversation is being created: it stays in the box
    expect(page).to_have_url(re.compile(r"/c/\d+/$"))
    expect(page.locator("[data-testid=message][data-role=user] .content")).to_have_text("Conversa nova", timeout=REPLY_TIMEOUT_MS)
    expect(page.get_by_test_id("composer")).to_have_value("e mais")
