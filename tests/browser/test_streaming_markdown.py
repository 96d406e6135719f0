"""A reply's markdown renders while it streams, as the server renders its final text, and
the streaming renderer (chat/static/chat/app/markdown.js) lets nothing executable through.

The scripted model (tests/scripted_llm.py) streams a word at a time, slowly enough to look
at the middle of a reply.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from chat.markdown import render
from tests.browser.conftest import (
    DESKTOP_EN,
    DESKTOP_PT,
    PHONE_EN,
    PHONE_PT,
    REPLY_TIMEOUT_MS,
    clients,
    last_reply,
    send,
    shot,
    sign_in,
    start_conversation,
)
from tests.browser.test_replies import MARKDOWN_REPLY
from tests.browser.test_replies import XSS_CORPUS as BROWSER_XSS_CORPUS
from tests.chat.test_markdown import XSS_CORPUS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

MODULE = "/static/chat/app/markdown.js"

# What the server's renderer is known for (tests/chat/test_markdown.py), for the page's to match.
SAMPLES = [
    MARKDOWN_REPLY,
    "# Resumo\n\n**Total** e *nota*\n\n- um\n- dois\n\n1. primeiro\n\n"
    "| Item | Valor |\n|:-----|------:|\n| Café | 5,00 |\n\n"
    "```python\nprint('oi')\n```\n\n[Banco](https://banco.example/x?a=1&b=2) <https://ex.example>",
    "Use <b>negrito</b>",
    "[Ana](mailto:ana@example.com) ~~riscado~~",
    "1. Alimentação\n   - Mercado\n   - Restaurantes\n2. Casa\nlinha um",
    "Veja https://www.gov.br/receita e www.exemplo.com.br/ajuda.",
    "| conta | valor |\n|---|---|\n| luz | R$ 1.234,56 |\n\nUS$ 20 e € 3\n\n```\nR$ 6\n```",
    "### Gastos\n\ntexto\n\n##### Mercado\n\n### Contas",
    "# A\n## B\n### C\n#### D\n##### E\n###### F",
    "> citação com `código` e ![imagem](https://ex.example/a.png)\n\n---\n\n3. três\n4. quatro",
]

# The same HTML whatever the serializer: each element's tag, attributes (sorted) and text.
CANONICAL = """(html) => {
  const box = document.createElement('div');
  box.innerHTML = html;
  const walk = (node) => node.nodeType === Node.TEXT_NODE
    ? node.textContent
    : [node.tagName.toLowerCase(),
       [...node.attributes].map((a) => `${a.name}=${a.value}`).sort().join(' '),
       [...node.childNodes].map(walk)];
  return JSON.stringify([...box.childNodes].map(walk));
}"""

# Everything executable a rendering could hold, as a list of findings.
FINDINGS = """(box) => {
  const bad = [];
  for (const node of box.querySelectorAll('*')) {
    for (const attr of node.attributes) {
      const value = attr.value.replace(/[\\s\\u0000-\\u001f]/g, '').toLowerCase();
      if (attr.name.startsWith('on')) bad.push(`${node.tagName} ${attr.name}`);
      if (/^(javascript|data|vbscript|file):/.test(value)) bad.push(`${node.tagName} ${attr.name}=${attr.value}`);
      if (!['href', 'title', 'target', 'rel', 'class', 'style', 'start'].includes(attr.name)) bad.push(`${node.tagName} ${attr.name}`);
    }
    if (['SCRIPT', 'IFRAME', 'SVG', 'IMG', 'OBJECT', 'EMBED', 'STYLE', 'FORM', 'DIV', 'DETAILS'].includes(node.tagName.toUpperCase())) {
      bad.push(node.tagName);
    }
  }
  return bad;
}"""


def test_the_streaming_renderer_writes_the_same_html_as_the_server(page: Page, base_url: str, user: Any) -> None:
    sign_in(page, base_url)

    rendered = page.evaluate(
        f"async (samples) => {{ const m = await import('{MODULE}'); return samples.map((s) => m.renderMarkdown(s)); }}",
        SAMPLES,
    )

    for sample, html in zip(SAMPLES, rendered, strict=True):
        assert page.evaluate(CANONICAL, html) == page.evaluate(CANONICAL, render(sample)), sample


def test_the_xss_corpora_stay_inert_at_every_step_of_a_stream(page: Page, base_url: str, user: Any) -> None:
    """Each corpus entry, and the browser corpus as one reply, rendered as it would arrive:
    every prefix, into the page, with a half-open code fence closed for the moment."""
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    sign_in(page, base_url)

    found = page.evaluate(
        f"""async ([sources, findings]) => {{
          const m = await import('{MODULE}');
          const check = new Function('return ' + findings)();
          const box = document.createElement('div');
          document.body.append(box);
          const bad = [];
          for (const source of sources) {{
            for (let end = 1; end <= source.length; end += 1) {{
              m.renderInto(box, source.slice(0, end));
              for (const finding of check(box)) bad.push(`${{JSON.stringify(source.slice(0, end))}}: ${{finding}}`);
            }}
            box.innerHTML = m.renderMarkdown(source);
            for (const finding of check(box)) bad.push(`${{JSON.stringify(source)}} (final): ${{finding}}`);
            box.replaceChildren();
          }}
          await new Promise((resolve) => setTimeout(resolve, 200)); // any handler would have run
          return bad;
        }}""",
        [[*XSS_CORPUS, BROWSER_XSS_CORPUS], FINDINGS],
    )

    assert found == [], "\n".join(found[:20])
    assert page.evaluate("window.__xss") is None
    assert dialogs == []


def test_a_half_open_code_fence_holds_only_what_follows_it_so_far(page: Page, base_url: str, user: Any) -> None:
    sign_in(page, base_url)

    html = page.evaluate(
        f"""async () => {{
          const m = await import('{MODULE}');
          return [
            m.renderMarkdown("Antes\\n\\n```python\\ntotal = 1", {{ partial: true }}),
            m.renderMarkdown("Antes\\n\\n```python\\ntotal = 1\\n```\\n\\nDepois **fim**", {{ partial: true }}),
            m.renderMarkdown("~~~~\\n```\\nainda código", {{ partial: true }}),
          ];
        }}"""
    )

    assert html[0] == '<p>Antes</p>\n<pre><code class="language-python">total = 1\n</code></pre>'
    assert html[1].endswith("</code></pre>\n<p>Depois <strong>fim</strong></p>")
    assert html[2] == "<pre><code>```\nainda código\n</code></pre>"  # a ``` inside a ~~~~ fence is code


STREAMED_REPLY = (
    "## Resumo do mês\n\nVocê gastou **R$ 320,00** com *mercado*.\n\n"
    "```python\ntotal = 120 + 200\nprint(total)\n```\n\n"
    "Depois do código vem um parágrafo comum, e então " + " ".join(f"palavra{n}" for n in range(60)) + "."
)


@clients([DESKTOP_PT, DESKTOP_EN, PHONE_PT, PHONE_EN])
def test_a_streaming_reply_shows_its_markdown_as_it_arrives_then_the_servers_html(
    page: Page, base_url: str, user: Any, scripted_llm: Any, settings: Any
) -> None:
    settings.EMBEDDED_REPLY_THREADS = 2  # the reply runs after the send answers, as on the defaults
    scripted_llm.token_delay = 0.08
    scripted_llm.reply_text(STREAMED_REPLY)
    sign_in(page, base_url)
    start_conversation(page)
    send(page, "Resuma meus gastos")
    reply = last_reply(page)
    body = reply.get_by_test_id("message-body")

    # Mid-reply: a heading and bold text, never the raw marks.
    expect(body.locator("h2")).to_have_text("Resumo do mês", timeout=REPLY_TIMEOUT_MS)
    first_heading = "() => document.querySelector('[data-role=assistant]:last-child .streaming h2')"
    page.evaluate(f"() => {{ ({first_heading})().written = 'first'; }}")  # a mark the page's renderer cannot see
    expect(body.locator("strong")).to_have_text("R$\u00a0320,00")
    expect(body.locator("pre code")).to_contain_text("total")
    assert reply.get_attribute("data-status") == "running"
    # The paragraph after the code block is a paragraph, not swallowed by the block.
    expect(body.locator("p", has_text="Depois do código")).to_be_visible()
    expect(body).not_to_contain_text("```")
    expect(body).not_to_contain_text("**")
    # No flicker: the heading written first is still the same element, not redrawn each delta.
    assert page.evaluate(f"() => ({first_heading})().written") == "first"
    assert reply.get_attribute("data-status") == "running"
    shot(page, "markdown-mid-stream")

    expect(reply).to_have_attribute("data-status", "done", timeout=REPLY_TIMEOUT_MS)
    # The server's HTML replaced it: with the copy button of its code block.
    expect(body.get_by_test_id("copy-code")).to_be_visible()
    expect(body.locator("h2")).to_have_text("Resumo do mês")
    expect(body).to_contain_text("palavra59.")
