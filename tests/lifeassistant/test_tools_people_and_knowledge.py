"""Memory and people tools over the user's own facts and contacts."""

from __future__ import annotations

from typing import Any

import pytest

from lifeassistant.tools import REGISTRY, ToolContext
from lifeassistant.models import KnowledgeItem, Person

pytestmark = pytest.mark.django_db


def run(user: Any, tool: str, /, **arguments: Any) -> Any:
    outcome = REGISTRY.execute(tool, arguments, ToolContext(user, None, None))
    return outcome.result if outcome.ok else outcome.error


def test_a_fact_is_remembered_once(user: Any) -> None:
    first = run(user, "add_knowledge", content="Prefere café sem açúcar", area="health", kind="preference")
    second = run(user, "add_knowledge", content="prefere café sem açúcar")

    assert first["status"] == "saved"
    assert second["status"] == "already_known"
    assert KnowledgeItem.objects.count() == 1


def test_search_finds_the_users_facts_by_words_ignoring_accents(user: Any, other_user: Any) -> None:
    KnowledgeItem.objects.create(owner=user, content="Quer quitar o cartão até dezembro", area="finance", kind="goal")
    KnowledgeItem.objects.create(owner=user, content="Gosta de correr de manhã", area="health")
    KnowledgeItem.objects.create(owner=other_user, content="Cartao do Bruno", area="finance")

    found = run(user, "search_knowledge", query="cartao")

    assert [item["content"] for item in found["items"]] == ["Quer quitar o cartão até dezembro"]


def test_a_new_person_is_added_and_later_updated_by_name(user: Any) -> None:
    run(user, "update_person", name="Mãe", relationship="mãe", facts={"gosta de": "orquídeas"})
    result = run(user, "update_person", name="mãe", notes="Aniversário de 60 anos em março", birthday="1965-03-10")

    person = Person.objects.get()
    assert result["status"] == "updated"
    assert person.facts == {"gosta de": "orquídeas"}
    assert person.notes == "Aniversário de 60 anos em março"
    assert person.birthday.isoformat() == "1965-03-10"


def test_a_person_is_found_by_relationship_with_related_facts(user: Any) -> None:
    Person.objects.create(owner=user, name="Carla", relationship="irmã")
    KnowledgeItem.objects.create(owner=user, content="Carla mora em Recife")

    found = run(user, "get_person", name="irma")

    assert found["found"] is True
    assert found["people"][0]["name"] == "Carla"
    assert found["related_knowledge"][0]["content"] == "Carla mora em Recife"


def test_another_users_person_is_neither_read_nor_changed(user: Any, other_user: Any) -> None:
    theirs = Person.objects.create(owner=other_user, name="Carla", relationship="irmã")

    assert run(user, "get_person", name="Carla") == {"found": False, "name": "Carla", "people": []}
    assert run(user, "get_person", person_id=theirs.pk) == f"No person with id {theirs.pk} was found."
    assert run(user, "update_person", person_id=theirs.pk, notes="x") == f"No person with id {theirs.pk} was found."
    theirs.refresh_from_db()
    assert theirs.notes == ""


def test_a_full_memory_refuses_a_new_fact_and_says_why(user: Any, settings: Any) -> None:
    settings.MEMORY_MAX_ITEMS = 1
    assert run(user, "add_knowledge", content="Mora em Recife")["status"] == "saved"
    assert run(user, "add_knowledge", content="mora em recife")["status"] == "already_known"

    error = run(user, "add_knowledge", content="Tem dois gatos")
    assert "Memory is full (1 items)" in error
    assert KnowledgeItem.objects.filter(owner=user).count() == 1
