"""Search finds one's own conversations by title or by what was said, never others'."""

from __future__ import annotations

import pytest

from chat.models import Message

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("shipped_skills")]


def found(client, text):
    return [c["title"] for c in client.get("/api/v1/conversations/", {"search": text}).json()["results"]]


def test_search_matches_titles_and_messages_case_insensitively(api, send):
    trip = api.post("/api/v1/conversations/", {"title": "Viagem a Salvador"}, format="json").json()
    money = api.post("/api/v1/conversations/", {"title": "Contas"}, format="json").json()
    send(api, money["id"], {"content": "Gastei 50 reais no MERCADO"})
    send(api, trip["id"], {"content": "Quero ver hotéis"})

    assert found(api, "salvador") == ["Viagem a Salvador"]
    assert found(api, "mercado") == ["Contas"]
    assert found(api, "nada disso") == []
    assert len(found(api, "")) == 2


def test_accents_and_case_never_matter(api, send):
    """Many people type Portuguese without accents: "familia" found nothing of "Família"
    (and on SQLite "FAMÍLIA" did not match "família" either: LIKE folds ASCII only)."""
    family = api.post("/api/v1/conversations/", {"title": "Família"}, format="json").json()
    work = api.post("/api/v1/conversations/", {"title": "Trabalho"}, format="json").json()
    send(api, work["id"], {"content": "Reunião às 15h sobre promoção"})
    send(api, family["id"], {"content": "ok"})

    for text in ("familia", "FAMÍLIA", "Familia", "família"):
        assert found(api, text) == ["Família"], text
    for text in ("reuniao", "PROMOCAO", "promoção"):
        assert found(api, text) == ["Trabalho"], text


def test_search_never_shows_another_users_conversations(api, other_api, send):
    mine = api.post("/api/v1/conversations/", {"title": "Segredo"}, format="json").json()
    send(api, mine["id"], {"content": "senha do banco"})
    assert found(other_api, "segredo") == []
    assert found(other_api, "senha") == []


def test_search_skips_superseded_messages(api, send):
    conversation = api.post("/api/v1/conversations/", {"title": "Dia"}, format="json").json()
    sent = send(api, conversation["id"], {"content": "abacaxi"}).json()
    Message.objects.filter(conversation_id=conversation["id"]).update(superseded_at="2026-01-01T00:00:00Z")
    assert found(api, "abacaxi") == []


@pytest.mark.postgres
def test_full_text_search_on_postgres(api, send):
    conversation = api.post("/api/v1/conversations/", {"title": "Finanças"}, format="json").json()
    # Not an expense: the offline model would propose one, and its card names the market too.
    send(api, conversation["id"], {"content": "Fui ao mercado ontem com a Ana"})
    assert found(api, "mercado ontem") == ["Finanças"]
    assert found(api, "Mercado") == ["Finanças"]
    assert found(api, "mercado -ontem") == []
    send(api, conversation["id"], {"content": "Reunião de família às 15h"})
    assert found(api, "reuniao familia") == ["Finanças"]
    assert found(api, "financas") == ["Finanças"]


def test_a_search_longer_than_200_characters_is_a_400(api):
    response = api.get("/api/v1/conversations/", {"search": "a" * 50_001}, headers={"Accept-Language": "en"})

    assert response.status_code == 400
    assert response.json()["errors"] == {"search": ["Search for at most 200 characters."]}
    assert api.get("/api/v1/conversations/", {"search": "a" * 200}).status_code == 200
