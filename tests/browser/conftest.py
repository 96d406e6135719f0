"""What every browser test shares: the project served over ASGI, one Chromium per session,
a browser context per test at a chosen size and language, screenshots and axe-core.

Run with ``python -m pytest -m browser tests/browser`` (needs Debian's ``chromium``; set
``CHROMIUM_PATH`` to use another binary). Screenshots land in ``test-artifacts/browser/``.

The live server runs on a file-backed SQLite database (see tests/live_db.py).
"""

from __future__ import annotations

import os
import re
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest

# Playwright's sync API runs an event loop in this thread; the test still touches the ORM.
os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

from playwright.sync_api import (
    Browser,
    BrowserContext,
    Locator,
    Page,
    expect,
    sync_playwright,
)

from tests.live_db import django_db_modify_db_settings  # noqa: F401 - the fixture, for this folder

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "test-artifacts" / "browser"
AXE = Path(__file__).resolve().parent / "assets" / "axe.min.js"
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# The first message of a process also warms up language detection, which takes seconds.
REPLY_TIMEOUT_MS = 30_000
expect.set_options(timeout=15_000)


class Client(NamedTuple):
    """A person's browser: screen size, touch, and the language it asks for."""

    size: str
    locale: str

    @property
    def phone(self) -> bool:
        return self.size == "phone"

    @property
    def english(self) -> bool:
        return self.locale == "en-US"


DESKTOP_EN = Client("desktop", "en-US")
DESKTOP_PT = Client("desktop", "pt-BR")
PHONE_EN = Client("phone", "en-US")
PHONE_PT = Client("phone", "pt-BR")
SIZES = {
    "desktop": {"width": 1280, "height": 800},
    "phone": {"width": 390, "height": 844},
}
# Each point of the issue is covered at both sizes and in both languages overall; a test takes
# all four combinations only where size and language both change what it checks.
EVERY_CLIENT = [DESKTOP_PT, DESKTOP_EN, PHONE_PT, PHONE_EN]
TWO_CLIENTS = [DESKTOP_EN, PHONE_PT]
OTHER_TWO_CLIENTS = [DESKTOP_PT, PHONE_EN]


def clients(choices: list[Client]) -> pytest.MarkDecorator:
    """Parametrize a test's ``client`` fixture (and so its page) over ``choices``."""
    return pytest.mark.parametrize(
        "client",
        choices,
        indirect=True,
        ids=[f"{choice.size}-{choice.locale}" for choice in choices],
    )


def text(client: Client, english: str, portuguese: str) -> str:
    return english if client.english else portuguese


@pytest.fixture(scope="session")
def base_url(live_server: Any) -> Iterator[str]:
    """The project served by uvicorn, as ``make run`` does, in a thread of this process so it
    shares the test database. Django's live server speaks WSGI, which gathers an async stream
    whole before sending it: no reply would show mid-way. (``live_server`` is still asked for:
    it opens the test database to other threads.)"""
    import uvicorn
    from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler
    from documents.language import detect_language
    from lifeassistant.stream_lanes import LanedASGIHandler

    # Loading the language model takes seconds: done here, the first test's send does not time out.
    detect_language("Bom dia, quanto eu gastei no mercado este mês?")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    app = ASGIStaticFilesHandler(LanedASGIHandler())  # lifeassistant/asgi.py's handler
    server = uvicorn.Server(
        uvicorn.Config(
            app, host="127.0.0.1", port=port, log_level="warning", lifespan="off"
        )
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.started, "uvicorn did not start"
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.skip(
            f"no Chromium at {CHROMIUM} (apt-get install -y chromium, or set CHROMIUM_PATH)"
        )
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        yield browser
        browser.close()


@pytest.fixture
def client(request: pytest.FixtureRequest) -> Client:
    """Desktop in English unless the test is parametrized with ``clients(...)``."""
    return getattr(request, "param", DESKTOP_EN)


@pytest.fixture
def browser_context(
    browser: Browser, client: Client, base_url: str
) -> Iterator[BrowserContext]:
    context = browser.new_context(
        viewport=SIZES[client.size],
        has_touch=client.phone,
        is_mobile=client.phone,
        locale=client.locale,  # also the Accept-Language header
        reduced_motion="reduce",  # no half-slid drawers in screenshots
        permissions=["clipboard-read", "clipboard-write"],
    )
    context.set_default_timeout(10_000)
    yield context
    context.close()


@pytest.fixture
def page(browser_context: BrowserContext) -> Iterator[Page]:
    page = browser_context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    assert not errors, f"JavaScript errors on the page: {errors}"


def shot(page: Page, name: str) -> None:
    """A screenshot named after the test, its size and language, and ``name``."""
    current = (
        os.environ.get("PYTEST_CURRENT_TEST", "test").split(" ")[0].split("::")[-1]
    )
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "-", f"{current}-{name}").strip("-")
    page.screenshot(path=str(ARTIFACTS / f"{safe}.png"), full_page=False)


def assert_accessible(page: Page, name: str) -> None:
    """axe-core on the page as it is: no serious or critical violation."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    result = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
    serious = [
        f"{violation['id']} ({violation['impact']}): {violation['help']} at "
        + ", ".join(str(node["target"]) for node in violation["nodes"][:5])
        for violation in result["violations"]
        if violation["impact"] in ("serious", "critical")
    ]
    assert not serious, f"axe-core on {name}:\n" + "\n".join(serious)


def sign_in(
    page: Page,
    base_url: str,
    username: str = "ana",
    password: str = "pass-ana-123",
    next_path: str = "/",
) -> None:
    page.goto(f"{base_url}{next_path}")
    expect(page).to_have_url(re.compile(r"/login/\?next="))
    page.locator("input[name=username]").fill(username)
    page.locator("input[name=password]").fill(password)
    page.get_by_test_id("sign-in").click()
    expect(page).to_have_url(f"{base_url}{next_path}")
    expect(page.locator("#app[data-ready=true]")).to_be_attached()


def start_conversation(page: Page) -> None:
    """The home page is a new conversation: its message box is there at once (focused where
    there is a keyboard), and the first message sent creates the conversation."""
    expect(page).to_have_url(re.compile(r"/$"))
    composer = page.get_by_test_id("composer")
    expect(composer).to_be_visible()
    if not page.evaluate("matchMedia('(pointer: coarse)').matches"):
        expect(composer).to_be_focused()


def send(page: Page, text: str) -> None:
    """Type and send as the person would on this device: Enter on a keyboard, the button on touch."""
    page.get_by_test_id("composer").fill(text)
    page.get_by_test_id("send").click()


def last_reply(page: Page) -> Locator:
    return page.locator("[data-testid=message][data-role=assistant]").last


def last_user_message(page: Page) -> Locator:
    return page.locator("[data-testid=message][data-role=user]").last
