from __future__ import annotations

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def test_an_unknown_api_path_answers_json(api):
    response = api.get("/api/v1/nothing-here/", headers={"Accept-Language": "en"})
    assert response.status_code == 404
    assert response.json() == {"detail": "Not found."}


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
