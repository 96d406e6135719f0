"""The web chat's streamed replies, Stop, the theme and the preferences page, in Chromium.

Run with ``python -m pytest -m browser tests/browser``; fixtures and helpers are in conftest.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.browser.conftest import (
    PHONE_PT,
    REPLY_TIMEOUT_MS,
    clients,
    last_reply,
    send,
    shot,
    sign_in,
    start_conversation,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# The offline reply is ~50 words: a word every 100 ms leaves seconds to see its middle.
SLOW_WORDS_SECONDS = 0.1


def reply_in_the_background(settings: Any) -> None:
    """As on the embedded defaults: the reply runs on a thread after the send answers 202."""
    settings.EMBEDDED_REPLY_THREADS = 2
    settings.LLM_OFFLINE_TOKEN_DELAY_SECONDS = SLOW_WORDS_SECONDS


def a_reply_being_written(page: Page, base_url: str, settings: Any) -> Locator:
    """Signed in, a new conversation, and a slow offline reply halfway through its text."""
    reply_in_the_background(settings)
    sign_in(page, base_url)
    start_conversation(page)
    send(page, "Hello there")
    reply = last_reply(page)
    expect(page.get_by_test_id("stop")).to_be_visible()
    expect(reply.get_by_test_id("message-body")).to_contain_text("No language model", timeout=REPLY_TIMEOUT_MS)
    expect(reply).to_have_attribute("data-status", "running")
    return reply


def test_a_reply_shows_text_before_it_ends_and_escape_stops_it(
    page: Page, base_url: str, user: Any, settings: Any
) -> None:
    reply = a_reply_being_written(page, base_url, settings)
    shot(page, "desktop-streaming")
    page.keyboard.press("Escape")

    expect(reply).to_have_attribute("data-status", "cancelled", timeout=REPLY_TIMEOUT_MS)
    expect(reply).to_contain_text("Stopped.")
    # The partial text stays; the rest of the offline answer never came.
    expect(reply.get_by_test_id("message-body")).to_contain_text("No language model")
    expect(reply.get_by_test_id("message-body")).not_to_contain_text("You said")
    expect(page.get_by_test_id("stop")).to_be_hidden()


def test_escape_in_the_rename_box_or_the_search_leaves_the_reply_running(
    page: Page, base_url: str, user: Any, settings: Any
) -> None:
    """Esc cancelling a rename (or clearing a search) also stopped the reply being written."""
    reply = a_reply_being_written(page, base_url, settings)

    page.get_by_test_id("rename").click()
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("rename")).to_be_focused()  # the rename is cancelled, nothing else
    page.get_by_test_id("rename").click()
    page.locator("#rename-cancel").focus()  # the form's buttons too, not only its field
    page.keyboard.press("Escape")
    expect(page.locator("#rename-form")).to_be_hidden()
    page.locator("#conversation-search").fill("budget")
    page.locator("#conversation-search").press("Escape")
    expect(page.locator("#conversation-search")).to_have_value("")
    expect(reply).to_have_attribute("data-status", "running")

    page.get_by_test_id("composer").press("Escape")  # the message box's Esc is Stop's
    expect(reply).to_have_attribute("data-status", "cancelled", timeout=REPLY_TIMEOUT_MS)


@clients([PHONE_PT])
def test_on_a_phone_the_message_box_is_as_small_after_a_reply_as_before(
    page: Page, base_url: str, user: Any, settings: Any, client: Any
) -> None:
    """Stop narrows the box while a reply runs; the box stayed tall after Stop went away."""
    page.set_viewport_size({"width": 360, "height": 640})
    reply_in_the_background(settings)
    sign_in(page, base_url)
    start_conversation(page)
    composer = page.get_by_test_id("composer")
    before = composer.bounding_box()["height"]

    send(page, "Oi")
    expect(page.get_by_test_id("stop")).to_be_visible()
    # Stop and Send are their symbols on a phone: the placeholder still fits the two rows (it
    # was cut in half beside two labelled buttons).
    assert page.get_by_test_id("stop").bounding_box()["width"] <= 48
    assert page.get_by_test_id("send").bounding_box()["width"] <= 48
    assert composer.evaluate("node => node.scrollHeight <= node.clientHeight")
    expect(page.get_by_test_id("stop")).to_have_accessible_name("Parar")
    expect(page.get_by_test_id("send")).to_have_accessible_name("Enviar")
    expect(last_reply(page)).to_have_attribute("data-status", "done", timeout=REPLY_TIMEOUT_MS)

    expect(page.get_by_test_id("stop")).to_be_hidden()
    assert composer.bounding_box()["height"] == before
    # The title gives way rather than pushing Rename and Delete onto a second row.
    header = page.locator(".conversation-header").bounding_box()["height"]
    assert header < 70, header


def test_a_conversation_link_says_it_is_opening_while_the_conversation_loads(
    page: Page, base_url: str, user: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a slow connection the welcome showed instead, and its button started another conversation."""
    from chat.api import views
    from chat.models import Conversation

    conversation = Conversation.objects.create(owner=user, title="Orçamento")
    sign_in(page, base_url)
    slow_list = views.ConversationMessagesView.get
    monkeypatch.setattr(views.ConversationMessagesView, "get", lambda *a, **k: (time.sleep(1.5), slow_list(*a, **k))[1])
    page.goto(f"{base_url}/c/{conversation.pk}/")

    expect(page.get_by_test_id("opening")).to_be_visible()
    expect(page.locator("#start-conversation")).to_be_hidden()
    expect(page.locator("#conversation-title")).to_have_text("Orçamento", timeout=REPLY_TIMEOUT_MS)
    expect(page.get_by_test_id("opening")).to_be_hidden()


def test_switching_to_a_slow_conversation_never_shows_the_previous_ones_messages(
    page: Page, base_url: str, user: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The list's link changed the address at once, and the old conversation stayed on screen."""
    from chat.api import views
    from chat.models import Conversation, Message

    first = Conversation.objects.create(owner=user, title="Mercado")
    Message.objects.create(conversation=first, role="user", content="Lista do mercado")
    second = Conversation.objects.create(owner=user, title="Viagem")
    sign_in(page, base_url)
    page.goto(f"{base_url}/c/{first.pk}/")
    expect(page.get_by_text("Lista do mercado")).to_be_visible()
    fast_list = views.ConversationMessagesView.get
    monkeypatch.setattr(views.ConversationMessagesView, "get", lambda *a, **k: (time.sleep(1.5), fast_list(*a, **k))[1])

    page.get_by_role("link", name="Viagem").click()

    expect(page.locator("#conversation-title")).to_have_text("Viagem")
    expect(page.get_by_text("Lista do mercado")).to_be_hidden()
    expect(page.locator("#messages")).to_have_attribute("aria-busy", "true")
    expect(page.locator("#messages")).not_to_have_attribute("aria-busy", "true", timeout=REPLY_TIMEOUT_MS)
    expect(page).to_have_url(f"{base_url}/c/{second.pk}/")


def test_without_live_updates_the_polled_reply_can_be_stopped_and_shows_its_state(
    page: Page, base_url: str, user: Any, settings: Any
) -> None:
    """Live updates refused (a proxy or the event log down): the page polls. Stop was hidden
    for the whole reply (no way to stop it on a phone) and it kept saying it was waiting."""
    reply_in_the_background(settings)
    page.route("**/events/", lambda route: route.fulfill(status=503, body=""))
    sign_in(page, base_url)
    start_conversation(page)

    send(page, "Hello there")

    reply = last_reply(page)
    expect(reply.get_by_test_id("message-body")).to_contain_text("No language model", timeout=REPLY_TIMEOUT_MS)
    expect(reply).to_have_attribute("data-status", "running")
    expect(reply.get_by_test_id("tool-progress")).to_be_hidden()
    expect(page.get_by_test_id("stop")).to_be_visible()
    page.get_by_test_id("stop").focus()
    page.keyboard.press("Enter")

    expect(reply).to_have_attribute("data-status", "cancelled", timeout=REPLY_TIMEOUT_MS)
    expect(page.get_by_test_id("stop")).to_be_hidden()
    expect(page.get_by_test_id("composer")).to_be_focused()  # not lost with the hidden button


def test_text_typed_while_a_message_is_sending_stays_in_the_box(page: Page, base_url: str, user: Any) -> None:
    """The box was emptied when the POST answered, taking what was typed meanwhile."""
    sign_in(page, base_url)
    start_conversation(page)
    held: list[Any] = []  # the POST, held until the second text is typed
    page.route("**/messages/", lambda route: held.append(route) if route.request.method == "POST" else route.continue_())
    box = page.get_by_test_id("composer")
    box.fill("primeira")
    page.get_by_test_id("send").click()
    expect(page.get_by_test_id("send")).to_have_accessible_name("Sending…")
    while not held:
        page.wait_for_timeout(50)

    box.press("End")
    box.type(" e a segunda")
    held[0].continue_()

    expect(last_reply(page)).to_have_attribute("data-status", "done", timeout=REPLY_TIMEOUT_MS)
    expect(box).to_have_value("e a segunda")


def test_a_reload_mid_reply_continues_the_same_text_to_the_end(
    page: Page, base_url: str, user: Any, settings: Any
) -> None:
    reply_in_the_background(settings)
    sign_in(page, base_url)
    start_conversation(page)
    send(page, "Are you there?")
    expect(last_reply(page).get_by_test_id("message-body")).to_contain_text(
        "No language model", timeout=REPLY_TIMEOUT_MS
    )

    page.reload()

    reply = last_reply(page)
    expect(page.get_by_test_id("stop")).to_be_visible()
    expect(reply).to_have_attribute("data-status", "done", timeout=REPLY_TIMEOUT_MS)
    body = reply.get_by_test_id("message-body")
    expect(body).to_contain_text("You said: Are you there?")
    # Replayed from the log once, not appended to the text already shown.
    assert body.inner_text().count("No language model") == 1
    expect(page.get_by_test_id("stop")).to_be_hidden()


def test_the_theme_follows_the_system_until_the_toggle_picks_one(page: Page, base_url: str, user: Any) -> None:
    page.emulate_media(color_scheme="dark")
    sign_in(page, base_url)
    html = page.locator("html")
    expect(html).to_have_attribute("data-theme", "dark")

    page.get_by_test_id("theme-toggle").click()
    expect(html).to_have_attribute("data-theme", "light")
    page.reload()

    expect(html).to_have_attribute("data-theme", "light")
    expect(page.get_by_test_id("theme-toggle")).to_have_attribute("aria-pressed", "false")


def test_the_preferences_page_turns_on_the_christian_perspective_and_edits_memory(
    page: Page, base_url: str, user: Any, shipped_skills: None
) -> None:
    from lifeassistant.models import KnowledgeItem, Profile

    KnowledgeItem.objects.create(owner=user, content="Lives in Curitiba", source="user")
    KnowledgeItem.objects.create(owner=user, content="Has a dog", source="user")
    sign_in(page, base_url)
    page.goto(f"{base_url}/preferences/")
    expect(page.locator("#preferences[data-ready=true]")).to_be_attached()

    spiritual = page.locator("[data-testid=pref-skill][data-skill=spiritual]")
    expect(spiritual).not_to_be_checked()
    spiritual.check()
    page.set_viewport_size({"width": 390, "height": 844})  # Save is below the fold on a phone
    page.get_by_test_id("pref-save").click()
    expect(page.get_by_role("status")).to_have_text("Preferences saved.")
    expect(page.get_by_role("status")).to_be_in_viewport()  # it was written at the page's top, out of sight
    assert Profile.for_user(user).preferences.get("christian_perspective") is True
    # The language was never chosen: saving the skills must not pin the one the page showed.
    expect(page.get_by_test_id("pref-language")).to_have_value("")
    assert not Profile.for_user(user).language
    page.reload()
    expect(page.get_by_role("heading", name="What the assistant remembers")).to_be_visible()

    newest = page.get_by_test_id("memory-item").first
    expect(newest).to_contain_text("Has a dog")
    newest.get_by_test_id("memory-edit").click()
    page.get_by_role("textbox", name="What the assistant remembers").fill("Has a dog called Bento")
    page.get_by_role("button", name="Save").last.click()
    expect(page.get_by_test_id("memory-item").first).to_contain_text("Has a dog called Bento")
    expect(page.get_by_test_id("memory-item").first.get_by_test_id("memory-edit")).to_be_focused()

    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_test_id("memory-item").last.get_by_test_id("memory-delete").click()
    expect(page.get_by_test_id("memory-item")).to_have_count(1)
    expect(page.get_by_test_id("memory-item").first.get_by_test_id("memory-delete")).to_be_focused()  # not <body>
    assert list(KnowledgeItem.objects.filter(owner=user).values_list("content", flat=True)) == [
        "Has a dog called Bento"
    ]
    shot(page, "desktop-preferences")



def test_the_preferences_page_adds_a_memory_and_confirms_a_language_change_after_its_reload(
    page: Page, base_url: str, user: Any
) -> None:
    """Memory could be corrected and deleted but not added; a language change reloaded the
    page with no word that it was saved."""
    from lifeassistant.models import KnowledgeItem, Profile

    sign_in(page, base_url)
    page.goto(f"{base_url}/preferences/")
    expect(page.locator("#preferences[data-ready=true]")).to_be_attached()

    page.get_by_test_id("memory-new").fill("   ")
    page.get_by_test_id("memory-add").click()
    expect(page.get_by_role("alert")).to_have_text("Write what the assistant should remember.")
    assert not KnowledgeItem.objects.filter(owner=user).exists()

    page.get_by_test_id("memory-new").fill("I am vegetarian")
    page.get_by_test_id("memory-new").press("Tab")
    page.keyboard.press("Enter")  # the "Remember this" button
    expect(page.get_by_test_id("memory-item").first).to_contain_text("I am vegetarian")
    expect(page.get_by_role("status")).to_have_text("Remembered.")
    expect(page.get_by_test_id("memory-new")).to_have_value("")
    expect(page.get_by_test_id("memory-new")).to_be_focused()
    assert list(KnowledgeItem.objects.filter(owner=user).values_list("content", "source")) == [("I am vegetarian", "user")]

    page.get_by_test_id("pref-language").select_option("pt-BR")
    page.get_by_test_id("pref-save").click()
    expect(page.get_by_role("heading", name="Preferências", exact=True)).to_be_visible()
    expect(page.get_by_role("status")).to_have_text("Preferências salvas.")
    assert Profile.for_user(user).language == "pt"
    page.reload()
    expect(page.locator("#preferences[data-ready=true]")).to_be_attached()
    expect(page.locator("#saved")).to_have_text("")  # said once, not on every visit


def test_scrolled_up_a_button_brings_the_latest_messages_back(page: Page, base_url: str, user: Any) -> None:
    """Reading back through a long thread, the newest messages were only a long scroll away."""
    from chat.models import Conversation, Message

    conversation = Conversation.objects.create(owner=user, title="Long thread")
    for n in range(12):
        question = Message.objects.create(conversation=conversation, role="user", content=f"Question {n}\n" * 3)
        Message.objects.create(conversation=conversation, role="assistant", reply_to=question, content=f"Answer {n}\n" * 4)
    sign_in(page, base_url)
    page.goto(f"{base_url}/c/{conversation.pk}/")
    expect(page.get_by_text("Answer 11").first).to_be_in_viewport()
    jump = page.get_by_test_id("jump-latest")
    expect(jump).to_be_hidden()  # already at the newest

    page.locator("#messages-scroller").evaluate("node => { node.scrollTop = 0; }")
    expect(jump).to_be_visible()
    expect(page.get_by_text("Answer 11").first).not_to_be_in_viewport()
    jump.focus()
    page.keyboard.press("Enter")

    expect(page.get_by_text("Answer 11").first).to_be_in_viewport()
    expect(jump).to_be_hidden()
    expect(page.get_by_test_id("composer")).to_be_focused()

    # A phone's keyboard leaves a sliver of the thread: the button would cover it.
    page.locator("#messages-scroller").evaluate("node => { node.scrollTop = 0; }")
    expect(jump).to_be_visible()
    page.set_viewport_size({"width": 360, "height": 300})
    expect(jump).to_be_hidden()
