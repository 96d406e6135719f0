"""Skill rows: the SkillDefinition of the skills architecture, editable in the admin."""

from __future__ import annotations

from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.db import models

from .domain import SkillDefinition, ToneConfig

TONE_STYLE_CHOICES = [(c, c) for c in ("practical", "reflective", "empathetic", "hopeful", "direct", "celebratory")]
EMOJI_LEVEL_CHOICES = [(c, c) for c in ("none", "minimal", "moderate")]
RESPONSE_LENGTH_CHOICES = [(c, c) for c in ("concise", "moderate", "elaborated")]
FORMALITY_CHOICES = [(c, c) for c in ("informal", "careful-informal")]


class Skill(models.Model):
    """A package of tools, prompt and tone that activates for one domain of conversation."""

    name = models.SlugField(max_length=64, unique=True, validators=[RegexValidator(r"^[a-z0-9_-]+$")])
    description = models.TextField(help_text="When this skill applies; shown to the router and in the skills prompt.")
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

    class Meta:
        ordering = ["priority", "name"]

    def __str__(self) -> str:
        return self.name

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
        )
