"""The API reads JSON bodies only: a form or multipart body is a JSON 415, never half-read."""

from __future__ import annotations

import pytest

from chat.models import Conversation

pytestmark = pytest.mark.django_db
ENGLISH = {"Accept-Language": "en"}


@pytest.mark.parametrize("fmt", ["multipart", None])
def test_a_form_or_multipart_body_is_refused_with_a_json_415(api, fmt):
    if fmt is None:
        response = api.post(
            "/api/v1/conversations/", "title=Dia", content_type="application/x-www-form-urlencoded", headers=ENGLISH
        )
    else:
        response = api.post("/api/v1/conversations/", {"title": "Dia"}, format=fmt, headers=ENGLISH)

    assert response.status_code == 415
    assert response["Content-Type"] == "application/json"
    assert response.json()["detail"].startswith("Unsupported media type")
    assert not Conversation.objects.exists()


def test_sign_in_over_the_api_takes_json_not_a_form(client, user):
    form = client.post("/api/v1/auth/token/", {"username": "ana", "password": "pass-ana-123"})
    assert form.status_code == 415
    json = client.post(
        "/api/v1/auth/token/", {"username": "ana", "password": "pass-ana-123"}, content_type="application/json"
    )
    assert json.status_code == 200
    assert json.json()["token"]


def test_the_browser_sign_in_page_still_takes_its_form(client, user):
    response = client.post("/login/", {"username": "ana", "password": "pass-ana-123"})
    assert response.status_code == 302


@pytest.mark.parametrize(("language", "detail"), [("en", "No data provided: send a JSON object."),
                                                  ("pt-BR", "Nenhum dado enviado: envie um objeto JSON.")])
def test_a_json_null_body_is_a_400_in_the_readers_language(api, conversation, language, detail):
    response = api.post(
        f"/api/v1/conversations/{conversation['id']}/messages/", "null", content_type="application/json",
        headers={"Accept-Language": language},
    )

    assert response.status_code == 400
    assert response.json()["detail"] == detail
    assert response.json()["errors"] == {"non_field_errors": [detail]}


@pytest.mark.parametrize(("language", "detail"), [
    ("en", "A message can have at most 100,000 characters. Send a longer text in parts."),
    ("pt-BR", "Uma mensagem pode ter no máximo 100.000 caracteres. Envie um texto maior em partes."),
])
def test_a_message_over_the_limit_says_the_limit_in_the_readers_numbers(api, conversation, language, detail):
    response = api.post(
        f"/api/v1/conversations/{conversation['id']}/messages/", {"content": "a" * 100_001}, format="json",
        headers={"Accept-Language": language},
    )

    assert response.status_code == 400
    assert response.json()["errors"] == {"content": [detail]}
