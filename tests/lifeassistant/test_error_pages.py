from __future__ import annotations

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("debug", [False, True])
@pytest.mark.parametrize("path", ["/api/v1/nothing-here/", "/api/v1/messages/abc/events/", "/api/v1/messages/-1/"])
def test_an_unknown_api_path_answers_json_also_in_debug(api, settings, debug, path):
    settings.DEBUG = debug  # make run serves with DEBUG on: Django's HTML debug page showed
    response = api.get(path, headers={"Accept-Language": "en"})
    assert response.status_code == 404
    assert response.json() == {"detail": "Not found."}
    assert api.get(path, headers={"Accept-Language": "pt-BR"}).json() == {"detail": "Não encontrado."}


def test_an_api_path_missing_its_slash_is_still_redirected(api, settings):
    settings.DEBUG = True
    response = api.get("/api/v1/conversations", headers={"Accept-Language": "en"})
    assert response.status_code == 301 and response["Location"] == "/api/v1/conversations/"


def test_an_api_crash_answers_json(api, conversation, monkeypatch):
    from chat.api import views

    def crash(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(views, "owned_messages", crash)
    client = Client(raise_request_exception=False)
    client.force_login(api.handler._force_user)
    response = client.get(f"/api/v1/conversations/{conversation['id']}/messages/", headers={"Accept-Language": "en-US"})
    assert response.status_code == 500
    assert response.json()["detail"].startswith("Internal server error.")


def test_other_pages_keep_html_errors(client):
    response = client.get("/no-such-page/")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")
