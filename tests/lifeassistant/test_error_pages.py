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


@pytest.mark.parametrize("debug", [False, True])
@pytest.mark.parametrize("method", ["post", "patch", "put", "delete"])
def test_an_api_write_missing_its_slash_is_redirected_keeping_its_method(api, settings, conversation, debug, method):
    """DEBUG on: a 500 (Django's RuntimeError for the developer). Off: a 301, which clients
    follow as a GET, so a POST "succeeded" with the list and created nothing."""
    settings.DEBUG = debug
    from chat.models import Conversation

    path = "/api/v1/conversations" if method == "post" else f"/api/v1/conversations/{conversation['id']}"
    before = Conversation.objects.count()
    response = getattr(api, method)(path, {"title": "Nova"}, format="json", headers={"Accept-Language": "en"})

    assert response.status_code == 308
    assert response["Location"] == f"{path}/"
    assert response.json() == {"detail": f"This address ends with a slash: {path}/"}
    assert Conversation.objects.count() == before


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


def _pool_exhausted(*args, **kwargs):
    """What Django raises when psycopg_pool gave no connection within its timeout."""
    from django.db.utils import OperationalError
    from psycopg_pool import PoolTimeout

    try:
        raise PoolTimeout("couldn't get a connection after 10.00 sec")
    except PoolTimeout as exc:
        raise OperationalError(*exc.args) from exc


@pytest.mark.parametrize("debug", [False, True])
def test_no_free_database_connection_is_a_503_to_retry_not_a_500(api, monkeypatch, settings, debug):
    """A sign-in burst held every pooled connection: the requests left waiting got 500s."""
    from chat.api.views import ConversationViewSet

    settings.DEBUG = debug
    monkeypatch.setattr(ConversationViewSet, "list", _pool_exhausted)
    response = api.get("/api/v1/conversations/", headers={"Accept-Language": "en"})
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert response.json() == {"detail": "The service is busy right now. Try again in a few seconds."}


def test_a_page_gets_the_busy_503_too_and_other_database_errors_stay_500s(user, monkeypatch):
    from django.db.utils import OperationalError

    from chat.web.views import ChatView

    client = Client(raise_request_exception=False, headers={"Accept-Language": "pt-BR"})
    client.force_login(user)
    monkeypatch.setattr(ChatView, "get", _pool_exhausted)
    page = client.get("/")
    assert (page.status_code, page["Retry-After"]) == (503, "5")
    assert page.content.decode() == "O serviço está ocupado agora. Tente de novo em alguns segundos."

    def broken(*args, **kwargs):
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(ChatView, "get", broken)
    assert client.get("/").status_code == 500
