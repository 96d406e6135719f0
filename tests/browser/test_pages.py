"""The chat, sign-in and preferences pages in both languages, both sizes and both themes:
the words a person reads, axe-core's verdict, the theme toggle and the phone layout."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import (
    EVERY_CLIENT,
    PHONE_EN,
    PHONE_PT,
    REPLY_TIMEOUT_MS,
    Client,
    assert_accessible,
    clients,
    last_reply,
    last_user_message,
    shot,
    sign_in,
    start_conversation,
    text,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def in_both_themes(page: Page, name: str) -> None:
    """axe-core and a screenshot in the light theme, then (by the toggle) in the dark one."""
    html = page.locator("html")
    for theme in ("light", "dark"):
        if html.get_attribute("data-theme") != theme:
            page.get_by_test_id("theme-toggle").click()
        expect(html).to_have_attribute("data-theme", theme)
        assert_accessible(page, f"{name} ({theme})")
        shot(page, f"{name}-{theme}")


@clients(EVERY_CLIENT)
def test_sign_in_chat_and_preferences_speak_the_browsers_language_and_pass_axe(
    page: Page, base_url: str, user: Any, client: Client, shipped_skills: None
) -> None:
    lang = text(client, "en", "pt-BR")
    page.goto(f"{base_url}/login/")
    expect(page.locator("html")).to_have_attribute("lang", lang)
    expect(page.get_by_test_id("sign-in")).to_have_text(
        text(client, "Sign in", "Entrar")
    )
    assert_accessible(page, "the sign-in page")
    shot(page, "sign-in")

    sign_in(page, base_url)
    start_conversation(page)
    expect(page.locator("html")).to_have_attribute("lang", lang)
    expect(page.get_by_test_id("composer")).to_have_attribute(
        "placeholder",
        text(
            client,
            "Write a message. Type / for commands.",
            "Escreva uma mensagem. Digite / para comandos.",
        ),
    )
    expect(page.get_by_test_id("send")).to_have_accessible_name(text(client, "Send", "Enviar"))
    page.get_by_test_id("composer").fill("Olá")
    page.get_by_test_id("send").click()
    expect(last_reply(page)).to_have_attribute(
        "data-status", "done", timeout=REPLY_TIMEOUT_MS
    )
    in_both_themes(page, "chat")

    page.goto(f"{base_url}/preferences/")
    expect(page.locator("#preferences[data-ready=true]")).to_be_attached()
    expect(page.locator("html")).to_have_attribute("lang", lang)
    expect(page.get_by_test_id("pref-save")).to_have_text(
        text(client, "Save", "Salvar")
    )
    in_both_themes(page, "preferences")


def test_the_dark_theme_chosen_by_the_toggle_is_remembered_across_a_reload(
    page: Page, base_url: str, user: Any
) -> None:
    page.emulate_media(color_scheme="light")
    sign_in(page, base_url)
    html = page.locator("html")
    expect(html).to_have_attribute("data-theme", "light")

    page.get_by_test_id("theme-toggle").click()
    expect(html).to_have_attribute("data-theme", "dark")
    page.reload()

    expect(html).to_have_attribute("data-theme", "dark")
    expect(page.get_by_test_id("theme-toggle")).to_have_attribute(
        "aria-pressed", "true"
    )
    # The choice holds on the other pages too.
    page.goto(f"{base_url}/preferences/")
    expect(html).to_have_attribute("data-theme", "dark")


@clients([PHONE_PT, PHONE_EN])
def test_on_a_phone_enter_breaks_the_line_and_the_send_button_sends(
    page: Page, base_url: str, user: Any, client: Client
) -> None:
    sign_in(page, base_url)
    start_conversation(page)
    composer = page.get_by_test_id("composer")
    expect(page.locator("#composer-hint")).to_have_text(
        text(
            client,
            "Enter breaks the line; the Send button sends.",
            "Enter quebra a linha; o botão Enviar envia.",
        )
    )

    composer.type("primeira linha")
    composer.press("Enter")
    composer.type("segunda linha")

    expect(composer).to_have_value("primeira linha\nsegunda linha")
    expect(page.get_by_test_id("message")).to_have_count(0)
    page.get_by_test_id("send").tap()
    expect(last_user_message(page)).to_contain_text("primeira linha\nsegunda linha")
    expect(last_reply(page)).to_have_attribute(
        "data-status", "done", timeout=REPLY_TIMEOUT_MS
    )
    expect(composer).to_have_value("")


@clients([PHONE_PT, PHONE_EN])
def test_nothing_scrolls_sideways_at_360_pixels(
    page: Page, base_url: str, user: Any
) -> None:
    page.set_viewport_size({"width": 360, "height": 740})
    sign_in(page, base_url)
    start_conversation(page)
    page.get_by_test_id("composer").fill(
        "Uma palavra-muito-comprida-" * 8 + "\n" + "linha " * 60
    )
    page.get_by_test_id("send").tap()
    expect(last_reply(page)).to_have_attribute(
        "data-status", "done", timeout=REPLY_TIMEOUT_MS
    )

    wide = "Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)"
    assert page.evaluate(wide) <= 360, "the chat scrolls sideways at 360 px"
    shot(page, "360px-chat")
    page.goto(f"{base_url}/preferences/")
    expect(page.locator("#preferences[data-ready=true]")).to_be_attached()
    assert page.evaluate(wide) <= 360, "the preferences page scrolls sideways at 360 px"
    page.context.clear_cookies()
    page.goto(f"{base_url}/login/")
    assert page.evaluate(wide) <= 360, "the sign-in page scrolls sideways at 360 px"


@clients([PHONE_PT])
def test_the_sign_in_pages_language_switch_changes_the_page_without_calling_the_api(page: Page, base_url: str) -> None:
    # It used to PATCH /api/v1/me/ as well: a 401 whose redirect could abort the switch.
    api_requests: list[str] = []
    page.on("request", lambda request: api_requests.append(request.url) if "/api/" in request.url else None)
    page.goto(f"{base_url}/login/")
    expect(page.get_by_test_id("sign-in")).to_have_text("Entrar")

    page.get_by_test_id("language").select_option("en")

    expect(page.get_by_test_id("sign-in")).to_have_text("Sign in")
    assert api_requests == []
