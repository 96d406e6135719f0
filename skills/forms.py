"""Admin forms for skills: one-item-per-line lists, the preview and the usage period."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

from django import forms
from django.core.exceptions import ValidationError

from lifeassistant.tools import REGISTRY

from .models import Skill

PATTERN_SYNTAX_HELP = (
    "One pattern per line. Case and accents are ignored on both sides "
    "(<code>divida</code> matches “Dívidas”). "
    "A plain pattern matches at the START of a word: <code>gast</code> fires on “gastei” and "
    "“gastos”, never inside a word. "
    "<code>=word</code> matches only the WHOLE word: <code>=pai</code> fires on “meu pai”, "
    "not on “paisagem”. "
    "A pattern with spaces is a phrase whose words must follow each other: "
    "<code>não sei o que fazer</code>; its last word is a word start unless the pattern "
    "starts with <code>=</code>. Punctuation counts: the phrase does not fire across a comma. "
    "<code>!na promoção</code> is an exclusion: where it matches, this skill's other patterns "
    "touching the same words do not fire (with <code>=promoção</code>, “ganhei uma promoção” "
    "fires, “comprei na promoção” does not). "
    "A compound pattern joins parts with <code>&amp;</code>, all of which must be found, in any "
    "order; a part lists alternatives with <code>|</code>; <code>@finance</code> is found when "
    "the finance skill's own patterns fired: "
    "<code>insônia | =sono &amp; por causa | because &amp; @finance</code>. "
    "At most 100 characters (a compound pattern 300), with at least one letter or digit."
)


class LinesField(forms.CharField):
    """A JSON list of strings edited as a textarea, one item per line.

    Surrounding spaces are trimmed, blank lines dropped and repeated lines kept once.
    """

    widget = forms.Textarea

    def __init__(self, *, rows: int = 8, **kwargs: Any) -> None:
        kwargs.setdefault("required", False)
        kwargs.setdefault("strip", False)
        super().__init__(**kwargs)
        self.widget.attrs.update({"rows": rows, "cols": 60, "spellcheck": "false"})

    def prepare_value(self, value: Any) -> Any:
        if isinstance(value, (list, tuple)):
            return "\n".join(str(item) for item in value)
        return value

    # Cleans to a list, not a string: CharField is kept for its widget and keyword arguments.
    def to_python(self, value: Any) -> list[str]:  # type: ignore[override]
        if isinstance(value, (list, tuple)):
            lines = [str(item) for item in value]
        else:
            lines = str(value or "").splitlines()
        items = (line.strip() for line in lines)
        return list(dict.fromkeys(item for item in items if item))

    def has_changed(self, initial: Any, data: Any) -> bool:
        return self.to_python(initial) != self.to_python(data)


class SkillForm(forms.ModelForm):
    """The skill change form; validation lives in ``Skill.clean()`` so every path shares it."""

    trigger_patterns = LinesField(rows=14, help_text=PATTERN_SYNTAX_HELP)
    tools = LinesField(
        rows=6,
        help_text="One tool name per line, added to the base tools "
        "(search_knowledge, add_knowledge, analyze_context), which every skill has.",
    )
    examples = LinesField(
        rows=5, help_text="One typical user phrase per line; the semantic router reads them."
    )

    class Meta:
        model = Skill
        fields = "__all__"
        widgets = {"description": forms.Textarea(attrs={"rows": 3, "cols": 80})}
        help_texts = {
            "temperature": "From 0 to 2. Empty = the provider's default. With several active "
            "skills the lowest temperature wins.",
            "prompt_extension": "Markdown added to the system prompt while the skill is active "
            "(keep it under ~500 tokens).",
            "requires_user_preference": "A user preference that must be on for this skill to "
            "activate (e.g. christian_perspective). Empty = always available.",
            "enabled": "Disabled skills never activate. The fallback skill 'general' cannot be disabled.",
        }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._set_tool_choices_hint()

    def _set_tool_choices_hint(self) -> None:
        names = ", ".join(sorted(REGISTRY.names()))
        self.fields["tools"].help_text += f" Registered tools: {names}."


class PreviewForm(forms.Form):
    """A message to try against the saved skills, with the user's preferences."""

    message = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "cols": 80, "autofocus": True}),
        max_length=4000,
        strip=True,
    )
    preferences = forms.MultipleChoiceField(
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="Preferences turned on for the simulated user.",
    )

    def __init__(self, *args: Any, preference_names: Sequence[str] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        preferences = self.fields["preferences"]
        assert isinstance(preferences, forms.MultipleChoiceField)  # declared above
        preferences.choices = [(name, name) for name in preference_names]
        if not preference_names:
            self.fields["preferences"].widget = forms.MultipleHiddenInput()

    def preference_flags(self) -> dict[str, bool]:
        return {name: True for name in self.cleaned_data.get("preferences", [])}


PERIOD_CHOICES = [
    ("24h", "Last 24 hours"),
    ("7d", "Last 7 days"),
    ("30d", "Last 30 days"),
    ("custom", "From – to (dates)"),
]


EARLIEST_DAY = date(2000, 1, 1)
LATEST_DAY = date(9998, 12, 31)


class UsagePeriodForm(forms.Form):
    """The period of the skill usage dashboard."""

    period = forms.ChoiceField(choices=PERIOD_CHOICES, initial="7d")
    start = forms.DateField(
        required=False, label="From", widget=forms.DateInput(attrs={"type": "date"})
    )
    end = forms.DateField(
        required=False, label="To (inclusive)", widget=forms.DateInput(attrs={"type": "date"})
    )

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        assert cleaned is not None  # Form.clean() returns cleaned_data
        if cleaned.get("period") != "custom":
            return cleaned
        start: date | None = cleaned.get("start")
        end: date | None = cleaned.get("end")
        if start is None or end is None:
            raise ValidationError("A custom period needs both a From and a To date.")
        if start > end:
            raise ValidationError("The From date must not be after the To date.")
        # A day past the last one, in any time zone, must still be a datetime (9999-12-31 was a 500).
        if start < EARLIEST_DAY or end > LATEST_DAY:
            raise ValidationError(f"Use dates from {EARLIEST_DAY.isoformat()} to {LATEST_DAY.isoformat()}.")
        return cleaned
