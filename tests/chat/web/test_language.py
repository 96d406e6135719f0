"""Pages and API answers speak the user's language: profile, then choice, then browser."""

from __future__ import annotations

from typing import Any

import pytest
from chat.api_tokens import issue_token
from rest_framework.test import APIClient

from lifeassistant.models import Profile

pytestmark = pytest.mark.django_db
# Test clients ask for English unless told otherwise (tests/conftest.py); this is no header.
NO_SIGNAL = {"Accept-Language": ""}


def test_the_sign_in_page_is_in_portuguese_without_a_signal_and_in_english_for_an_english_browser(client: Any) -> None:
    portuguese = client.get("/login/", headers=NO_SIGNAL).content.decode()
    english = client.get("/login/", headers={"Accept-Language": "en-US,en;q=0.9"}).content.decode()

    assert '<html lang="pt-BR"' in portuguese and ">Entrar</button>" in portuguese and "Senha" in portuguese
    assert '<html lang="en"' in english and ">Sign in</button>" in english and "Password" in english


def test_the_language_picked_on_the_sign_in_page_is_remembered(client: Any) -> None:
    client.post("/i18n/setlang/", {"language": "en", "next": "/login/"}, headers={"Accept-Language": "pt-BR"})

    page = client.get("/login/", headers={"Accept-Language": "pt-BR"})

    assert ">Sign in</button>" in page.content.decode()
    assert page["Content-Language"] == "en"


def test_a_signed_in_users_profile_language_wins_over_the_browser(client: Any, user: Any) -> None:
    Profile.objects.create(user=user, language="en")
    client.force_login(user)

    page = client.get("/", headers={"Accept-Language": "pt-BR"})

    assert '<html lang="en"' in page.content.decode()
    assert "Accept-Language" in page["Vary"]


def test_api_errors_follow_a_token_users_profile_language(user: Any) -> None:
    Profile.objects.create(user=user, language="pt")
    _, token = issue_token(user)
    api = APIClient(headers={"Authorization": f"Token {token}", "Accept-Language": "en-US"})

    response = api.get("/api/v1/conversations/999999/")

    assert response.status_code == 404
    assert response["Content-Language"] == "pt-br"
    assert response.json()["detail"] == "Não encontrado."  # not Django's "No Conversation matches …"


def test_an_anonymous_api_client_is_answered_in_its_browser_language() -> None:
    english = APIClient(headers={"Accept-Language": "en-US"}).get("/api/v1/conversations/")
    portuguese = APIClient(headers=NO_SIGNAL).get("/api/v1/conversations/")

    assert english.status_code == portuguese.status_code == 401
    assert english.json()["detail"] == "Authentication credentials were not provided."
    assert portuguese.json()["detail"] == "As credenciais de autenticação não foram fornecidas."


def test_the_event_streams_refusals_are_translated_too() -> None:
    portuguese = APIClient(headers=NO_SIGNAL).post("/api/v1/messages/1/events/")
    english = APIClient(headers={"Accept-Language": "en-US"}).post("/api/v1/messages/1/events/")

    assert portuguese.status_code == english.status_code == 405
    assert portuguese.json()["detail"] == 'Método "POST" não permitido.'
    assert english.json()["detail"] == 'Method "POST" not allowed.'
