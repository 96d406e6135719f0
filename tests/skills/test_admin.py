"""Staff edit skills in the admin: lists, one-item-per-line fields, validation, the fallback."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.db.models import ProtectedError
from django.urls import reverse

from skills.models import Skill

pytestmark = pytest.mark.usefixtures("shipped_skills")

CHANGELIST = reverse("admin:skills_skill_changelist")



def change_url(name: str) -> str:
    return reverse("admin:skills_skill_change", args=[Skill.objects.get(name=name).pk])


def form_data(skill_name: str, **overrides: Any) -> dict[str, Any]:
    """The change form as the admin page would post it, for the stored skill ``skill_name``."""
    skill = Skill.objects.get(name=skill_name)
    data = {
        "name": skill.name,
        "description": skill.description,
        "priority": skill.priority,
        "trigger_patterns": "\n".join(skill.trigger_patterns),
        "requires_user_preference": skill.requires_user_preference,
        "tools": "\n".join(skill.tools),
        "prompt_extension": skill.prompt_extension,
        "temperature": "" if skill.temperature is None else skill.temperature,
        "tone_style": skill.tone_style,
        "tone_emoji_level": skill.tone_emoji_level,
        "tone_response_length": skill.tone_response_length,
        "tone_formality": skill.tone_formality,
        "examples": "\n".join(skill.examples),
        "_save": "Save",
    }
    if skill.enabled:
        data["enabled"] = "on"
    data.update(overrides)
    return {key: value for key, value in data.items() if value is not None}


def errors_of(response: Any) -> dict[str, list[str]]:
    return {field: list(messages) for field, messages in response.context["adminform"].form.errors.items()}


def test_the_changelist_lists_every_shipped_skill_with_its_links_to_preview_and_usage(admin_client: Any) -> None:
    response = admin_client.get(CHANGELIST)

    assert response.status_code == 200
    listed = {skill.name for skill in response.context["cl"].result_list}
    assert listed == {"general", "finance", "health", "counselor", "professional", "relationships", "spiritual"}
    assert reverse("admin:skills_skill_preview").encode() in response.content
    assert reverse("admin:chat_message_skill_usage").encode() in response.content


def test_searching_the_changelist_finds_skills_by_trigger_pattern(admin_client: Any) -> None:
    response = admin_client.get(CHANGELIST, {"q": "insonia"})

    # Health has the pattern; the counselor's compound pattern about sleep and debts names it.
    assert [skill.name for skill in response.context["cl"].result_list] == ["counselor", "health"]


def test_filtering_the_changelist_shows_only_disabled_skills(admin_client: Any) -> None:
    Skill.objects.filter(name="professional").update(enabled=False)

    response = admin_client.get(CHANGELIST, {"enabled__exact": "0"})

    assert [skill.name for skill in response.context["cl"].result_list] == ["professional"]


def test_the_change_page_shows_patterns_one_per_line_and_documents_their_syntax(admin_client: Any) -> None:
    response = admin_client.get(change_url("finance"))

    form = response.context["adminform"].form
    assert form["trigger_patterns"].value().splitlines()[:3] == ["gasta", "gastei", "gastou"]
    content = response.content.decode()
    assert "WHOLE word" in content and "START of a word" in content and "accents are ignored" in content
    assert "exclusion" in content and "compound pattern" in content
    assert reverse("admin:skills_skill_preview_object", args=[Skill.objects.get(name="finance").pk]) in content


def test_saving_lines_stores_them_as_a_list_without_blanks_or_repeats(admin_client: Any) -> None:
    response = admin_client.post(
        change_url("professional"),
        form_data("professional", trigger_patterns="  reuniao \n\n=chefe\nreuniao\nprazo final\n"),
    )

    assert response.status_code == 302, errors_of(response)
    assert Skill.objects.get(name="professional").trigger_patterns == ["reuniao", "=chefe", "prazo final"]


@pytest.mark.parametrize("field", ["trigger_patterns", "examples"])
def test_a_nul_in_a_list_field_is_a_field_error_not_a_500_on_postgresql(admin_client: Any, field: str) -> None:
    response = admin_client.post(change_url("finance"), form_data("finance", **{field: "gasto\nab\x00c"}))

    assert response.status_code == 200
    assert errors_of(response)[field] == ["Null characters are not allowed."]
    assert all("\x00" not in item for item in getattr(Skill.objects.get(name="finance"), field))


def test_an_unknown_tool_is_refused_with_its_name(admin_client: Any) -> None:
    response = admin_client.post(
        change_url("finance"), form_data("finance", tools="create_expense\nsend_money_abroad")
    )

    assert response.status_code == 200
    assert errors_of(response)["tools"] == [
        "Unknown tool: send_money_abroad. Use the names of registered tools."
    ]
    assert "send_money_abroad" not in Skill.objects.get(name="finance").tools


def test_a_temperature_above_two_is_refused(admin_client: Any) -> None:
    response = admin_client.post(change_url("finance"), form_data("finance", temperature="2.5"))

    assert errors_of(response)["temperature"] == ["Ensure this value is less than or equal to 2.0."]
    assert Skill.objects.get(name="finance").temperature == 0.3


def test_a_preference_no_user_could_set_and_an_oversized_prompt_are_refused(admin_client: Any) -> None:
    response = admin_client.post(
        change_url("spiritual"),
        form_data("spiritual", requires_user_preference="Bad Pref!", prompt_extension="x" * 20_001),
    )

    errors = errors_of(response)
    assert errors["requires_user_preference"] == [
        "Use a preference name as users set them: lower-case letters, digits and _, starting with a letter."
    ]
    assert errors["prompt_extension"] == ["At most 20,000 characters (this one has 20,001)."]
    assert Skill.objects.get(name="spiritual").requires_user_preference == "christian_perspective"


def test_a_malformed_pattern_is_refused_with_the_reason(admin_client: Any) -> None:
    response = admin_client.post(change_url("health"), form_data("health", trigger_patterns="=sono\n=\n!!!"))

    assert errors_of(response)["trigger_patterns"] == [
        "Pattern '=': '=' must be followed by a word.",
        "Pattern '!!!': a pattern needs at least one letter or digit.",
    ]


def test_exclusions_and_compound_patterns_are_saved_as_written(admin_client: Any) -> None:
    patterns = "=promocao\n!na promocao\ninsonia | =sono & por causa & @finance"
    response = admin_client.post(change_url("health"), form_data("health", trigger_patterns=patterns))

    assert response.status_code == 302, errors_of(response)
    assert Skill.objects.get(name="health").trigger_patterns == patterns.splitlines()


def test_a_compound_pattern_naming_a_missing_skill_or_its_own_is_refused(admin_client: Any) -> None:
    response = admin_client.post(
        change_url("health"),
        form_data("health", trigger_patterns="sono & @travel\nsono & @health | @finance\nsono & !x"),
    )

    assert response.status_code == 200
    assert errors_of(response)["trigger_patterns"] == [
        "Pattern 'sono & !x': an exclusion ('!') cannot be part of a compound pattern.",
    ]
    response = admin_client.post(
        change_url("health"), form_data("health", trigger_patterns="sono & @travel\nsono & @health | @finance")
    )
    assert errors_of(response)["trigger_patterns"] == [
        "Pattern 'sono & @travel': there is no skill named 'travel'.",
        "Pattern 'sono & @health | @finance': '@health' is this skill itself; its own patterns already fire it.",
    ]
    assert "sono & @travel" not in Skill.objects.get(name="health").trigger_patterns


def test_an_unknown_tone_choice_is_refused(admin_client: Any) -> None:
    response = admin_client.post(change_url("health"), form_data("health", tone_style="sarcastic"))

    assert errors_of(response)["tone_style"] == [
        "Select a valid choice. sarcastic is not one of the available choices."
    ]


def test_the_fallback_skill_cannot_be_disabled_in_the_admin(admin_client: Any) -> None:
    data = form_data("general")
    data.pop("enabled")

    response = admin_client.post(change_url("general"), data)

    assert response.status_code == 200
    assert "cannot be deleted or disabled" in errors_of(response)["enabled"][0]
    assert Skill.objects.get(name="general").enabled is True


def test_the_fallback_skill_cannot_be_renamed_in_the_admin(admin_client: Any) -> None:
    response = admin_client.post(change_url("general"), form_data("general", name="casual"))

    assert errors_of(response)["name"] == ["The fallback skill 'general' cannot be renamed."]
    assert Skill.objects.filter(name="general").exists()


@pytest.mark.parametrize("name", ["help", "ajuda", "ayuda"])
def test_a_skill_cannot_take_a_name_of_the_help_command(admin_client: Any, name: str) -> None:
    response = admin_client.post(change_url("finance"), form_data("finance", name=name))

    assert f"/{name} is the help command: choose another name." in errors_of(response)["name"]
    assert Skill.objects.filter(name="finance").exists()


def test_the_fallback_skill_has_no_delete_page(admin_client: Any) -> None:
    pk = Skill.objects.get(name="general").pk

    response = admin_client.post(reverse("admin:skills_skill_delete", args=[pk]), {"post": "yes"})

    assert response.status_code == 403
    assert Skill.objects.filter(name="general").exists()


def test_another_skill_can_still_be_deleted(admin_client: Any) -> None:
    pk = Skill.objects.get(name="spiritual").pk  # no compound pattern names it

    response = admin_client.post(reverse("admin:skills_skill_delete", args=[pk]), {"post": "yes"})

    assert response.status_code == 302
    assert not Skill.objects.filter(name="spiritual").exists()


def test_bulk_delete_removes_the_others_and_keeps_the_fallback_with_a_warning(admin_client: Any) -> None:
    selected = list(Skill.objects.filter(name__in=["general", "spiritual"]).values_list("pk", flat=True))

    confirm = admin_client.post(CHANGELIST, {"action": "delete_selected", "_selected_action": selected})
    assert "cannot be deleted or disabled" in confirm.content.decode()
    assert [skill.name for skill in confirm.context["queryset"]] == ["spiritual"]
    admin_client.post(
        CHANGELIST,
        {"action": "delete_selected", "_selected_action": [s.pk for s in confirm.context["queryset"]], "post": "yes"},
    )

    assert set(Skill.objects.values_list("name", flat=True)) == {
        "general", "finance", "health", "counselor", "professional", "relationships",
    }


def test_bulk_delete_of_only_the_fallback_deletes_nothing(admin_client: Any) -> None:
    pk = Skill.objects.get(name="general").pk

    response = admin_client.post(CHANGELIST, {"action": "delete_selected", "_selected_action": [pk]}, follow=True)

    assert "cannot be deleted or disabled" in response.content.decode()
    assert Skill.objects.count() == 7


def test_the_model_refuses_to_delete_or_disable_the_fallback_skill_outside_the_admin() -> None:
    general = Skill.objects.get(name="general")

    with pytest.raises(ProtectedError):
        general.delete()
    with pytest.raises(ProtectedError):
        Skill.objects.filter(name__in=["general", "finance"]).delete()
    with pytest.raises(ProtectedError):
        Skill.objects.all().update(enabled=False)
    general.enabled = False
    with pytest.raises(ValidationError):
        general.full_clean()
    with pytest.raises(ValidationError):
        general.save()

    assert Skill.objects.filter(enabled=True).count() == 7


def test_anonymous_visitors_are_sent_to_the_admin_login(client: Any) -> None:
    response = client.get(CHANGELIST)

    assert response.status_code == 302
    assert reverse("admin:login") in response["Location"]


def test_staff_can_create_a_skill_from_lines_and_it_detects_at_once(admin_client: Any) -> None:
    from skills.services import current_catalog

    response = admin_client.post(
        reverse("admin:skills_skill_add"),
        {
            "name": "pets",
            "description": "Animais de estimação.",
            "enabled": "on",
            "priority": "5",
            "trigger_patterns": "cachorr\n=gato\nveterinari",
            "tools": "add_knowledge",
            "temperature": "0.5",
            "tone_style": "empathetic",
            "tone_emoji_level": "minimal",
            "tone_response_length": "concise",
            "tone_formality": "informal",
            "examples": "meu cachorro está doente",
            "_save": "Save",
        },
    )

    assert response.status_code == 302
    assert Skill.objects.get(name="pets").trigger_patterns == ["cachorr", "=gato", "veterinari"]
    assert current_catalog().matcher.match("levei o gato ao veterinário") == {"pets": ("=gato", "veterinari")}


def test_a_skill_another_names_in_a_compound_can_be_neither_deleted_nor_renamed(admin_client: Any) -> None:
    """The shipped counselor names @finance: deleting or renaming finance silently left that
    pattern firing never again, and the next save of counselor failed."""
    delete_page = admin_client.get(reverse("admin:skills_skill_delete", args=[Skill.objects.get(name="finance").pk]))
    assert "counselor: its trigger patterns name @finance" in delete_page.content.decode()
    admin_client.post(reverse("admin:skills_skill_delete", args=[Skill.objects.get(name="finance").pk]), {"post": "yes"})
    assert Skill.objects.filter(name="finance").exists()

    response = admin_client.post(change_url("finance"), form_data("finance", name="money"))

    assert response.status_code == 200
    assert errors_of(response)["name"][0].startswith("counselor, health name this skill in compound patterns (@finance)")
    assert Skill.objects.filter(name="finance").exists()
