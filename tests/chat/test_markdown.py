"""Assistant markdown becomes HTML that shows the reply's structure and runs nothing."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from django.conf import settings

from chat.markdown import render

# Each entry tries to smuggle a script, a fetch or an event handler through the reply.
XSS_CORPUS = [
    "[a](javascript:alert(1))",
    "[a](JaVaScRiPt:alert(1))",
    "[a](  javascript:alert(1))",
    "[a](java\tscript:alert(1))",
    "[a](&#106;avascript:alert(1))",
    "[a](&#x6A;&#x61;vascript&#58;alert(1))",
    "[a](javascript&colon;alert(1))",
    "[a](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "[a](DATA:text/html,<script>alert(1)</script>)",
    "[a](vbscript:msgbox(1))",
    "[a](VbScRiPt:msgbox(1))",
    "[a](file:///etc/passwd)",
    "<javascript:alert(1)>",
    "<data:text/html,<script>alert(1)</script>>",
    "<vbscript:msgbox(1)>",
    "[a][r]\n\n[r]: javascript:alert(1)",
    "[a][r]\n\n[r]: &#106;avascript:alert(1) \"t\"",
    '[a](https://ok.example "x\\" onmouseover=\\"alert(1)")',
    "[a](https://ok.example 'x\" onclick=\"alert(1)')",
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "![x](javascript:alert(1))",
    "![x](https://tracker.example/pixel.png)",
    '![x](https://ok.example/p.png "t" onerror="alert(1)")',
    "<svg onload=alert(1)><circle/></svg>",
    "<a href=\"javascript:alert(1)\">x</a>",
    "<iframe src=\"https://evil.example\"></iframe>",
    "<div style=\"background:url(javascript:alert(1))\">x</div>",
    "<details open ontoggle=alert(1)>",
    "```\n<script>alert(1)</script>\n```",
    "```js\" onmouseover=\"alert(1)\nx\n```",
    "| a |\n|---|\n| <img src=x onerror=alert(1)> [b](javascript:alert(1)) |",
    "*[a](javascript:alert(1))*",
    "> [a](data:image/svg+xml;base64,PHN2Zz4=)",
]

_TAG = re.compile(r"<\s*([a-zA-Z0-9]+)([^>]*)>")
_ATTR = re.compile(r"""([^\s=/]+)\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)""")


def _tags(html: str) -> list[tuple[str, dict[str, str]]]:
    return [
        (name.lower(), {key.lower(): value.strip("\"'") for key, value in _ATTR.findall(attrs)})
        for name, attrs in _TAG.findall(html)
    ]


@pytest.mark.parametrize("source", XSS_CORPUS)
def test_no_executable_url_event_handler_or_embedded_content_survives(source: str) -> None:
    html = render(source)
    for name, attributes in _tags(html):
        assert name not in {"script", "img", "svg", "iframe", "style", "div", "details", "object"}, html
        assert not any(key.startswith("on") for key in attributes), html
        assert set(attributes) <= {"href", "title", "target", "rel", "class", "style", "start"}, html
        if "href" in attributes:
            assert re.match(r"(https?|mailto):", attributes["href"], re.IGNORECASE), html
        if "style" in attributes:
            assert re.fullmatch(r"text-align:\s*(left|right|center);?", attributes["style"]), html
        if "class" in attributes:
            assert re.fullmatch(r"language-\S+", attributes["class"]), html


def test_headings_emphasis_lists_tables_code_and_links_render() -> None:
    html = render(
        "# Resumo\n\n**Total** e *nota*\n\n- um\n- dois\n\n1. primeiro\n\n"
        "| Item | Valor |\n|:-----|------:|\n| Café | 5,00 |\n\n"
        "```python\nprint('oi')\n```\n\n[Banco](https://banco.example/x?a=1&b=2) <https://ex.example>"
    )
    assert "<h2>Resumo</h2>" in html  # under the page's h1, the conversation's title
    assert "<strong>Total</strong>" in html and "<em>nota</em>" in html
    assert "<ul>\n<li>um</li>" in html and "<ol>\n<li>primeiro</li>" in html
    assert '<th style="text-align:left">Item</th>' in html and "<td style=\"text-align:right\">5,00</td>" in html
    assert "<pre><code class=\"language-python\">print(&#39;oi&#39;)\n</code></pre>" in html or (
        "<pre><code class=\"language-python\">print('oi')\n</code></pre>" in html
    )
    assert (
        '<a href="https://banco.example/x?a=1&amp;b=2" target="_blank" rel="noopener noreferrer">Banco</a>' in html
    )
    assert '<a href="https://ex.example" target="_blank" rel="noopener noreferrer">https://ex.example</a>' in html


def test_raw_html_from_the_model_shows_as_text() -> None:
    assert render("Use <b>negrito</b>") == "<p>Use &lt;b&gt;negrito&lt;/b&gt;</p>"


def test_mail_links_are_kept() -> None:
    assert 'href="mailto:ana@example.com"' in render("[Ana](mailto:ana@example.com)")


def test_a_single_newline_is_a_line_break_and_a_nested_list_is_only_tags():
    """Line breaks were shown by `white-space: pre-line` on list items, which also showed
    the newlines between a nested list's tags: blank lines around every sub-list."""
    html = render("1. Alimentação\n   - Mercado\n   - Restaurantes\n2. Casa\nlinha um")

    assert "<li>Casa<br>\nlinha um</li>" in html
    assert "<li>Alimentação\n<ul>" in html  # the newline is layout, shown by nothing now
    css = (Path(settings.BASE_DIR) / "chat/static/chat/app.css").read_text()
    assert "pre-line" not in css


def test_a_bare_url_is_a_link_and_an_unsafe_one_is_not() -> None:
    html = render("Veja https://www.gov.br/receita e www.exemplo.com.br/ajuda.")
    assert '<a href="https://www.gov.br/receita" target="_blank" rel="noopener noreferrer">' in html
    assert '<a href="http://www.exemplo.com.br/ajuda"' in html
    assert "<a" not in render("javascript:alert(1) e data:text/html,x")


def test_an_amount_does_not_break_between_its_currency_and_its_number_outside_code() -> None:
    html = render("| conta | valor |\n|---|---|\n| luz | R$ 1.234,56 |\n\nUS$ 20 e € 3\n\n```\nR$ 6\n```")
    assert "<td>R$\u00a01.234,56</td>" in html
    assert "US$\u00a020 e €\u00a03" in html
    assert "<code>R$ 6\n</code>" in html  # the copy button copies a plain space


def test_a_replys_headings_nest_under_the_page_title_without_skipping_levels() -> None:
    """A reply's "###" came right after the page's h1: screen readers' outline skipped two levels."""
    assert re.findall(r"<(h\d)>", render("### Gastos\n\ntexto\n\n##### Mercado\n\n### Contas")) == ["h2", "h3", "h2"]
    assert re.findall(r"<(h\d)>", render("# A\n## B\n### C\n#### D\n##### E\n###### F")) == [
        "h2", "h3", "h4", "h5", "h6", "h6"
    ]
