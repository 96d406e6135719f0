"""Plain data of the skills system: skill definitions, tone and the shared constants.

A skill adapts the assistant to one domain of the conversation (finance, health, ...):
it adds tools, a prompt extension, a tone and optionally a temperature to the base
assistant. Everything here is immutable plain data, free of Django and I/O.
"""

import re
from dataclasses import dataclass

TONE_STYLES: tuple[str, ...] = (
    "practical",
    "reflective",
    "empathetic",
    "hopeful",
    "direct",
    "celebratory",
)
EMOJI_LEVELS: tuple[str, ...] = ("none", "minimal", "moderate")
RESPONSE_LENGTHS: tuple[str, ...] = ("concise", "moderate", "elaborated")
FORMALITIES: tuple[str, ...] = ("informal", "careful-informal")

# Tools every conversation keeps, whatever skill is active: any message may teach a
# new fact, need a known one, or reveal a connection between life areas.
BASE_TOOLS: tuple[str, ...] = ("search_knowledge", "add_knowledge", "analyze_context")

FALLBACK_SKILL = "general"
# /help in each language the product speaks ("/ajuda" was an unknown command to the
# Brazilian user who typed it): no skill may take one of these names.
HELP_NAMES = frozenset({"help", "ajuda", "ayuda"})
# A preference flag a skill may require, as users set them (``PATCH /api/v1/me/``).
PREFERENCE_NAME = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
# A prompt extension joins the system prompt of every message the skill answers; the
# longest shipped one is ~10 KB. Far longer, it would crowd out the conversation.
PROMPT_EXTENSION_MAX_CHARS = 20_000
# Skills about how the user lives the topic at hand rather than a topic of their own:
# when only they fire, they join the skills still under inertia instead of replacing
# them (see skills.inertia, "Combination").
COMPANION_SKILLS: frozenset[str] = frozenset({"counselor"})
# Skills about the user's own body: a pet's symptoms ("meu cachorro está vomitando") do
# not fire them (see skills.matching, "A pet's body").
OWN_BODY_SKILLS: frozenset[str] = frozenset({"health"})
# Skills about the user's own life, which a close one's, told in the third person, is not:
# their body and their work ("meu marido foi demitido", "my sister got a job in Lisbon") are
# theirs, and the relationships skill hears of them (see skills.matching, "a close one's").
OWN_LIFE_SKILLS: frozenset[str] = OWN_BODY_SKILLS | {"professional"}
# Skills about the people in the user's life: "ele"/"she" in the next message speaks of
# someone already spoken of, so such a skill stays (see skills.inertia, "Combination").
PEOPLE_SKILLS: frozenset[str] = frozenset({"relationships"})
# Skills that hear a ledger line, a purchase noted with no verb: "mercado 187,40", "uber
# R$ 23", "coffee $4.75" (see skills.matching, "A ledger line").
LEDGER_SKILLS: frozenset[str] = frozenset({"finance"})
# Where money is earned: a sum looked up, or a day's takings told with their figure ("rodei 9h de
# uber e fiz 280 conto"), is the ledger's, not this skill's (see skills.inertia and
# skills.matching, "takings").
EARNED_FROM: frozenset[str] = frozenset({"professional"})
# Skills that hear the user tell their trade ("sou enfermeira", "I'm a nurse", "soy abogada"):
# the trade's words are the job, not the body or feelings they name ("sou psicóloga"), and a
# trade told with no other topic is a lasting fact about the user's work (see skills.matching,
# "one's trade").
TRADE_SKILLS: frozenset[str] = frozenset({"professional"})
DEFAULT_PRIORITY = 5


@dataclass(frozen=True)
class ToneConfig:
    """How the assistant speaks while a skill dominates the conversation."""

    style: str
    emoji_level: str
    response_length: str
    formality: str


# Used when a SKILL.md file leaves the tone (or part of it) unspecified.
DEFAULT_TONE = ToneConfig(
    style="practical",
    emoji_level="minimal",
    response_length="moderate",
    formality="informal",
)


@dataclass(frozen=True)
class SkillDefinition:
    """One skill: how it is detected and what it adds to the assistant when active.

    A lower ``priority`` number wins: the dominant skill sets the tone and its prompt
    extension comes first. ``requires_user_preference`` names a user preference that
    must be on for the skill to ever become active. ``examples`` are typical user
    phrases, for routers that need to see the domain rather than read about it.
    ``description`` is what the model reads (the catalog in the system prompt, the
    router) and what pt-BR and Spanish readers see; ``description_en`` is shown to English
    readers, when set.
    """

    name: str
    description: str
    trigger_patterns: tuple[str, ...]
    tools: tuple[str, ...]
    prompt_extension: str
    tone: ToneConfig
    temperature: float | None = None
    requires_user_preference: str | None = None
    priority: int = DEFAULT_PRIORITY
    enabled: bool = True
    examples: tuple[str, ...] = ()
    description_en: str = ""

    def description_for(self, language: str | None) -> str:
        """The description a person reading ``language`` (a Django language code) sees."""
        if self.description_en and (language or "").split("-")[0] == "en":
            return self.description_en
        return self.description
