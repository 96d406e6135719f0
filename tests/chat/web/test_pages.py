"""The web chat pages: a login-protected shell, sign in and sign out."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def signed_in(user: Any, **kwargs: Any) -> Client:
    client = Client(**kwargs)
    client.force_login(user)
    return client


def test_the_chat_redirects_anonymous_visitors_to_sign_in() -> None:
    response = Client().get("/")

    assert response.status_code == 302
    assert response["Location"] == "/login/?next=/"


def test_a_conversation_link_redirects_back_to_itself_after_sign_in() -> None:
    response = Client().get("/c/7/")

    assert response["Location"] == "/login/?next=/c/7/"


def test_the_login_page_renders_a_labelled_form() -> None:
    response = Client().get("/login/", headers={"Accept-Language": "en"})

    assert response.status_code == 200
    html = response.content.decode()
    assert '<label for="id_username">Username</label>' in html
    assert '<label for="id_password">Password</label>' in html
    assert 'name="csrfmiddlewaretoken"' in html


@pytest.mark.parametrize(
    ("expired", "notice"),
    [
        ("kept", "Your session ended. Sign in again: what you were writing was kept."),
        # The preferences page, an edit in progress: nothing was kept, so nothing is promised.
        ("1", "Your session ended. Sign in again."),
    ],
)
def test_the_sign_in_page_promises_a_kept_draft_only_when_one_was_kept(expired: str, notice: str) -> None:
    html = Client().get(f"/login/?next=/&expired={expired}", headers={"Accept-Language": "en"}).content.decode()

    assert f'data-testid="session-ended">{notice}</p>' in html


def test_signing_in_lands_on_the_chat(user: Any) -> None:
    client = Client(enforce_csrf_checks=True)
    token = client.get("/login/").cookies["csrftoken"].value

    response = client.post(
        "/login/", {"username": "ana", "password": "pass-ana-123", "csrfmiddlewaretoken": token}
    )

    assert response.status_code == 302
    assert response["Location"] == "/"
    assert client.get("/").status_code == 200


def test_wrong_credentials_show_an_error(user: Any) -> None:
    response = Client().post("/login/", {"username": "ana", "password": "wrong"})

    assert response.status_code == 200
    assert 'role="alert"' in response.content.decode()


def test_the_chat_page_carries_a_csrf_token_and_cookie(user: Any) -> None:
    response = signed_in(user).get("/")

    assert response.status_code == 200
    assert 'name="csrfmiddlewaretoken"' in response.content.decode()
    assert "csrftoken" in response.cookies


def test_the_chat_page_is_a_shell_over_the_api(user: Any) -> None:
    html = signed_in(user).get("/c/12/").content.decode()

    assert 'data-api-root="/api/v1/"' in html
    assert "chat/app/main.js" in html and 'type="module"' in html
    assert "chat/app.css" in html
    assert 'aria-live="polite"' in html
    assert "ana" in html


def test_logout_refuses_get(user: Any) -> None:
    client = signed_in(user)

    assert client.get("/logout/").status_code == 405
    assert client.get("/").status_code == 200


def test_logout_by_post_signs_out(user: Any) -> None:
    client = signed_in(user)

    response = client.post("/logout/")

    assert response.status_code == 302
    assert response["Location"] == "/login/"
    assert client.get("/").status_code == 302


def test_the_api_takes_session_writes_only_with_the_csrf_header(user: Any) -> None:
    client = signed_in(user, enforce_csrf_checks=True)
    token = client.get("/").cookies["csrftoken"].value

    refused = client.post("/api/v1/conversations/", {"title": "x"}, content_type="application/json")
    accepted = client.post(
        "/api/v1/conversations/", {"title": "x"}, content_type="application/json", headers={"X-CSRFToken": token}
    )

    assert refused.status_code == 403
    assert accepted.status_code == 201


@pytest.fixture
def three_sign_ins_a_minute(settings: Any) -> None:
    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "login": "3/minute"}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}


@pytest.mark.usefixtures("three_sign_ins_a_minute")
def test_too_many_sign_in_attempts_from_one_address_are_refused_with_a_clear_message(user: Any) -> None:
    client = Client()
    guesses = [client.post("/login/", {"username": "ana", "password": f"guess-{n}"}) for n in range(3)]

    refused = client.post("/login/", {"username": "ana", "password": "pass-ana-123"})

    assert [r.status_code for r in guesses] == [200, 200, 200]
    assert refused.status_code == 429
    assert int(refused["Retry-After"]) > 0
    html = refused.content.decode()
    assert "Too many sign-in attempts. Try again in 1 minute." in html  # the per-IP budget is per minute
    assert 'role="alert"' in html and 'value="ana"' in html
    assert "_auth_user_id" not in client.session  # even the right password does not sign in


@pytest.mark.usefixtures("three_sign_ins_a_minute")
def test_an_empty_field_says_so_and_costs_no_attempt(user: Any) -> None:
    """The page came back with no message (only non-field errors were shown), and each
    empty submit spent one of the attempts, until the user was locked out."""
    client = Client(headers={"Accept-Language": "pt-BR"})
    empty = [client.post("/login/", {"username": "ana", "password": ""}) for _ in range(5)]

    assert {r.status_code for r in empty} == {200}
    assert "Informe seu usuário e sua senha." in empty[0].content.decode()
    response = client.post("/login/", {"username": "ana", "password": "pass-ana-123"})
    assert response.status_code == 302


@pytest.mark.usefixtures("three_sign_ins_a_minute")
def test_signing_in_under_the_attempt_limit_still_works(user: Any) -> None:
    client = Client()
    client.post("/login/", {"username": "ana", "password": "typo"})
    client.post("/login/", {"username": "ana", "password": "typo again"})

    response = client.post("/login/", {"username": "ana", "password": "pass-ana-123"})

    assert response.status_code == 302
    assert client.get("/").status_code == 200


@pytest.mark.usefixtures("three_sign_ins_a_minute")
def test_the_attempt_limit_is_per_address_and_shared_with_the_api(user: Any) -> None:
    from rest_framework.test import APIClient

    for n in range(3):
        APIClient().post("/api/v1/auth/token/", {"username": "ana", "password": f"guess-{n}"}, format="json")

    from_the_guesser = Client().post("/login/", {"username": "ana", "password": "pass-ana-123"})
    from_elsewhere = Client(REMOTE_ADDR="203.0.113.9").post("/login/", {"username": "ana", "password": "pass-ana-123"})

    assert from_the_guesser.status_code == 429
    assert from_elsewhere.status_code == 302


def test_opening_the_sign_in_page_does_not_use_up_attempts(user: Any, settings: Any) -> None:
    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "login": "1/minute"}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    client = Client()
    for _ in range(5):
        assert client.get("/login/").status_code == 200

    assert client.post("/login/", {"username": "ana", "password": "pass-ana-123"}).status_code == 302


def test_the_preferences_page_asks_anonymous_visitors_to_sign_in_and_come_back() -> None:
    response = Client().get("/preferences/")

    assert response["Location"] == "/login/?next=/preferences/"


def test_the_preferences_page_is_a_labelled_form_over_the_api(user: Any) -> None:
    response = signed_in(user).get("/preferences/")

    assert response.status_code == 200
    html = response.content.decode()
    assert 'data-api-root="/api/v1/"' in html
    assert "chat/preferences.js" in html
    assert '<label for="pref-language">' in html
    assert 'data-testid="pref-save"' in html
    assert "csrftoken" in response.cookies


def test_pages_remember_the_theme_before_the_first_paint(user: Any) -> None:
    html = signed_in(user).get("/").content.decode()

    # The stored choice is applied in <head>, so a dark-theme user never sees a white flash.
    head = html.split("</head>")[0]
    assert 'localStorage.getItem("theme")' in head
    assert "prefers-color-scheme: dark" in head
    assert 'data-testid="theme-toggle"' in html


def test_a_spanish_speaker_finds_spanish_selected_in_the_language_switches(user: Any) -> None:
    """The switches offered pt-BR and English only: a Spanish profile's page showed pt-BR selected."""
    from lifeassistant.models import Profile

    login = Client(headers={"Accept-Language": "es"}).get("/login/").content.decode()
    assert '<option value="es" selected lang="es">Español</option>' in login

    profile = Profile.for_user(user)
    profile.language = "es"
    profile.save()
    chat = signed_in(user).get("/").content.decode()
    assert '<option value="es" selected lang="es">Español</option>' in chat
    assert 'value="pt-BR" selected' not in chat
