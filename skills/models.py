"""Skill rows: the SkillDefinition of the skills architecture (docs/specification.md, §4), editable in the admin."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator, ProhibitNullCharactersValidator, RegexValidator
from django.db import models

from lifeassistant.tools import REGISTRY

from .catalog_version import skills_changed
from .domain import FALLBACK_SKILL, HELP_NAMES, PREFERENCE_NAME, PROMPT_EXTENSION_MAX_CHARS, SkillDefinition, ToneConfig
from .matching import skill_references, validate_pattern

TONE_STYLE_CHOICES = [(c, c) for c in ("practical", "reflective", "empathetic", "hopeful", "direct", "celebratory")]
EMOJI_LEVEL_CHOICES = [(c, c) for c in ("none", "minimal", "moderate")]
RESPONSE_LENGTH_CHOICES = [(c, c) for c in ("concise", "moderate", "elaborated")]
FORMALITY_CHOICES = [(c, c) for c in ("informal", "careful-informal")]


PROTECTED_MESSAGE = (
    f"The fallback skill {FALLBACK_SKILL!r} answers every message no other skill claims: "
    "it cannot be deleted or disabled."
)


class FallbackSkillProtected(models.ProtectedError):
    """Raised when code tries to delete or disable the fallback skill."""

    def __init__(self, protected_objects: Iterable[Any] = ()) -> None:
        super().__init__(PROTECTED_MESSAGE, set(protected_objects))


class SkillQuerySet(models.QuerySet):
    """Bulk operations that keep the fallback skill: it is never deleted nor disabled."""

    def delete(self) -> tuple[int, dict[str, int]]:
        fallback = list(self.filter(name=FALLBACK_SKILL))
        if fallback:
            raise FallbackSkillProtected(fallback)
        return super().delete()

    delete.alters_data = True  # type: ignore[attr-defined]
    delete.queryset_only = True  # type: ignore[attr-defined]

    def update(self, **kwargs: Any) -> int:
        if kwargs.get("enabled") is False:
            fallback = list(self.filter(name=FALLBACK_SKILL))
            if fallback:
                raise FallbackSkillProtected(fallback)
        updated = super().update(**kwargs)
        if updated:
            skills_changed()  # no signal tells the processes' catalogs about a bulk update
        return updated

    update.alters_data = True  # type: ignore[attr-defined]


def unknown_tools(names: Iterable[str]) -> list[str]:
    """The names that no registered tool has (see lifeassistant.tools.REGISTRY)."""
    known = set(REGISTRY.names())
    return [name for name in names if name not in known]


def _text_items_error(value: Any) -> str | None:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        return "Enter a list of text items."
    # The form field's NUL check reads the list's repr, where a NUL is escaped;
    # PostgreSQL cannot store one (a 500 on save).
    if any("\x00" in item for item in value):
        return str(ProhibitNullCharactersValidator.message)
    return None


def referring_skills(names: set[str]) -> dict[str, list[str]]:
    """The other skills whose compound patterns name any of ``names`` (``@finance``):
    skill name → the names it refers to."""
    referring: dict[str, list[str]] = {}
    for skill in Skill.objects.exclude(name__in=names).only("name", "trigger_patterns"):
        named = sorted({name for pattern in skill.trigger_patterns for name in skill_references(pattern)} & names)
        if named:
            referring[skill.name] = named
    return referring


class Skill(models.Model):
    """A package of tools, prompt and tone that activates for one domain of conversation.

    The fallback skill ``general`` answers whatever no other skill claims, so it can be
    neither deleted nor disabled: ``clean()``, ``save()``, ``delete()`` and the queryset's
    bulk ``delete()``/``update(enabled=False)`` refuse to.
    """

    name = models.SlugField(max_length=64, unique=True, validators=[RegexValidator(r"^[a-z0-9_-]+$")])
    description = models.TextField(help_text="When this skill applies; shown to the router and in the skills prompt.")
    description_en = models.TextField(
        "description (English)", blank=True,
        help_text="The description in English, for people reading the app in English; empty = the description.",
    )
    trigger_patterns = models.JSONField(default=list, blank=True)
    tools = models.JSONField(default=list, blank=True, help_text="Tool names added to the base tools.")
    prompt_extension = models.TextField(blank=True)
    tone_style = models.CharField(max_length=16, choices=TONE_STYLE_CHOICES, default="practical")
    tone_emoji_level = models.CharField(max_length=16, choices=EMOJI_LEVEL_CHOICES, default="minimal")
    tone_response_length = models.CharField(max_length=16, choices=RESPONSE_LENGTH_CHOICES, default="moderate")
    tone_formality = models.CharField(max_length=20, choices=FORMALITY_CHOICES, default="informal")
    temperature = models.FloatField(
        null=True, blank=True, validators=[MinValueValidator(0.0), MaxValueValidator(2.0)]
    )
    requires_user_preference = models.CharField(max_length=64, blank=True)
    priority = models.PositiveSmallIntegerField(default=5, help_text="Lower number = higher priority.")
    enabled = models.BooleanField(default=True)
    examples = models.JSONField(default=list, blank=True, help_text="Example phrases for the semantic router.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = SkillQuerySet.as_manager()

    class Meta:
        ordering = ["priority", "name"]

    def __str__(self) -> str:
        return self.name

    @property
    def is_fallback(self) -> bool:
        """Whether this is the fallback skill, which must always exist and be enabled."""
        return self.name == FALLBACK_SKILL or self._stored_name() == FALLBACK_SKILL

    def _stored_name(self) -> str | None:
        if self.pk is None:
            return None
        return type(self).objects.filter(pk=self.pk).values_list("name", flat=True).first()

    def clean(self) -> None:
        """Check what the field types cannot: patterns, tool names, the fallback rules."""
        errors: dict[str, list[str]] = {}
        for field in ("trigger_patterns", "tools", "examples"):
            problem = _text_items_error(getattr(self, field))
            if problem:
                errors.setdefault(field, []).append(problem)
        if "trigger_patterns" not in errors:
            for pattern in self.trigger_patterns:
                reason = validate_pattern(pattern)
                if reason is not None:
                    errors.setdefault("trigger_patterns", []).append(f"Pattern {pattern!r}: {reason}.")
            if "trigger_patterns" not in errors:
                self._check_skill_references(errors)
        if "tools" not in errors:
            missing = unknown_tools(self.tools)
            if missing:
                errors.setdefault("tools", []).append(
                    f"Unknown tool{'s' if len(missing) > 1 else ''}: {', '.join(missing)}. "
                    "Use the names of registered tools."
                )
        if self.requires_user_preference and not PREFERENCE_NAME.match(self.requires_user_preference):
            errors.setdefault("requires_user_preference", []).append(
                "Use a preference name as users set them: lower-case letters, digits and _, starting with a letter."
            )
        if len(self.prompt_extension) > PROMPT_EXTENSION_MAX_CHARS:
            errors.setdefault("prompt_extension", []).append(
                f"At most {PROMPT_EXTENSION_MAX_CHARS:,} characters (this one has {len(self.prompt_extension):,})."
            )
        if self.name in HELP_NAMES:
            errors.setdefault("name", []).append(f"/{self.name} is the help command: choose another name.")
        stored_name = self._stored_name()
        if stored_name == FALLBACK_SKILL and self.name != FALLBACK_SKILL:
            errors.setdefault("name", []).append(
                f"The fallback skill {FALLBACK_SKILL!r} cannot be renamed."
            )
        if stored_name is not None and stored_name != self.name:
            referring = referring_skills({stored_name})
            if referring:
                errors.setdefault("name", []).append(
                    f"{', '.join(sorted(referring))} name this skill in compound patterns (@{stored_name}): "
                    "change those patterns first, or they would never fire again."
                )
        if FALLBACK_SKILL in (self.name, stored_name) and not self.enabled:
            errors.setdefault("enabled", []).append(PROTECTED_MESSAGE)
        if errors:
            raise ValidationError(errors)

    def _check_skill_references(self, errors: dict[str, list[str]]) -> None:
        """Each ``@name`` of a compound pattern must name another, existing skill."""
        referenced = {
            pattern: skill_references(pattern) for pattern in self.trigger_patterns
        }
        wanted = {name for names in referenced.values() for name in names}
        existing = set(type(self).objects.filter(name__in=wanted).values_list("name", flat=True))
        for pattern, names in referenced.items():
            for name in names:
                if name == self.name:
                    problem = f"'@{name}' is this skill itself; its own patterns already fire it"
                elif name not in existing:
                    problem = f"there is no skill named {name!r}"
                else:
                    continue
                errors.setdefault("trigger_patterns", []).append(f"Pattern {pattern!r}: {problem}.")

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self.name == FALLBACK_SKILL and not self.enabled:
            raise ValidationError({"enabled": [PROTECTED_MESSAGE]})
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        if self.is_fallback:
            raise FallbackSkillProtected([self])
        return super().delete(*args, **kwargs)

    def to_definition(self) -> SkillDefinition:
        """The plain, ORM-free definition used by matching and composition."""
        return SkillDefinition(
            name=self.name,
            description=self.description,
            trigger_patterns=tuple(self.trigger_patterns or ()),
            tools=tuple(self.tools or ()),
            prompt_extension=self.prompt_extension,
            tone=ToneConfig(
                style=self.tone_style,
                emoji_level=self.tone_emoji_level,
                response_length=self.tone_response_length,
                formality=self.tone_formality,
            ),
            temperature=self.temperature,
            requires_user_preference=self.requires_user_preference or None,
            priority=self.priority,
            enabled=self.enabled,
            examples=tuple(self.examples or ()),
            description_en=self.description_en,
        )
