"""The host product's per-user data: the profile, and the rows the assistant's tools work on."""

from __future__ import annotations

import functools
import zoneinfo
from datetime import date
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from .money import CURRENCY_CODES

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def _validate_preferences(value: Any) -> None:
    if not isinstance(value, dict) or not all(
        isinstance(key, str) and isinstance(flag, bool) for key, flag in value.items()
    ):
        raise ValidationError('Preferences must be an object of true/false flags, e.g. {"christian_perspective": true}.')


def _validate_skill_names(value: Any) -> None:
    if not isinstance(value, list) or not all(isinstance(name, str) for name in value):
        raise ValidationError('Disabled skills must be a list of skill names, e.g. ["spiritual"].')


# Names in the time zone database that are no place a user lives: the server's own zone
# and tzdata's placeholders.
_NOT_PLACES = frozenset({"localtime", "Factory", "posixrules", "posix", "right"})


@functools.cache
def timezone_names() -> frozenset[str]:
    """The IANA time zone names a profile may hold."""
    return frozenset(zoneinfo.available_timezones()) - _NOT_PLACES


def validate_timezone(value: str) -> None:
    if value not in timezone_names():
        raise ValidationError(_("Use an IANA time zone name, e.g. America/Sao_Paulo."))


def validate_currency(value: str) -> None:
    if value not in CURRENCY_CODES:
        raise ValidationError(_("Use the ISO 4217 code of a currency in capitals, e.g. BRL, USD or EUR."))


DEFAULT_TIMEZONE = "America/Sao_Paulo"
DEFAULT_CURRENCY = "BRL"


class Profile(models.Model):
    """What the assistant knows about how to talk to one user; the user edits it (``/api/v1/me/``)."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile")
    display_name = models.CharField(max_length=80, blank=True, help_text="How the assistant calls the user.")
    language = models.CharField(
        max_length=8,
        blank=True,
        help_text="ISO 639-1 code (pt, en, es). Set by the user, or from their first message when unset.",
    )
    timezone = models.CharField(
        max_length=64, default=DEFAULT_TIMEZONE, validators=[validate_timezone], help_text="IANA name, e.g. America/Sao_Paulo."
    )
    currency = models.CharField(
        max_length=3, default=DEFAULT_CURRENCY, validators=[validate_currency], help_text="ISO 4217 code, e.g. BRL."
    )
    disabled_skills = models.JSONField(
        default=list, blank=True, validators=[_validate_skill_names], help_text="Skills the user turned off."
    )
    preferences = models.JSONField(
        default=dict,
        blank=True,
        validators=[_validate_preferences],
        help_text='Boolean flags that skills may require, e.g. {"christian_perspective": true}.',
    )
    consents = models.JSONField(
        default=dict, blank=True,
        help_text='The latest answer per consent purpose, e.g. {"health": true}; the Consent rows keep every answer.',
    )
    retention_days = models.PositiveIntegerField(
        null=True, blank=True, help_text="Conversations idle longer than this many days are deleted; empty: kept."
    )
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"Profile of {self.user}"

    @property
    def zone(self) -> zoneinfo.ZoneInfo | None:
        """The user's time zone; ``None`` (the server's) for a name this server's database lacks."""
        try:
            return zoneinfo.ZoneInfo(self.timezone)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            return None

    def today(self) -> date:
        """The user's date, in their time zone: near midnight it is not the server's (UTC)."""
        return timezone.localdate(timezone=self.zone)

    @classmethod
    def for_user(cls, user: User) -> Profile:
        profile, _ = cls.objects.get_or_create(user=user)
        return profile

    @classmethod
    def of(cls, user: User) -> Profile:
        """The user's profile: the one loaded with them (a reply's owner comes with it,
        select_related), without a query; else :meth:`for_user`."""
        cached = user._meta.get_field("profile").is_cached(user)
        profile = user.profile if cached and getattr(user, "profile", None) is not None else None
        return profile if profile is not None else cls.for_user(user)


class Area(models.TextChoices):
    """Areas of life the assistant's data belongs to."""

    GENERAL = "general"
    FINANCE = "finance"
    HEALTH = "health"
    RELATIONSHIPS = "relationships"
    PROFESSIONAL = "professional"
    SPIRITUAL = "spiritual"
    EMOTIONAL = "emotional"


class KnowledgeItem(models.Model):
    """A lasting fact the assistant learned about its user (preference, goal, fact...)."""

    class Kind(models.TextChoices):
        FACT = "fact"
        PREFERENCE = "preference"
        GOAL = "goal"
        MEMORY = "memory"
        INSIGHT = "insight"

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="knowledge_items")
    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.FACT)
    area = models.CharField(max_length=16, choices=Area.choices, default=Area.GENERAL)
    content = models.TextField()
    source = models.CharField(max_length=16, default="conversation", help_text="Where the fact came from.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["owner", "area", "-created_at"], name="knowledge_owner_area")]

    def __str__(self) -> str:
        return self.content[:60]

    @classmethod
    def has_room_for(cls, owner: Any) -> bool:
        """Whether ``owner`` may keep one more item (``MEMORY_MAX_ITEMS``). A soft cap: two
        saves racing at the limit may both pass, which bounds growth all the same."""
        return cls.objects.filter(owner=owner).count() < settings.MEMORY_MAX_ITEMS


class MetricEntry(models.Model):
    """One tracked measurement: weight, water, sleep, exercise, mood, energy..."""

    class Type(models.TextChoices):
        WEIGHT = "weight"
        WATER = "water"
        SLEEP = "sleep"
        EXERCISE = "exercise"
        MOOD = "mood"
        ENERGY = "energy"
        STEPS = "steps"

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="metric_entries")
    type = models.CharField(max_length=16, choices=Type.choices)
    value = models.DecimalField(max_digits=10, decimal_places=2)
    unit = models.CharField(max_length=16)
    recorded_at = models.DateTimeField(help_text="When the measurement happened.")
    note = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-recorded_at", "-id"]
        verbose_name_plural = "metric entries"
        indexes = [models.Index(fields=["owner", "type", "-recorded_at"], name="metric_owner_type_recorded")]

    def __str__(self) -> str:
        return f"{self.type} {self.value} {self.unit}"


class Expense(models.Model):
    """Money the user spent."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="expenses")
    amount = models.DecimalField(max_digits=12, decimal_places=2)
    description = models.CharField(max_length=200)
    category = models.CharField(max_length=32, default="other")
    spent_on = models.DateField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-spent_on", "-id"]
        indexes = [models.Index(fields=["owner", "-spent_on"], name="expense_owner_spent")]

    def __str__(self) -> str:
        return f"{self.description} ({self.amount})"


class Bill(models.Model):
    """A bill to pay by a due date (rent, electricity, a boleto...)."""

    class Status(models.TextChoices):
        PENDING = "pending"
        PAID = "paid"

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="bills")
    name = models.CharField(max_length=200)
    amount = models.DecimalField(max_digits=12, decimal_places=2)
    due_date = models.DateField()
    category = models.CharField(max_length=32, default="other")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    paid_at = models.DateField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["due_date", "id"]
        indexes = [models.Index(fields=["owner", "status", "due_date"], name="bill_owner_status_due")]

    def __str__(self) -> str:
        return f"{self.name} ({self.amount}, {self.due_date})"


class Debt(models.Model):
    """Money the user owes, paid down over time (a loan, a card in installments...)."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="debts")
    name = models.CharField(max_length=200)
    creditor = models.CharField(max_length=200, blank=True)
    total_amount = models.DecimalField(max_digits=12, decimal_places=2)
    paid_amount = models.DecimalField(max_digits=12, decimal_places=2, default=0)
    installments_total = models.PositiveSmallIntegerField(null=True, blank=True)
    installments_paid = models.PositiveSmallIntegerField(default=0)
    monthly_interest_rate = models.DecimalField(
        max_digits=6, decimal_places=3, null=True, blank=True, help_text="Percent per month."
    )
    started_on = models.DateField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "id"]

    def __str__(self) -> str:
        return self.name

    @property
    def remaining_amount(self) -> Any:
        return max(self.total_amount - self.paid_amount, 0)


class Person(models.Model):
    """Someone in the user's life (personal CRM)."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="people")
    name = models.CharField(max_length=120)
    relationship = models.CharField(max_length=64, blank=True, help_text="e.g. mãe, amigo, chefe.")
    birthday = models.DateField(null=True, blank=True)
    notes = models.TextField(blank=True)
    facts = models.JSONField(default=dict, blank=True, help_text="Short named facts, e.g. {\"gosta de\": \"café\"}.")
    last_interaction_on = models.DateField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name", "id"]
        verbose_name_plural = "people"
        indexes = [models.Index(fields=["owner", "name"], name="person_owner_name")]

    def __str__(self) -> str:
        return self.name


class Consent(models.Model):
    """One answer of a user to a request for consent (LGPD art. 11): given or revoked.

    Rows are only added: the latest row of a purpose is the user's current answer, and the
    ones before it are the record of when it was given and revoked, under which text.
    """

    class Purpose(models.TextChoices):
        HEALTH = "health", _("Health data")
        SPIRITUAL = "spiritual", _("Religious conviction")

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="consents")
    purpose = models.CharField(max_length=16, choices=Purpose.choices)
    text_version = models.PositiveSmallIntegerField(help_text="The version of the text the user answered.")
    given = models.BooleanField(help_text="True: consent given; false: refused or revoked.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["owner", "purpose", "-created_at"], name="consent_owner_purpose")]

    def __str__(self) -> str:
        return f"{self.purpose} {'given' if self.given else 'revoked'} (v{self.text_version})"


class AccountDeletion(models.Model):
    """What remains of a deleted account: no personal data, only that it happened.

    ``subject`` is a keyed one-way hash of the user id (``lifeassistant.privacy.subject_hash``):
    a request that names the id can be matched to its deletion, and the row names nobody.
    """

    class Reason(models.TextChoices):
        USER = "user", "deleted by its owner"

    subject = models.CharField(max_length=64, db_index=True)
    reason = models.CharField(max_length=8, choices=Reason.choices)
    deleted_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-deleted_at", "-id"]

    def __str__(self) -> str:
        return f"{self.subject[:12]} ({self.reason}, {self.deleted_at:%Y-%m-%d})"
