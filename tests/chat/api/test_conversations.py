from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def test_it_creates_a_conversation_owned_by_the_caller(api, user):
    response = api.post("/api/v1/conversations/", {"title": "Finanças"}, format="json")
    assert response.status_code == 201
    assert response.json()["title"] == "Finanças"
    assert user.conversations.get().title == "Finanças"


def test_it_lists_conversations_newest_first_with_a_cursor(api):
    for index in range(3):
        api.post("/api/v1/conversations/", {"title": f"c{index}"}, format="json")
    page = api.get("/api/v1/conversations/?page_size=2").json()
    assert [c["title"] for c in page["results"]] == ["c2", "c1"]
    assert page["next"]
    rest = api.get(page["next"]).json()
    assert [c["title"] for c in rest["results"]] == ["c0"]


def test_it_renames_and_deletes_a_conversation(api, conversation):
    url = f"/api/v1/conversations/{conversation['id']}/"
    assert api.patch(url, {"title": "Novo"}, format="json").json()["title"] == "Novo"
    assert api.delete(url).status_code == 204
    assert api.get(url).status_code == 404


def test_it_rejects_a_title_of_the_wrong_type(api):
    response = api.post("/api/v1/conversations/", {"title": 42}, format="json")
    assert response.status_code == 400
    assert "title" in response.json()["errors"]


def test_it_rejects_unknown_fields(api):
    response = api.post("/api/v1/conversations/", {"titel": "typo"}, format="json")
    assert response.status_code == 400
    assert response.json()["errors"] == {"titel": ["Unknown field."]}


def test_it_hides_another_users_conversation(api, other_api, conversation):
    url = f"/api/v1/conversations/{conversation['id']}/"
    assert other_api.get(url).status_code == 404
    assert other_api.patch(url, {"title": "x"}, format="json").status_code == 404
    assert other_api.delete(url).status_code == 404
    assert other_api.get("/api/v1/conversations/").json()["results"] == []
    assert api.get(url).json()["title"] == "Dia a dia"


def test_it_requires_authentication(client):
    response = client.get("/api/v1/conversations/")
    assert response.status_code in (401, 403)
    assert "detail" in response.json()


def test_a_tampered_cursor_is_a_400_not_a_crash_nor_a_404(api, conversation):
    """A 404 on /conversations/{id}/messages/ read as "this conversation is gone"."""
    import base64

    for cursor in (base64.b64encode(b"o=0&r=0&p=notadate").decode(), "not base64"):
        response = api.get("/api/v1/conversations/", {"cursor": cursor})
        assert response.status_code == 400, response.content[:300]
        assert response.json()["detail"] == "cursor: Invalid cursor."
        in_portuguese = api.get("/api/v1/conversations/", {"cursor": cursor}, HTTP_ACCEPT_LANGUAGE="pt-BR")
        assert in_portuguese.json()["detail"] == "cursor: Cursor inválido."
        messages = api.get(f"/api/v1/conversations/{conversation['id']}/messages/", {"cursor": cursor})
        assert messages.status_code == 400


def test_page_size_is_capped(api):
    for index in range(3):
        api.post("/api/v1/conversations/", {"title": f"c{index}"}, format="json")
    assert len(api.get("/api/v1/conversations/?page_size=100000").json()["results"]) == 3
    for unreadable in ("abc", "", "0", "-1", "2.5"):
        bad = api.get(f"/api/v1/conversations/?page_size={unreadable}")
        assert bad.status_code == 400, unreadable
        assert bad.json()["errors"] == {"page_size": ["Use a whole number from 1 up."]}


def test_the_list_runs_most_recently_active_first(api, send, shipped_skills):
    """It ran by creation: writing in an older conversation left it down the list."""
    older = api.post("/api/v1/conversations/", {"title": "Older"}, format="json").json()
    api.post("/api/v1/conversations/", {"title": "Newer"}, format="json")

    def titles():
        return [c["title"] for c in api.get("/api/v1/conversations/").json()["results"]]

    assert titles() == ["Newer", "Older"]
    send(api, older["id"], {"content": "Oi de novo"})
    assert titles() == ["Older", "Newer"]
    assert [c["title"] for c in api.get("/api/v1/conversations/", {"page_size": 1}).json()["results"]] == ["Older"]


@pytest.mark.parametrize("path", ["conversations", "memory"])
def test_an_edit_of_a_row_deleted_while_the_request_ran_is_a_404_not_a_500(api, conversation, path):
    """A PATCH racing a DELETE: the row was read, then deleted before the write."""
    from unittest import mock

    from chat.api.user import MemoryViewSet
    from chat.api.views import ConversationViewSet

    view = {"conversations": ConversationViewSet, "memory": MemoryViewSet}[path]
    if path == "memory":
        row_id = api.post("/api/v1/memory/", {"kind": "fact", "content": "Mora em Curitiba"}, format="json").json()["id"]
        body = {"content": "Mora em Recife"}
    else:
        row_id, body = conversation["id"], {"title": "Novo"}
    read = view.get_object

    def read_then_lose(self):
        row = read(self)
        type(row).objects.filter(pk=row.pk).delete()  # the DELETE lands between read and write
        return row

    with mock.patch.object(view, "get_object", read_then_lose):
        response = api.patch(f"/api/v1/{path}/{row_id}/", body, format="json")

    assert response.status_code == 404, response.content[:300]
    assert response.json()["detail"]


def test_a_title_of_invisible_characters_is_no_title_so_the_first_message_names_it(api, user, send):
    created = api.post("/api/v1/conversations/", {"title": "\u200b\u200d "}, format="json")
    assert created.status_code == 201 and created.json()["title"] == ""

    send(api, created.json()["id"], {"content": "Quero organizar minhas finanças"})

    assert api.get(f"/api/v1/conversations/{created.json()['id']}/").json()["title"] == "Quero organizar minhas finanças"
    assert api.patch("/api/v1/me/", {"display_name": "\u2060"}, format="json").json()["display_name"] == ""
