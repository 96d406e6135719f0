"""Skills in the admin: edit them, preview what a message activates, and see their usage."""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from django.conf import settings
from django.contrib import admin, messages
from django.contrib.admin.actions import delete_selected
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path

from lifeassistant.admin_pages import model_page

from .domain import BASE_TOOLS, FALLBACK_SKILL
from .forms import PreviewForm, SkillForm
from .models import PROTECTED_MESSAGE, Skill, referring_skills
from .services import current_catalog, plan_skills
from .usage import REASON_HELP

@dataclass(frozen=True)
class Preview:
    """What the skills pipeline decides for one message of a fresh conversation."""

    message: str
    preferences: dict[str, bool]
    reason: str
    reason_help: str
    active: list[dict[str, Any]]
    excluded: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    temperature: float | None
    tone: Any
    system_prompt: str
    fixed_tokens: int
    monolithic_fixed_tokens: int

    @property
    def active_names(self) -> list[str]:
        return [skill["name"] for skill in self.active]

    @property
    def saving_percent(self) -> float | None:
        if not self.monolithic_fixed_tokens:
            return None
        return 100.0 * (1 - self.fixed_tokens / self.monolithic_fixed_tokens)


def build_preview(message: str, preferences: dict[str, bool]) -> Preview:
    """Run the real planner (saved skills, no inertia, no router) on ``message``."""
    fresh_conversation = SimpleNamespace(
        active_skills=[], skills_detected_at=None, messages_since_detection=0, skills_quiet_for=[]
    )
    plan = plan_skills(conversation=fresh_conversation, text=message, preferences=preferences)
    matched = dict(plan.decision.matched) if plan.decision else {}
    composition = plan.composition
    active_names = list(composition.skill_names) if plan.decision else []
    active = [
        {"name": name, "patterns": list(matched.get(name, ()))} for name in active_names
    ]
    catalog = {skill.name: skill for skill in current_catalog().skills}
    excluded = []
    for name, patterns in matched.items():
        if name in active_names:
            continue
        skill = catalog.get(name)
        required = skill.requires_user_preference if skill else None
        why = (
            f"requires the preference {required!r}, which is off"
            if required
            else "not enabled"
        )
        excluded.append({"name": name, "patterns": list(patterns), "why": why})
    base = set(BASE_TOOLS)
    tools = [
        {"name": name, "base": name in base, "description": _tool_description(tool)}
        for name, tool in zip(composition.tool_names, composition.tools)
    ]
    return Preview(
        message=message,
        preferences=preferences,
        reason=plan.reason,
        reason_help=REASON_HELP.get(plan.reason, ""),
        active=active,
        excluded=excluded,
        tools=tools,
        temperature=composition.temperature,
        tone=composition.tone,
        system_prompt=composition.system_prompt,
        fixed_tokens=plan.fixed_tokens,
        monolithic_fixed_tokens=plan.monolithic_fixed_tokens,
    )


def _tool_description(definition: dict[str, Any]) -> str:
    description = str(definition.get("function", {}).get("description", ""))
    first_line = description.strip().splitlines()[0] if description.strip() else ""
    return first_line[:160]


def _delete_selected_keeping_fallback(
    modeladmin: SkillAdmin, request: HttpRequest, queryset: QuerySet[Skill]
) -> HttpResponse | None:
    """The stock bulk delete, with the fallback skill left out (and the user told so)."""
    if queryset.filter(name=FALLBACK_SKILL).exists():
        modeladmin.message_user(
            request, f"{PROTECTED_MESSAGE} It was left out of the deletion.", messages.WARNING
        )
        queryset = queryset.exclude(name=FALLBACK_SKILL)
        if not queryset.exists():
            return None
    return delete_selected(modeladmin, request, queryset)


@admin.register(Skill)
class SkillAdmin(admin.ModelAdmin):
    form = SkillForm
    list_display = [
        "name",
        "priority",
        "enabled",
        "temperature",
        "tone_style",
        "pattern_count",
        "tool_list",
        "requires_user_preference",
        "updated_at",
    ]
    list_display_links = ["name"]
    list_filter = ["enabled", "tone_style", "tone_response_length", "requires_user_preference"]
    search_fields = ["name", "description", "prompt_extension", "trigger_patterns", "tools"]
    ordering = ["priority", "name"]
    readonly_fields = ["created_at", "updated_at"]
    fieldsets = [
        (None, {"fields": ["name", "description", "description_en", "enabled", "priority"]}),
        (
            "Detection",
            {
                "fields": ["trigger_patterns", "requires_user_preference"],
                "description": "Trigger patterns decide when the skill activates: a plain pattern "
                "matches at the start of a word, <code>=word</code> only the whole word, a pattern "
                "with spaces is a phrase; case and accents are ignored (details under the field). "
                "Try them with “Preview a message” above.",
            },
        ),
        (
            "Behaviour",
            {
                "fields": [
                    "tools",
                    "prompt_extension",
                    "temperature",
                    ("tone_style", "tone_emoji_level", "tone_response_length", "tone_formality"),
                ],
                "description": "What the assistant gains while the skill is active. With several "
                "active skills, tools add up, the lowest temperature wins and the skill with the "
                "lowest priority number sets the tone.",
            },
        ),
        ("Semantic router", {"fields": ["examples"], "classes": ["collapse"]}),
        ("History", {"fields": ["created_at", "updated_at"], "classes": ["collapse"]}),
    ]

    @admin.display(description="patterns")
    def pattern_count(self, skill: Skill) -> int:
        return len(skill.trigger_patterns or ())

    @admin.display(description="tools")
    def tool_list(self, skill: Skill) -> str:
        return ", ".join(skill.tools or ()) or "—"

    # The fallback skill: never deleted, whatever the path.

    def has_delete_permission(self, request: HttpRequest, obj: Skill | None = None) -> bool:
        if obj is not None and obj.is_fallback:
            return False
        return super().has_delete_permission(request, obj)

    def get_actions(self, request: HttpRequest) -> dict[str, Any]:
        # Loosely typed: the stubs declare action callables as returning str, while admin
        # actions return an HttpResponse or None.
        actions: dict[str, Any] = super().get_actions(request)
        if "delete_selected" in actions:
            _, name, description = actions["delete_selected"]
            actions["delete_selected"] = (_delete_selected_keeping_fallback, name, description)
        return actions

    def get_deleted_objects(self, objs: Any, request: HttpRequest) -> tuple[Any, Any, Any, Any]:
        """A skill another one names in a compound pattern (``@finance``) is protected like a
        row a foreign key protects: the admin lists who names it and refuses the delete."""
        to_delete, model_count, perms_needed, protected = super().get_deleted_objects(objs, request)
        for name, named in referring_skills({skill.name for skill in objs}).items():
            protected.append(f"{name}: its trigger patterns name {', '.join('@' + n for n in named)}")
        return to_delete, model_count, perms_needed, protected

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Skill]) -> None:
        super().delete_queryset(request, queryset.exclude(name=FALLBACK_SKILL))

    # An extra page: the preview. (The usage dashboard reads the messages' ledger: chat's admin.)

    def get_urls(self) -> list[Any]:
        info = self.opts.app_label, self.opts.model_name
        extra = [
            path(
                "preview/",
                model_page(self, self.preview_view),
                name="%s_%s_preview" % info,
            ),
            path(
                "<int:object_id>/preview/",
                model_page(self, self.preview_view),
                name="%s_%s_preview_object" % info,
            ),
        ]
        return extra + super().get_urls()

    def _page_context(self, request: HttpRequest, title: str, **extra: Any) -> dict[str, Any]:
        return {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": title,
            "has_view_permission": self.has_view_permission(request),
            **extra,
        }

    def preview_view(self, request: HttpRequest, object_id: int | None = None) -> HttpResponse:
        skill = get_object_or_404(Skill, pk=object_id) if object_id is not None else None
        preference_names = sorted(
            set(
                Skill.objects.exclude(requires_user_preference="").values_list(
                    "requires_user_preference", flat=True
                )
            )
        )
        form = PreviewForm(
            request.GET if "message" in request.GET else None, preference_names=preference_names
        )
        preview = None
        if form.is_valid():
            preview = build_preview(form.cleaned_data["message"], form.preference_flags())
        title = f"Preview: {skill.name}" if skill else "Preview skill detection"
        context = self._page_context(
            request,
            title,
            form=form,
            preview=preview,
            skill=skill,
            skill_active=bool(preview and skill and skill.name in preview.active_names),
            skills_enabled=settings.SKILLS_ENABLED,
            inertia_messages=settings.SKILL_INERTIA_MESSAGES,
        )
        return TemplateResponse(request, "admin/skills/skill/preview.html", context)
