"""The web chat in a real headless Chromium, against the project served over ASGI (see conftest)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Page, Route, expect

from tests.browser.conftest import (
    PHONE_EN,
    PHONE_PT,
    REPLY_TIMEOUT_MS,
    SIZES,
    clients,
    last_reply,
    last_user_message,
    send,
    shot,
    sign_in,
    start_conversation,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def skills(shipped_skills: None) -> None:
    """The shipped skills, so "Gastei ..." activates finance."""


def test_a_user_sends_a_message_and_sees_the_finance_reply_after_reload(
    page: Page, base_url: str, user: Any, skills: None
) -> None:
    sign_in(page, base_url)
    start_conversation(page)

    send(page, "Gastei 50 reais no mercado")

    expect(page.locator("#messages li[data-role=user] .content")).to_have_text(
        "Gastei 50 reais no mercado", timeout=REPLY_TIMEOUT_MS
    )
    reply = last_reply(page)
    expect(reply).to_have_attribute("data-status", "done", timeout=REPLY_TIMEOUT_MS)
    expect(reply.locator(".badge", has_text="finance")).to_be_visible()
    expect(reply.get_by_test_id("message-body")).to_contain_text("Skills: finance")
    expect(page.locator("#announcer")).to_contain_text("Assistant replied")
    expect(page.locator(".conversation-link[aria-current=page]")).to_have_text("Gastei 50 reais no mercado")
    shot(page, "desktop-reply")

    page.reload()

    reply = last_reply(page)
    expect(reply).to_have_attribute("data-status", "done")
    expect(reply.locator(".badge", has_text="finance")).to_be_visible()
    expect(page.locator("#messages li[data-role=user] .content")).to_have_text("Gastei 50 reais no mercado")
    expect(page.locator("#conversation-title")).to_have_text("Gastei 50 reais no mercado")
    shot(page, "desktop-after-reload")


def test_with_no_key_the_offline_demonstration_proposes_an_expense_and_the_card_records_it(
    page: Page, base_url: str, user: Any, skills: None
) -> None:
    from lifeassistant.models import Expense

    sign_in(page, base_url)
    start_conversation(page)

    send(page, "I spent $40 on gas")

    reply = last_reply(page)
    expect(reply).to_have_attribute("data-status", "done", timeout=REPLY_TIMEOUT_MS)
    expect(reply.get_by_test_id("message-body")).to_contain_text("Offline demonstration")
    card = page.get_by_test_id("action-card").first
    expect(card).to_have_attribute("data-status", "pending")
    shot(page, "offline-demonstration-card")
    card.get_by_role("button", name="Confirm").click()
    expect(card).to_contain_text("Done")
    assert Expense.objects.get(owner=user).description == "gas"


def test_shift_enter_breaks_the_line_and_enter_sends(page: Page, base_url: str, user: Any) -> None:
    sign_in(page, base_url)
    start_conversation(page)
    composer = page.get_by_label("Message", exact=True)

    composer.type("first line")
    composer.press("Shift+Enter")
    composer.type("second line")

    expect(composer).to_have_value("first line\nsecond line")
    expect(page.locator("#messages li")).to_have_count(0)
    composer.press("Enter")
    expect(page.locator("#messages li[data-role=user] .content")).to_have_text("first line\nsecond line")
    expect(composer).to_have_value("")
    expect(last_reply(page)).to_have_attribute("data-status", "done", timeout=REPLY_TIMEOUT_MS)


def test_a_message_holding_markup_shows_as_text(page: Page, base_url: str, user: Any) -> None:
    hostile = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2"> <b>bold</b>'
    sign_in(page, base_url)
    start_conversation(page)

    send(page, hostile)

    expect(page.locator("#messages li[data-role=user] .content")).to_have_text(hostile)
    expect(last_reply(page)).to_have_attribute("data-status", "done", timeout=REPLY_TIMEOUT_MS)
    assert page.locator("#messages script, #messages img, #messages b").count() == 0
    assert page.evaluate("window.__pwned") is None
    page.reload()
    expect(page.locator("#messages li[data-role=user] .content")).to_have_text(hostile)
    assert page.evaluate("window.__pwned") is None


def test_a_failed_reply_shows_its_error_and_can_be_retried(
    page: Page, base_url: str, user: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lifeassistant import llm

    real_stream = llm.stream_completion

    def unavailable(*args: Any, **kwargs: Any) -> Any:
        raise llm.LLMError("The language model is unavailable (test outage).")

    monkeypatch.setattr(llm, "stream_completion", unavailable)
    sign_in(page, base_url)
    start_conversation(page)

    send(page, "Hello there")

    reply = last_reply(page)
    expect(reply).to_have_attribute("data-status", "failed", timeout=REPLY_TIMEOUT_MS)
    # The person reads what happened in plain words; the provider's message stays in the logs.
    expect(reply.locator(".error")).to_have_text("The assistant is unavailable right now.")
    expect(reply).not_to_contain_text("test outage")
    shot(page, "desktop-failed-reply")

    monkeypatch.setattr(llm, "stream_completion", real_stream)
    reply.get_by_role("button", name="Retry").click()

    expect(last_reply(page)).to_have_attribute("data-status", "done", timeout=REPLY_TIMEOUT_MS)
    expect(last_reply(page).get_by_test_id("message-body")).to_contain_text("You said: Hello there")
    expect(page.locator("#messages li[data-role=assistant]")).to_have_count(1)


def test_reloading_mid_answer_resumes_waiting_for_the_reply(
    page: Page, base_url: str, user: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from chat import services
    from chat.tasks import generate_reply

    queued: list[int] = []
    monkeypatch.setattr(services, "dispatch_reply", lambda message: queued.append(message.pk))
    sign_in(page, base_url)
    start_conversation(page)

    send(page, "Are you there?")
    expect(last_reply(page)).to_have_attribute("data-status", "pending")
    expect(last_reply(page)).to_have_attribute("aria-busy", "true")
    page.reload()
    expect(last_reply(page)).to_have_attribute("data-status", "pending")
    expect(page.locator("#messages li[data-role=user] .content")).to_have_text("Are you there?")
    shot(page, "desktop-pending-after-reload")

    assert len(queued) == 1
    generate_reply(queued[0])

    expect(last_reply(page)).to_have_attribute("data-status", "done", timeout=REPLY_TIMEOUT_MS)
    expect(last_reply(page).get_by_test_id("message-body")).to_contain_text("You said: Are you there?")


def test_conversations_are_listed_newest_first_and_can_be_renamed_and_deleted(
    page: Page, base_url: str, user: Any
) -> None:
    from chat.models import Conversation

    older = Conversation.objects.create(owner=user, title="Older trip plans")
    Conversation.objects.create(owner=user, title="Newer budget")
    sign_in(page, base_url)

    expect(page.locator(".conversation-link")).to_have_text(["Newer budget", "Older trip plans"])
    page.get_by_role("link", name="Older trip plans").click()
    expect(page).to_have_url(f"{base_url}/c/{older.pk}/")

    page.get_by_role("button", name="Rename").click()
    expect(page.get_by_label("Conversation title")).to_be_focused()
    expect(page.get_by_role("button", name="Delete")).to_be_hidden()  # the form's Save / Cancel only
    page.get_by_label("Conversation title").fill("Lisbon trip")
    page.get_by_label("Conversation title").press("Enter")
    expect(page.locator("#conversation-title")).to_have_text("Lisbon trip")
    expect(page.get_by_role("button", name="Rename")).to_be_focused()  # not the page's top
    expect(page.locator(".conversation-link")).to_have_text(["Lisbon trip", "Newer budget"])  # changed last
    older.refresh_from_db()
    assert older.title == "Lisbon trip"

    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Delete").click()
    expect(page.locator(".conversation-link")).to_have_text(["Newer budget"])
    expect(page).to_have_url(f"{base_url}/")
    expect(page.locator("#new-conversation")).to_be_focused()
    assert not Conversation.objects.filter(pk=older.pk).exists()


def test_a_conversation_moves_to_the_top_of_the_list_when_a_message_is_sent(page: Page, base_url: str, user: Any) -> None:
    """The list was by creation: sending in an older conversation left it where it was."""
    from chat.models import Conversation

    older = Conversation.objects.create(owner=user, title="Older trip plans")
    Conversation.objects.create(owner=user, title="Newer budget")
    sign_in(page, base_url)
    expect(page.locator(".conversation-link")).to_have_text(["Newer budget", "Older trip plans"])
    page.get_by_role("link", name="Older trip plans").click()

    send(page, "Oi")

    expect(page.locator(".conversation-link")).to_have_text(["Older trip plans", "Newer budget"])
    expect(last_reply(page)).to_have_attribute("data-status", "done", timeout=REPLY_TIMEOUT_MS)
    page.reload()
    expect(page.locator(".conversation-link")).to_have_text(["Older trip plans", "Newer budget"])
    assert older.pk


def test_send_pressed_while_a_conversation_opens_is_sent_once_it_has_loaded(
    page: Page, base_url: str, user: Any
) -> None:
    """Send clicked before an opened conversation had loaded did nothing: the text sat in the box."""
    from chat.models import Conversation

    older = Conversation.objects.create(owner=user, title="Older trip plans")
    Conversation.objects.create(owner=user, title="Newer budget")
    sign_in(page, base_url)
    held: list[Any] = []  # the opened conversation's messages, held until Send has been pressed
    page.route(re.compile(rf".*/api/v1/conversations/{older.pk}/messages/\?page_size=.*"), lambda route: held.append(route))
    page.get_by_role("link", name="Older trip plans").click()
    while not held:
        page.wait_for_timeout(50)

    send(page, "Oi, ainda vamos?")
    expect(page.get_by_test_id("send")).to_have_accessible_name("Sending…")
    held[0].continue_()

    expect(last_user_message(page)).to_contain_text("Oi, ainda vamos?")
    expect(last_reply(page)).to_have_attribute("data-status", "done", timeout=REPLY_TIMEOUT_MS)
    expect(page.get_by_test_id("composer")).to_have_value("")
    assert older.messages.filter(role="user", content="Oi, ainda vamos?").count() == 1


def test_new_conversation_creates_nothing_until_its_first_message(page: Page, base_url: str, user: Any) -> None:
    """No pile of empty "New conversation" entries: the home page's first message makes it."""
    from chat.models import Conversation

    sign_in(page, base_url)
    start_conversation(page)

    page.locator("#new-conversation").click()
    page.locator("#new-conversation").click()

    expect(page.get_by_test_id("composer")).to_be_focused()
    assert page.url == f"{base_url}/" and not Conversation.objects.filter(owner=user).exists()
    send(page, "Oi")
    expect(page).to_have_url(re.compile(r"/c/\d+/$"))
    expect(last_reply(page)).to_have_attribute("data-status", "done", timeout=REPLY_TIMEOUT_MS)
    first = page.url
    page.locator("#new-conversation").click()
    expect(page).to_have_url(f"{base_url}/")
    expect(page.get_by_test_id("message")).to_have_count(0)
    assert Conversation.objects.filter(owner=user).count() == 1
    send(page, "Outra conversa")
    expect(page).to_have_url(re.compile(r"/c/\d+/$"))
    assert page.url != first and Conversation.objects.filter(owner=user).count() == 2


def test_signing_out_returns_to_the_sign_in_page(page: Page, base_url: str, user: Any) -> None:
    sign_in(page, base_url)

    page.get_by_role("button", name="Sign out").click()

    expect(page).to_have_url(f"{base_url}/login/")
    shot(page, "desktop-login")
    page.goto(f"{base_url}/")
    expect(page).to_have_url(re.compile(r"/login/\?next=/$"))


@clients([PHONE_EN])
def test_the_chat_works_at_phone_width(page: Page, base_url: str, user: Any, skills: None) -> None:
    sign_in(page, base_url)
    expect(page.locator("#sidebar")).not_to_be_visible()
    shot(page, "phone-empty")
    start_conversation(page)

    send(page, "Gastei 50 reais no mercado")

    expect(last_reply(page)).to_have_attribute("data-status", "done", timeout=REPLY_TIMEOUT_MS)
    expect(last_reply(page).locator(".badge", has_text="finance")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= SIZES["phone"]["width"]
    shot(page, "phone-reply")

    page.get_by_role("button", name="Conversations").click()
    expect(page.get_by_role("link", name="Gastei 50 reais no mercado")).to_be_visible()
    # Focus moves into the drawer (it stayed on the toggle while the drawer slid in), and the
    # conversation it covers is out of the Tab order.
    expect(page.get_by_role("link", name="Gastei 50 reais no mercado")).to_be_focused()
    assert page.evaluate("document.getElementById('main').inert")
    shot(page, "phone-sidebar")
    page.keyboard.press("Escape")
    expect(page.locator("#sidebar")).not_to_be_visible()
    expect(page.get_by_role("button", name="Conversations")).to_be_focused()
    assert not page.evaluate("document.getElementById('main').inert")


# --- Answers shaped in the browser: actions in every state, a throttle. ---


def test_pending_actions_can_be_confirmed_or_rejected(page: Page, base_url: str, user: Any) -> None:
    expense = {"id": 41, "tool": "create_expense", "arguments": {"amount": 50}, "summary": "Record an expense of R$ 50"}
    bill = {"id": 42, "tool": "mark_bill_paid", "arguments": {"bill": 3}, "summary": "Mark the rent as paid"}
    status = {41: "pending", 42: "pending"}

    def with_actions(message: dict[str, Any]) -> dict[str, Any]:
        if message["role"] == "assistant" and message["status"] == "done":
            message["pending_actions"] = [
                {**action, "status": status[action["id"]], "expires_at": "2030-01-01T12:00:00Z"}
                for action in (expense, bill)
            ]
        return message

    def augment_list(route: Route) -> None:
        response = route.fetch()
        body = response.json()
        if route.request.method == "GET":
            body["results"] = [with_actions(m) for m in body["results"]]
        route.fulfill(response=response, json=body)

    def augment_detail(route: Route) -> None:
        response = route.fetch()
        route.fulfill(response=response, json=with_actions(response.json()))

    def accept_expense(route: Route) -> None:
        assert route.request.headers.get("x-csrftoken")
        status[41] = "executed"
        route.fulfill(json={**expense, "status": "executed"})

    def reject_expired_bill(route: Route) -> None:
        status[42] = "expired"
        route.fulfill(status=409, json={"detail": "This action expired; ask again."})

    def conversation_actions(route: Route) -> None:
        # The chat refreshes the conversation's actions after each reply: they belong to the newest one.
        from chat.models import Message

        reply_id = Message.objects.filter(role="assistant").order_by("-id").values_list("id", flat=True).first()
        route.fulfill(json=[{**action, "message": reply_id, "status": status[action["id"]]} for action in (expense, bill)])

    page.route(re.compile(r".*/api/v1/conversations/\d+/actions/$"), conversation_actions)
    page.route(re.compile(r".*/api/v1/conversations/\d+/messages/.*"), augment_list)
    page.route(re.compile(r".*/api/v1/messages/\d+/$"), augment_detail)
    page.route("**/api/v1/actions/41/accept/", accept_expense)
    page.route("**/api/v1/actions/42/reject/", reject_expired_bill)
    sign_in(page, base_url)
    start_conversation(page)
    send(page, "Como estão minhas finanças?")  # the offline model proposes nothing: the actions are these

    reply = last_reply(page)
    expect(reply).to_have_attribute("data-status", "done", timeout=REPLY_TIMEOUT_MS)
    expect(reply.locator(".action-summary")).to_have_text(["Record an expense of R$ 50", "Mark the rent as paid"])
    shot(page, "desktop-pending-action")
    reply.locator("[data-action-id='41']").get_by_role("button", name="Confirm").click()
    expect(last_reply(page).locator("[data-action-id='41']")).to_contain_text("Done")
    expect(last_reply(page).locator("[data-action-id='41'] button")).to_have_count(0)

    last_reply(page).locator("[data-action-id='42']").get_by_role("button", name="Reject").click()
    expect(page.get_by_role("alert")).to_contain_text("This action expired; ask again.")
    expect(last_reply(page).locator("[data-action-id='42']")).to_contain_text("Expired")


def test_a_throttled_send_says_when_to_retry_and_keeps_the_text(page: Page, base_url: str, user: Any) -> None:
    keys: list[str] = []

    def throttled(route: Route) -> None:
        if route.request.method != "POST":
            route.continue_()
            return
        keys.append(route.request.headers["idempotency-key"])
        route.fulfill(
            status=429, headers={"Retry-After": "12"}, json={"detail": "Request was throttled."}
        )

    page.route(re.compile(r".*/api/v1/conversations/\d+/messages/$"), throttled)
    sign_in(page, base_url)
    start_conversation(page)

    send(page, "Hello")
    expect(page.get_by_role("alert")).to_contain_text("Too many messages, retry in 12 s.")
    expect(page.get_by_label("Message", exact=True)).to_have_value("Hello")
    page.get_by_role("button", name="Send").click()
    expect(page.get_by_role("alert")).to_contain_text("retry in 12 s")

    assert len(keys) == 2 and keys[0] == keys[1], "re-sending the same text reuses its Idempotency-Key"


def test_typing_a_slash_lists_the_commands_the_user_may_use(
    page: Page, base_url: str, user: Any, skills: None
) -> None:
    sign_in(page, base_url)
    start_conversation(page)
    composer = page.get_by_label("Message", exact=True)

    composer.type("/")
    expect(page.locator("#command-list")).to_be_visible()
    commands = page.locator("#command-list").get_by_role("option")
    expect(commands.filter(has_text="/help")).to_be_visible()
    composer.type("fi")

    expect(commands).to_have_count(1)
    expect(commands).to_contain_text("/finance")
    composer.press("Enter")
    expect(composer).to_have_value("/finance ")
    expect(page.locator("#command-list")).to_be_hidden()
    expect(page.locator("#messages li")).to_have_count(0)


def test_pasted_data_becomes_an_attachment_the_user_can_open(
    page: Page, base_url: str, user: Any, settings: Any
) -> None:
    settings.LLM_MAX_INPUT_TOKENS = 1_000  # so a short paste already counts as bulky
    rows = "\n".join(f"2024-05-{day:02d},mercado,{day * 7}.50,debito" for day in range(1, 21))
    sign_in(page, base_url)
    start_conversation(page)

    page.get_by_label("Message", exact=True).fill(f"Resuma estes gastos:\ndata,lugar,valor,tipo\n{rows}")
    page.get_by_label("Message", exact=True).press("Enter")

    user_message = page.locator("[data-testid=message][data-role=user]")
    attachment = user_message.locator("[data-testid=attachment]").first
    expect(attachment).to_be_visible(timeout=REPLY_TIMEOUT_MS)
    # The bubble keeps the short request; the rows are in the collapsed attachment.
    expect(user_message.locator(".content")).to_have_text("Resuma estes gastos:")
    attachment.locator("summary").click()
    show_all = attachment.get_by_test_id("show-all")
    show_all.click()
    dialog = page.get_by_role("dialog")
    expect(dialog.locator("#document-content")).to_contain_text("2024-05-20,mercado,140.50,debito")
    shot(page, "desktop-attachment")
    dialog.get_by_role("button", name="Close").click()
    expect(dialog).to_be_hidden()
    expect(show_all).to_be_focused()


@clients([PHONE_PT])
def test_a_pasted_blocks_title_reads_in_the_pages_language(page: Page, base_url: str, user: Any, settings: Any) -> None:
    """The extractor's titles are stored in English for the model; a pt-BR page showed
    "CSV data" on the attachment and in its dialog."""
    settings.LLM_MAX_INPUT_TOKENS = 1_000
    rows = "\n".join(f"2024-05-{day:02d},mercado,{day * 7}.50" for day in range(1, 21))
    sign_in(page, base_url)
    start_conversation(page)

    send(page, f"Resuma:\n```csv\ndata,lugar,valor\n{rows}\n```\n\n\nE diga onde economizar.")

    attachment = page.locator("[data-testid=message][data-role=user] [data-testid=attachment]").first
    expect(attachment.locator(".attachment-name")).to_have_text("Dados CSV", timeout=REPLY_TIMEOUT_MS)
    # Where the block was, one paragraph break is left, not the blank lines around it.
    content = page.locator("[data-testid=message][data-role=user] .content")
    assert content.evaluate("node => node.textContent") == "Resuma:\n\nE diga onde economizar."
    attachment.locator("summary").click()
    attachment.get_by_test_id("show-all").click()
    expect(page.locator("#document-title")).to_have_text("Dados CSV")
    # Its name and size; not a MIME type, nor its first rows again above themselves.
    expect(page.locator("#document-meta")).to_have_text(re.compile(r"^[\w.-]+\.csv · [\d.,]+\s?\w+$"))


@clients([PHONE_PT])
def test_a_long_message_on_a_phone_offers_one_way_to_read_it_whole(page: Page, base_url: str, user: Any, client: Any) -> None:
    """The preview's "Show the whole message" sat under the fold's fade, next to a second "Show more"."""
    from chat.models import Conversation, Message

    conversation = Conversation.objects.create(owner=user, title="Texto longo")
    words = " ".join(f"palavra{n}" for n in range(900))  # ~8,000 characters: a preview in the list
    Message.objects.create(conversation=conversation, role="user", content=words)
    sign_in(page, base_url)
    page.goto(f"{base_url}/c/{conversation.pk}/")

    message = page.get_by_test_id("message").first
    whole = message.get_by_role("button", name="Mostrar a mensagem inteira")
    expect(whole).to_be_visible()
    expect(message.get_by_test_id("show-more")).to_have_count(0)
    whole.click()

    expect(message).to_contain_text("palavra899")
    expect(message).to_be_focused()  # the button that had focus is gone
    # Asked for in full: not folded again (that showed less than the preview), read from its start.
    expect(message.get_by_test_id("show-more")).to_have_count(0)
    expect(message.get_by_text("palavra0 ")).to_be_in_viewport()


def test_an_edit_left_open_closes_when_a_newer_message_is_sent(page: Page, base_url: str, user: Any) -> None:
    """The form stayed on a message no longer the last; sending it was refused with a 409."""
    sign_in(page, base_url)
    start_conversation(page)
    send(page, "Primeira mensagem")
    expect(last_reply(page)).to_have_attribute("data-status", "done", timeout=REPLY_TIMEOUT_MS)
    first = page.locator("[data-testid=message][data-role=user]").first
    first.get_by_test_id("edit-message").click()
    expect(first.locator(".edit-form")).to_be_visible()

    send(page, "Segunda mensagem")

    expect(page.locator("[data-testid=message][data-role=user]")).to_have_count(2)
    expect(page.locator(".edit-form")).to_have_count(0)
    expect(first).to_contain_text("Primeira mensagem")
