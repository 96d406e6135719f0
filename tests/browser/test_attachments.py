"""Sending a file from the web chat: the paperclip button and drag and drop."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from chat.models import Message
from documents.models import ChatDocument
from tests.browser.conftest import REPLY_TIMEOUT_MS, assert_accessible, last_reply, shot, sign_in, start_conversation
from tests.file_fixtures import latin1_csv

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_attached_csv_is_shown_collapsed_and_the_message_refers_to_it(page: Page, base_url: str, user: Any) -> None:
    sign_in(page, base_url)
    start_conversation(page)

    page.get_by_test_id("file-input").set_input_files(
        files=[{"name": "extrato novembro.csv", "mimeType": "text/csv", "buffer": latin1_csv()}]
    )

    files = page.get_by_test_id("sent-files")
    attachment = files.get_by_test_id("attachment")
    expect(attachment).to_have_count(1)
    expect(attachment).to_contain_text("extrato novembro.csv")
    expect(attachment).not_to_have_attribute("open", "")  # collapsed, like a pasted document
    expect(page.get_by_test_id("composer")).to_have_value("@extrato_novembro.csv ")
    [document] = ChatDocument.objects.all()
    assert (document.file_name, len(document.transactions)) == ("extrato_novembro.csv", 3)
    assert_accessible(page, "the chat with a file attached")
    shot(page, "file-attached")

    attachment.locator("summary").click()
    expect(attachment.locator(".attachment-preview")).to_contain_text("Pão de Açúcar")

    page.get_by_test_id("composer").press_sequentially("o que tem aqui?")
    page.get_by_test_id("send").click()
    expect(last_reply(page)).to_have_attribute("data-status", "done", timeout=REPLY_TIMEOUT_MS)
    assert Message.objects.filter(role="user").get().content == "@extrato_novembro.csv o que tem aqui?"

    page.reload()  # the conversation's files are listed again when it opens
    expect(page.get_by_test_id("sent-files").get_by_test_id("attachment")).to_have_count(1)


def test_a_file_dropped_on_the_chat_is_sent_and_a_refused_one_says_why(page: Page, base_url: str, user: Any) -> None:
    sign_in(page, base_url)
    start_conversation(page)

    def drop(name: str, content: str) -> None:
        transfer = page.evaluate_handle(
            """([name, content]) => {
                const transfer = new DataTransfer();
                transfer.items.add(new File([content], name, { type: "text/plain" }));
                return transfer;
            }""",
            [name, content],
        )
        page.dispatch_event("#conversation-view", "dragover", {"dataTransfer": transfer})
        page.dispatch_event("#conversation-view", "drop", {"dataTransfer": transfer})

    drop("notas.md", "# Notas\n\nPagar o IPTU")
    expect(page.get_by_test_id("sent-files").get_by_test_id("attachment")).to_contain_text("notas.md")

    drop("planilha.csv", "Data;Descricao;Valor\n27/11/2026;=HYPERLINK(1);-1,00\n")
    expect(page.locator("[role=alert]")).to_contain_text("formula")
    assert list(ChatDocument.objects.values_list("file_name", flat=True)) == ["notas.md"]
