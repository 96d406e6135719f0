"""The admin preview: type a message, see the skills, prompt, tools and fixed tokens it gets."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from skills.domain import BASE_TOOLS
from skills.models import Skill

pytestmark = pytest.mark.usefixtures("shipped_skills")



def preview_url(name: str | None = None) -> str:
    if name is None:
        return reverse("admin:skills_skill_preview")
    return reverse("admin:skills_skill_preview_object", args=[Skill.objects.get(name=name).pk])


def test_a_grocery_expense_activates_finance_at_temperature_0_3_with_its_token_count(admin_client: Any) -> None:
    response = admin_client.get(preview_url("finance"), {"message": "gastei 50 reais no mercado"})

    preview = response.context["preview"]
    assert preview.active == [{"name": "finance", "patterns": ["gastei", "=reais"]}]
    assert preview.reason == "trigger"
    assert preview.temperature == 0.3
    finance_tools = Skill.objects.get(name="finance").tools
    assert [tool["name"] for tool in preview.tools] == [*BASE_TOOLS, *finance_tools]
    assert 0 < preview.fixed_tokens < preview.monolithic_fixed_tokens
    page = response.content.decode()
    assert "“finance” is active for this message." in page
    assert f'<td class="fixed-tokens">{preview.fixed_tokens}</td>' in page
    assert f'<td class="monolithic-tokens">{preview.monolithic_fixed_tokens}</td>' in page
    assert '<td class="temperature">0.3</td>' in page
    assert "## Tom de Comunicação" in page


def test_the_preview_tells_when_the_skill_being_edited_does_not_activate(admin_client: Any) -> None:
    response = admin_client.get(preview_url("health"), {"message": "gastei 50 reais no mercado"})

    assert "“health” is not active for this message." in response.content.decode()


def test_a_message_that_fires_nothing_falls_back_to_general(admin_client: Any) -> None:
    response = admin_client.get(preview_url(), {"message": "me recomenda um filme"})

    preview = response.context["preview"]
    assert preview.active_names == ["general"]
    assert preview.reason == "fallback"
    assert [tool["name"] for tool in preview.tools] == list(BASE_TOOLS)
    assert preview.temperature is None


def test_two_domains_are_ordered_by_priority_with_the_lowest_temperature(admin_client: Any) -> None:
    response = admin_client.get(preview_url(), {"message": "Comprei remédio pra dor de cabeça, 40 reais"})

    preview = response.context["preview"]
    assert preview.active_names == ["finance", "health"]
    assert preview.temperature == 0.3
    assert len(preview.tools) == 3 + 5 + 4


def test_a_skill_needing_a_preference_stays_off_until_the_preference_is_ticked(admin_client: Any) -> None:
    without = admin_client.get(preview_url("spiritual"), {"message": "preciso rezar mais"}).context["preview"]
    with_preference = admin_client.get(
        preview_url("spiritual"), {"message": "preciso rezar mais", "preferences": ["christian_perspective"]}
    ).context["preview"]

    assert without.active_names == ["general"]
    assert without.excluded == [
        {
            "name": "spiritual",
            "patterns": ["reza"],
            "why": "requires the preference 'christian_perspective', which is off",
        }
    ]
    assert with_preference.active_names == ["spiritual"]
    assert with_preference.excluded == []


def test_the_preview_page_without_a_message_only_shows_the_form(admin_client: Any) -> None:
    response = admin_client.get(preview_url("finance"))

    assert response.status_code == 200
    assert response.context["preview"] is None
    assert 'name="message"' in response.content.decode()


def test_the_preview_reflects_a_saved_edit_at_once(admin_client: Any) -> None:
    Skill.objects.filter(name="health").update(temperature=0.2)
    health = Skill.objects.get(name="health")
    health.trigger_patterns = [*health.trigger_patterns, "xadrez"]
    health.save()

    preview = admin_client.get(preview_url(), {"message": "joguei xadrez"}).context["preview"]

    assert preview.active_names == ["health"]
    assert preview.temperature == 0.2


def test_the_preview_is_for_staff_only(client: Any, user: Any) -> None:
    client.force_login(user)

    response = client.get(preview_url(), {"message": "gastei 50 reais"})

    assert response.status_code == 302
    assert reverse("admin:login") in response["Location"]


def test_a_preview_of_a_non_numeric_skill_id_is_not_a_server_error(admin_client: Any) -> None:
    response = admin_client.get("/admin/skills/skill/abc/preview/", follow=True)

    assert response.status_code == 200
    assert response.redirect_chain[-1][0] == reverse("admin:index")
    assert "doesn’t exist" in response.content.decode()


@pytest.mark.parametrize("object_id", ["999999", "99999999999999999999999"])
def test_a_preview_of_a_missing_skill_is_not_found(admin_client: Any, object_id: str) -> None:
    assert admin_client.get(f"/admin/skills/skill/{object_id}/preview/").status_code == 404
