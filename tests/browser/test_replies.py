"""A model's reply in the web chat: markdown rendered safely, copied, folded when tall,
with the scripted OpenAI-compatible model (tests/scripted_llm.py) writing the replies."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import (
    DESKTOP_EN,
    DESKTOP_PT,
    PHONE_EN,
    REPLY_TIMEOUT_MS,
    Client,
    clients,
    last_reply,
    last_user_message,
    send,
    shot,
    sign_in,
    start_conversation,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

MARKDOWN_REPLY = """## Resumo do mês

Você gastou **R$ 320,00** com *mercado*.

| Dia | Valor |
|-----|-------|
| 01/11 | 120,00 |
| 15/11 | 200,00 |

```python
total = 120 + 200
```

Veja o [extrato](https://example.com/extrato)."""

# What a hostile or confused model might write: every way of smuggling a script through markdown.
XSS_CORPUS = """[click](javascript:window.__xss=1)
[upper](JAVASCRIPT:window.__xss=2)
[spaced]( javascript:window.__xss=3)
[entity](&#106;avascript:window.__xss=4)
[hex](&#x6A;avascript&#x3A;window.__xss=5)
[tab](java\tscript:window.__xss=6)
[data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)
[vb](vbscript:msgbox(1))
<javascript:window.__xss=7>
<a href="javascript:window.__xss=8">raw link</a>
![img](javascript:window.__xss=9)
![pixel](x" onerror="window.__xss=10)
<img src=x onerror="window.__xss=11">
<svg onload="window.__xss=12"><circle r=1 /></svg>
<iframe src="javascript:window.__xss=13"></iframe>
<script>window.__xss=14</script>
<details open ontoggle="window.__xss=15">x</details>
[ok](https://example.com "title\\" onmouseover=\\"window.__xss=16")
&lt;img src=x onerror=window.__xss=17&gt;
<style>body{background:url(javascript:window.__xss=18)}</style>
`<img src=x onerror=alert(1)>` and **<b onclick="window.__xss=19">bold</b>**"""


def reply_with(page: Page, scripted_llm: Any, reply: str, message: str) -> Any:
    scripted_llm.reply_text(reply)
    send(page, message)
    answer = last_reply(page)
    expect(answer).to_have_attribute("data-status", "done", timeout=REPLY_TIMEOUT_MS)
    return answer


def expect_clipboard_to_contain(page: Page, needle: str) -> None:
    """The copy happens asynchronously: read the clipboard until it holds ``needle`` (5 s)."""
    content = ""
    for _ in range(50):
        content = str(page.evaluate("navigator.clipboard.readText()"))
        if needle in content:
            return
        page.wait_for_timeout(100)
    raise AssertionError(f"the clipboard holds {content!r}, not {needle!r}")


@clients([DESKTOP_PT, PHONE_EN])
def test_a_reply_renders_its_markdown_and_its_code_and_text_can_be_copied(
    page: Page, base_url: str, user: Any, scripted_llm: Any
) -> None:
    sign_in(page, base_url)
    start_conversation(page)

    body = reply_with(
        page, scripted_llm, MARKDOWN_REPLY, "Resuma meus gastos"
    ).get_by_test_id("message-body")

    expect(body.locator("h2")).to_have_text("Resumo do mês")
    expect(body.locator("strong")).to_have_text("R$ 320,00")
    expect(body.locator("em")).to_have_text("mercado")
    expect(body.locator("table tr")).to_have_count(3)
    expect(body.locator("pre code")).to_contain_text("total = 120 + 200")
    link = body.get_by_role("link", name="extrato")
    expect(link).to_have_attribute("href", "https://example.com/extrato")
    expect(link).to_have_attribute("target", "_blank")
    expect(link).to_have_attribute("rel", "noopener noreferrer")
    # The user's own message stays plain text.
    expect(last_user_message(page)).to_contain_text("Resuma meus gastos")
    shot(page, "markdown")

    last_reply(page).get_by_test_id("copy-code").click()
    expect_clipboard_to_contain(page, "total = 120 + 200")
    last_reply(page).get_by_test_id("copy-reply").click()
    expect_clipboard_to_contain(page, "Você gastou **R$ 320,00**")


@clients([DESKTOP_EN])
def test_a_markdown_xss_corpus_renders_without_a_single_executable_url_or_handler(
    page: Page, base_url: str, user: Any, scripted_llm: Any
) -> None:
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    sign_in(page, base_url)
    start_conversation(page)

    reply_with(page, scripted_llm, XSS_CORPUS, "Show me the links")
    page.reload()  # rendered again from the list, not only from the stream's final event
    expect(last_reply(page)).to_have_attribute("data-status", "done")

    found = page.evaluate(
        """() => {
        const bad = [];
        for (const node of document.querySelectorAll('#messages *')) {
          for (const attr of node.attributes) {
            const value = attr.value.replace(/[\\s\\u0000-\\u001f]/g, '').toLowerCase();
            if (attr.name.startsWith('on')) bad.push(`${node.tagName} ${attr.name}`);
            if (/^(javascript|data|vbscript):/.test(value)) bad.push(`${node.tagName} ${attr.name}=${attr.value}`);
          }
          if (['SCRIPT', 'IFRAME', 'SVG', 'IMG', 'OBJECT', 'EMBED', 'STYLE', 'FORM'].includes(node.tagName.toUpperCase())) {
            bad.push(node.tagName);
          }
        }
        return bad;
      }"""
    )
    assert found == [], f"executable content in the thread: {found}"
    # Links still work, one by one, and nothing ran: clicking the dropped ones does nothing either.
    for link in last_reply(page).get_by_test_id("message-body").locator("a").all():
        href = link.get_attribute("href") or ""
        assert href.startswith(("http://", "https://", "mailto:", "#")), href
    assert page.evaluate("window.__xss") is None
    assert dialogs == []
    shot(page, "xss-corpus")


@clients([DESKTOP_PT, PHONE_EN])
def test_a_reply_taller_than_the_screen_folds_behind_show_more(
    page: Page, base_url: str, user: Any, scripted_llm: Any
) -> None:
    sign_in(page, base_url)
    start_conversation(page)
    long_reply = "\n\n".join(
        f"Parágrafo {number}: uma linha de texto." for number in range(1, 120)
    )

    answer = reply_with(page, scripted_llm, long_reply, "Escreva bastante")

    more = answer.get_by_test_id("show-more")
    expect(more).to_be_visible()
    expect(more).to_have_attribute("aria-expanded", "false")
    height = answer.locator(".bubble").evaluate(
        "node => node.getBoundingClientRect().height"
    )
    assert height <= page.viewport_size["height"], (
        f"a folded bubble is {height} px tall"
    )
    more.click()
    expect(more).to_have_attribute("aria-expanded", "true")
    expect(answer.get_by_test_id("message-body")).to_contain_text("Parágrafo 119")
    shot(page, "show-more")


@clients([PHONE_EN, DESKTOP_PT])
def test_regenerate_replaces_the_last_reply_and_edit_resends_hiding_the_old_turn(
    page: Page, base_url: str, user: Any, scripted_llm: Any, client: Client
) -> None:
    from chat.models import Message

    sign_in(page, base_url)
    start_conversation(page)
    reply_with(page, scripted_llm, "Primeira resposta.", "Quanto gastei?")

    scripted_llm.reply_text("Segunda resposta, melhor.")
    last_reply(page).get_by_test_id("regenerate").click()
    expect(last_reply(page).get_by_test_id("message-body")).to_have_text(
        "Segunda resposta, melhor.", timeout=REPLY_TIMEOUT_MS
    )
    expect(page.locator("[data-testid=message][data-role=assistant]")).to_have_count(1)

    scripted_llm.reply_text("Resposta à pergunta corrigida.")
    last_user_message(page).get_by_test_id("edit-message").click()
    editor = last_user_message(page).locator("textarea")
    expect(editor).to_have_value("Quanto gastei?")
    expect(last_user_message(page).get_by_test_id("edit-message")).to_be_hidden()  # not under its own form
    # The editor takes the thread's width (it was 204 px of an 820 px column), and Esc cancels.
    thread_width = page.get_by_test_id("message").first.evaluate("node => node.parentElement.clientWidth")
    assert editor.bounding_box()["width"] > 0.8 * thread_width
    editor.press("Escape")
    expect(editor).to_have_count(0)
    expect(last_user_message(page).get_by_test_id("edit-message")).to_be_focused()
    expect(last_reply(page).get_by_test_id("message-body")).to_have_text("Segunda resposta, melhor.")  # not stopped
    last_user_message(page).get_by_test_id("edit-message").click()
    expect(editor).to_have_value("Quanto gastei?")
    editor.fill("Quanto gastei em novembro?")
    if client.phone:  # a touch keyboard's Enter breaks the line: the Send button sends
        editor.press("Enter")
        expect(editor).to_have_value("Quanto gastei em novembro?\n")
        last_user_message(page).locator("button[type=submit]").click()
    else:  # as in the composer: Shift+Enter breaks the line, Enter sends (it only broke it)
        editor.press("Shift+Enter")
        expect(editor).to_have_value("Quanto gastei em novembro?\n")
        editor.press("Backspace")
        editor.press("Enter")

    expect(last_reply(page).get_by_test_id("message-body")).to_have_text(
        "Resposta à pergunta corrigida.", timeout=REPLY_TIMEOUT_MS
    )
    expect(page.get_by_test_id("message")).to_have_count(2)
    expect(last_user_message(page)).to_contain_text("Quanto gastei em novembro?")
    page.reload()
    expect(page.get_by_test_id("message")).to_have_count(2)
    # The superseded turns are kept in the database, only hidden from the thread.
    assert Message.objects.filter(role="user").count() == 2
    assert Message.objects.filter(role="assistant").count() == 3
