"""The user's settings and memory through the API: /me/, /skills/, /memory/."""

from __future__ import annotations

from typing import Any

import pytest

from skills.models import Skill

from chat.models import Message
from lifeassistant.models import KnowledgeItem, Profile

pytestmark = pytest.mark.django_db


def test_me_shows_the_profile_with_its_defaults(api: Any) -> None:
    assert api.get("/api/v1/me/").json() == {
        "username": "ana",
        "display_name": "",
        "language": None,
        "timezone": "America/Sao_Paulo",
        "currency": "BRL",
        "preferences": {},
        "disabled_skills": [],
        "retention_days": None,
    }


def test_patch_changes_only_the_named_fields(api: Any, user: Any, shipped_skills: None) -> None:
    Profile.objects.filter(pk=Profile.for_user(user).pk).update(preferences={"christian_perspective": True, "other_flag": True})
    body = api.patch("/api/v1/me/", {"display_name": "Ana Paula", "language": "en"}, format="json").json()
    assert body["display_name"] == "Ana Paula"
    assert body["language"] == "en"
    assert body["timezone"] == "America/Sao_Paulo"
    assert body["preferences"] == {"christian_perspective": True, "other_flag": True}

    body = api.patch(
        "/api/v1/me/",
        {"timezone": "Europe/Lisbon", "currency": "EUR", "preferences": {"christian_perspective": False},
         "disabled_skills": ["finance", "finance", "health"], "language": "pt-BR", "username": "ignored"},
        format="json",
    ).json()
    assert body == {
        "username": "ana",
        "display_name": "Ana Paula",
        "language": "pt-BR",
        "timezone": "Europe/Lisbon",
        "currency": "EUR",
        # Flags merge: the one not named stays.
        "preferences": {"christian_perspective": False, "other_flag": True},
        "disabled_skills": ["finance", "health"],
        "retention_days": None,
    }
    assert Profile.objects.get(user=user).language == "pt"
    assert api.patch("/api/v1/me/", {"language": None}, format="json").json()["language"] is None


def test_a_patch_does_not_overwrite_a_field_changed_meanwhile(api: Any, user: Any) -> None:
    profile = Profile.for_user(user)
    api.get("/api/v1/me/")
    # Another client changes the time zone between this client's read and its write.
    Profile.objects.filter(pk=profile.pk).update(timezone="Asia/Tokyo")
    api.patch("/api/v1/me/", {"display_name": "Ana"}, format="json")
    profile.refresh_from_db()
    assert (profile.display_name, profile.timezone) == ("Ana", "Asia/Tokyo")


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"timezone": "Mars/Olympus"}, "timezone"),
        ({"currency": "reais"}, "currency"),
        ({"currency": "brl"}, "currency"),
        ({"currency": "ZZZ"}, "currency"),
        ({"currency": "BRR"}, "currency"),
        ({"language": "fr"}, "language"),
        ({"preferences": {"christian_perspective": "yes"}}, "preferences"),
        ({"preferences": {"Bad Name": True}}, "preferences"),
        ({"preferences": ["christian_perspective"]}, "preferences"),
        ({"disabled_skills": ["general"]}, "disabled_skills"),
        ({"disabled_skills": ["astrology"]}, "disabled_skills"),
        ({"disabled_skills": "finance"}, "disabled_skills"),
        ({"timezone": "localtime"}, "timezone"),
        ({"timezone": "Factory"}, "timezone"),
        ({"preferences": {f"flag_{n}": True for n in range(51)}}, "preferences"),
        ({"display_name": 42}, "display_name"),
        ({"display_name": "x" * 81}, "display_name"),
        ({"favourite_color": "blue"}, "favourite_color"),
    ],
)
def test_bad_settings_get_a_clear_400_and_nothing_changes(api: Any, user: Any, shipped_skills: None, body: Any, field: str) -> None:
    before = api.get("/api/v1/me/").json()
    response = api.patch("/api/v1/me/", body, format="json")
    assert response.status_code == 400
    assert field in response.json()["errors"]
    assert response.json()["detail"]
    assert api.get("/api/v1/me/").json() == before


def test_preference_flags_are_bounded_across_patches(api: Any) -> None:
    assert api.patch("/api/v1/me/", {"preferences": {f"a_{n}": True for n in range(30)}}, format="json").status_code == 200

    response = api.patch("/api/v1/me/", {"preferences": {f"b_{n}": True for n in range(21)}}, format="json")

    assert response.status_code == 400 and response.json()["errors"]["preferences"] == ["At most 50 preference flags."]
    assert api.patch("/api/v1/me/", {"preferences": {"a_0": False}}, format="json").status_code == 200  # a known one
    assert len(api.get("/api/v1/me/").json()["preferences"]) == 30


def test_a_profile_past_the_bound_can_still_change_its_flags(api: Any, user: Any) -> None:
    """Flags stored before the bound existed (or by a race it used to lose) never lock
    the user out of their preferences: changing a flag they have always works."""
    profile = Profile.for_user(user)
    profile.preferences = {f"old_{n}": True for n in range(60)}
    profile.save()

    assert api.patch("/api/v1/me/", {"preferences": {"old_0": False}}, format="json").status_code == 200
    assert api.patch("/api/v1/me/", {"display_name": "Ana"}, format="json").status_code == 200
    response = api.patch("/api/v1/me/", {"preferences": {"christian_perspective": True}}, format="json")

    assert response.status_code == 400 and response.json()["errors"]["preferences"] == ["At most 50 preference flags."]
    assert api.get("/api/v1/me/").json()["preferences"]["old_0"] is False


def test_skill_descriptions_speak_the_readers_language(api: Any, shipped_skills: None) -> None:
    english = {s["name"]: s["description"] for s in api.get("/api/v1/skills/", headers={"Accept-Language": "en"}).json()}
    portuguese = {s["name"]: s["description"] for s in api.get("/api/v1/skills/", headers={"Accept-Language": "pt-BR"}).json()}

    assert english["finance"].startswith("Finance: spending, income, bills")
    assert portuguese["finance"].startswith("Finanças: gastos")
    commands = {c["name"]: c["description"] for c in api.get("/api/v1/commands/", headers={"Accept-Language": "en"}).json()}
    assert commands["/health"].startswith("Health: weight, exercise, sleep")


def test_a_skill_turned_off_and_then_removed_by_staff_does_not_block_the_next_save(
    api: Any, user: Any, shipped_skills: None
) -> None:
    api.patch("/api/v1/me/", {"disabled_skills": ["finance", "health"]}, format="json")
    Skill.objects.get(name="health").delete()

    response = api.patch("/api/v1/me/", {"language": "en", "disabled_skills": ["finance", "health"]}, format="json")

    assert response.status_code == 200, response.json()
    assert response.json()["language"] == "en"
    bad = api.patch("/api/v1/me/", {"disabled_skills": ["finance", "astrology"]}, format="json")
    assert bad.status_code == 400  # a name neither known nor stored is still refused


def test_me_needs_a_login(client: Any) -> None:
    assert client.get("/api/v1/me/").status_code in (401, 403)
    assert client.get("/api/v1/skills/").status_code in (401, 403)
    assert client.get("/api/v1/memory/").status_code in (401, 403)


def test_skills_say_which_are_available_and_which_are_off(api: Any, shipped_skills: None) -> None:
    skills = {skill["name"]: skill for skill in api.get("/api/v1/skills/").json()}
    assert skills["spiritual"] == {
        "name": "spiritual",
        "description": skills["spiritual"]["description"],
        "requires_preference": "christian_perspective",
        "available": False,
        "disabled": False,
    }
    assert skills["finance"]["available"] and skills["general"]["available"]

    api.patch("/api/v1/me/", {"preferences": {"christian_perspective": True}, "disabled_skills": ["finance"]}, format="json")
    skills = {skill["name"]: skill for skill in api.get("/api/v1/skills/").json()}
    assert skills["spiritual"]["available"] is True
    assert (skills["finance"]["available"], skills["finance"]["disabled"]) == (False, True)


def test_a_skill_the_user_turned_off_is_never_detected(api: Any, conversation: Any, send: Any, shipped_skills: None) -> None:
    api.patch("/api/v1/me/", {"disabled_skills": ["finance"]}, format="json")
    send(api, conversation["id"], {"content": "Gastei 50 reais no mercado"})
    reply = Message.objects.filter(role="assistant").latest("id")
    assert "finance" not in reply.active_skills
    assert "create_expense" not in reply.tools_offered
    assert "- finance:" not in reply.system_prompt  # nor listed among the skills

    api.patch("/api/v1/me/", {"disabled_skills": []}, format="json")
    send(api, conversation["id"], {"content": "Gastei 50 reais no mercado"})
    assert Message.objects.filter(role="assistant").latest("id").active_skills == ["finance"]


def test_memory_can_be_listed_added_edited_and_deleted(api: Any, user: Any) -> None:
    old = KnowledgeItem.objects.create(owner=user, content="Trabalha como enfermeira", area="professional")
    created = api.post("/api/v1/memory/", {"kind": "preference", "area": "health", "content": "  Não come carne  "}, format="json")
    assert created.status_code == 201
    item = created.json()
    assert (item["kind"], item["area"], item["content"]) == ("preference", "health", "Não come carne")
    assert set(item) == {"id", "kind", "area", "content", "created_at", "updated_at"}

    page = api.get("/api/v1/memory/").json()
    assert set(page) == {"next", "previous", "results"}
    assert [i["id"] for i in page["results"]] == [item["id"], old.pk]  # newest first

    edited = api.patch(f"/api/v1/memory/{old.pk}/", {"content": "Trabalha como médica"}, format="json").json()
    assert (edited["content"], edited["area"]) == ("Trabalha como médica", "professional")
    assert api.get(f"/api/v1/memory/{old.pk}/").json()["content"] == "Trabalha como médica"

    assert api.delete(f"/api/v1/memory/{old.pk}/").status_code == 204
    assert not KnowledgeItem.objects.filter(pk=old.pk).exists()


def test_a_memory_post_defaults_to_a_general_fact(api: Any) -> None:
    item = api.post("/api/v1/memory/", {"content": "Chama-se Ana"}, format="json").json()
    assert (item["kind"], item["area"]) == ("fact", "general")


@pytest.mark.parametrize(
    "body",
    [{}, {"content": ""}, {"content": "   "}, {"content": "\u200b\u200b"}, {"content": " \u200d\u202e\ufeff "},
     {"content": 5}, {"content": "x", "kind": "secret"},
     {"content": "x", "area": "astral"}, {"content": "x" * 1001}, {"content": "x", "owner": 2}],
)
def test_a_bad_memory_item_gets_a_400(api: Any, body: Any) -> None:
    response = api.post("/api/v1/memory/", body, format="json")
    assert response.status_code == 400
    assert response.json()["detail"]
    assert not KnowledgeItem.objects.exists()


def test_another_users_memory_answers_404(api: Any, other_user: Any) -> None:
    theirs = KnowledgeItem.objects.create(owner=other_user, content="Segredo de Bruno")
    assert api.get(f"/api/v1/memory/{theirs.pk}/").status_code == 404
    assert api.patch(f"/api/v1/memory/{theirs.pk}/", {"content": "x"}, format="json").status_code == 404
    assert api.delete(f"/api/v1/memory/{theirs.pk}/").status_code == 404
    assert api.get("/api/v1/memory/").json()["results"] == []
    assert KnowledgeItem.objects.get(pk=theirs.pk).content == "Segredo de Bruno"


def test_saving_a_memory_item_unchanged_does_not_make_it_newer(api: Any) -> None:
    """Items are ranked newest first in the prompt: a client re-saving one promoted it."""
    item = api.post("/api/v1/memory/", {"kind": "fact", "content": "Mora em Curitiba"}, format="json").json()
    for body in ({}, {"content": "Mora em Curitiba"}):
        assert api.patch(f"/api/v1/memory/{item['id']}/", body, format="json").json()["updated_at"] == item["updated_at"]
    assert api.patch(f"/api/v1/memory/{item['id']}/", {"content": "Mora em Recife"}, format="json").json()["updated_at"] > item["updated_at"]


def test_memory_is_capped_per_user_with_a_clear_409(api: Any, user: Any, other_user: Any, settings: Any) -> None:
    """Memory creation has no throttle: without a cap one client could fill the table."""
    settings.MEMORY_MAX_ITEMS = 3
    for n in range(3):
        assert api.post("/api/v1/memory/", {"content": f"Fato {n}"}, format="json").status_code == 201
    KnowledgeItem.objects.create(owner=other_user, content="Outro usuário")  # others' items do not count

    refused = api.post("/api/v1/memory/", {"content": "Mais um"}, format="json", HTTP_ACCEPT_LANGUAGE="en")
    assert refused.status_code == 409
    assert "remembers 3 things" in refused.json()["detail"]
    assert KnowledgeItem.objects.filter(owner=user).count() == 3

    api.delete(f"/api/v1/memory/{KnowledgeItem.objects.filter(owner=user).first().pk}/")
    assert api.post("/api/v1/memory/", {"content": "Mais um"}, format="json").status_code == 201


def test_a_display_name_over_the_limit_is_refused_even_when_trimming_would_fit_it(api: Any, user: Any) -> None:
    # The schema's maxLength counts what is sent, spaces included.
    response = api.patch("/api/v1/me/", {"display_name": "\u00a0" + "a" * 80}, format="json")
    assert response.status_code == 400
    assert "display_name" in response.json()["errors"]
    assert Profile.for_user(user).display_name == ""
