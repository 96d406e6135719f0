"""The user's own settings and memory: ``/me/``, ``/skills/`` and ``/memory/``.

Every write names its fields: a PATCH never saves the whole row, so two clients (the
web chat's preferences page and the app) cannot overwrite each other's changes.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import QuerySet
from django.utils.translation import get_language, gettext as _
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import exceptions, mixins, serializers, viewsets
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import BaseSerializer
from rest_framework.views import APIView

from lifeassistant.models import Area, KnowledgeItem, Profile, validate_currency, validate_timezone
from lifeassistant.openapi import error_responses
from lifeassistant.users import request_user
from skills.domain import FALLBACK_SKILL, PREFERENCE_NAME, SkillDefinition
from skills.inertia import by_priority, is_allowed
from skills.services import current_catalog

from ..erasure import delete_account
from ..throttling import PasswordCheckThrottle
from ..language import from_profile_value, profile_value
from .serializers import RejectUnknownFieldsMixin, StrictCharField, save_given_fields
from .views import NewestFirst

# Flags are few (skills require one or two); a bound keeps a profile small.
MAX_PREFERENCES = 50


# ------------------------------------------------------------------------------- /me/


class ProfileSerializer(serializers.Serializer):
    """The profile as ``GET /api/v1/me/`` shows it."""

    username = serializers.CharField(read_only=True)
    display_name = serializers.CharField(read_only=True)
    language = serializers.ChoiceField(choices=["pt-BR", "en", "es"], allow_null=True, read_only=True)
    timezone = serializers.CharField(read_only=True)
    currency = serializers.CharField(read_only=True)
    preferences = serializers.DictField(child=serializers.BooleanField(), read_only=True)
    disabled_skills = serializers.ListField(child=serializers.CharField(), read_only=True)
    retention_days = serializers.IntegerField(
        allow_null=True, read_only=True, help_text="Conversations idle longer than this are deleted; null: kept."
    )


def profile_data(profile: Profile) -> dict[str, Any]:
    return {
        "username": profile.user.get_username(),
        "display_name": profile.display_name,
        "language": profile_value(profile.language),
        "timezone": profile.timezone,
        "currency": profile.currency,
        "preferences": dict(profile.preferences),
        "disabled_skills": list(profile.disabled_skills),
        "retention_days": profile.retention_days,
    }


class StrictBooleanField(serializers.BooleanField):
    """Only JSON true/false: "yes" or 1 for a preference flag is a mistake, not a yes."""

    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data


class ProfileUpdateSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    """``PATCH /api/v1/me/``: every field optional; ``username`` is shown but never changed."""

    username = serializers.CharField(read_only=True)
    display_name = StrictCharField(max_length=80, allow_blank=True, required=False, trim_whitespace=True)
    language = serializers.ChoiceField(choices=["pt-BR", "en", "es"], allow_null=True, required=False)
    timezone = StrictCharField(max_length=64, required=False)
    currency = serializers.CharField(max_length=3, required=False, validators=[validate_currency])
    preferences = serializers.DictField(child=StrictBooleanField(), required=False)
    disabled_skills = serializers.ListField(child=StrictCharField(max_length=64), max_length=50, required=False)
    retention_days = serializers.IntegerField(
        min_value=1, max_value=36_500, allow_null=True, required=False,
        help_text="Delete conversations idle longer than this many days (daily); null keeps them. "
        "The deployment may keep them less (RETENTION_MAX_DAYS).",
    )

    def validate_timezone(self, value: str) -> str:
        validate_timezone(value)  # Django's ValidationError: DRF reports it on this field
        return value

    def validate_preferences(self, value: dict[str, bool]) -> dict[str, bool]:
        bad = [key for key in value if not PREFERENCE_NAME.match(key)]
        if bad:
            raise serializers.ValidationError(_("Preference names are lower-case words joined by _, not %(name)r.") % {"name": bad[0]})
        return value  # their number is checked against the stored flags under the lock

    def validate_disabled_skills(self, value: list[str]) -> list[str]:
        if FALLBACK_SKILL in value:
            raise serializers.ValidationError(_("The %(skill)s skill cannot be disabled.") % {"skill": FALLBACK_SKILL})
        # Names already stored stay valid: a skill the admin disabled or deleted since must
        # not make the user's next save (which sends the list back) fail.
        known = {skill.name for skill in current_catalog().skills} | set(self.context["profile"].disabled_skills or ())
        unknown = sorted(set(value) - known)
        if unknown:
            raise serializers.ValidationError(_("Unknown skill: %(skill)s.") % {"skill": unknown[0]})
        return list(dict.fromkeys(value))  # without repeats, in the order given


def update_profile(profile: Profile, changes: dict[str, Any]) -> None:
    """Write only the fields in ``changes``; preference flags merge into the stored ones.

    The merge reads and writes the locked row, so two PATCHes of different flags both land,
    and the bound on their number holds however many PATCHes run at once. A profile already
    past the bound (stored before it existed) can still change the flags it has.
    """
    fields = {name: value for name, value in changes.items() if name != "preferences"}
    if "language" in fields:
        fields["language"] = from_profile_value(fields["language"])
    with transaction.atomic():
        if "preferences" in changes:
            stored = Profile.objects.select_for_update().values_list("preferences", flat=True).get(pk=profile.pk)
            merged = {**(stored or {}), **changes["preferences"]}
            if len(merged) > max(MAX_PREFERENCES, len(stored or {})):
                raise serializers.ValidationError(
                    {"preferences": [_("At most %(count)s preference flags.") % {"count": MAX_PREFERENCES}]}
                )
            fields["preferences"] = merged
        if fields:
            Profile.objects.filter(pk=profile.pk).update(**fields)


class AccountDeletionSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    password = StrictCharField(
        max_length=128, trim_whitespace=False, style={"input_type": "password"},
        help_text="Your current password: the deletion cannot be undone.",
    )


class MeView(APIView):
    """Your profile: display name, language, time zone, currency, preference flags, the skills you turned off
    and how long conversations are kept. DELETE closes the account."""

    delete_takes_body = True  # the password (lifeassistant.openapi documents it)

    def get_throttles(self) -> list[Any]:
        return [PasswordCheckThrottle()] if self.request.method == "DELETE" else []

    @extend_schema(responses={200: ProfileSerializer})
    def get(self, request: Request) -> Response:
        return Response(profile_data(_profile(request)))

    @extend_schema(
        request=ProfileUpdateSerializer,
        responses={200: ProfileSerializer},
        description="Changes only the fields it names. `preferences` flags merge into the stored ones "
        '(send {"christian_perspective": false} to turn one off); `language` null unsets it: pages and answers then follow the Accept-Language header.',
    )
    def patch(self, request: Request) -> Response:
        profile = _profile(request)
        serializer = ProfileUpdateSerializer(data=request.data, context={"profile": profile})
        serializer.is_valid(raise_exception=True)
        update_profile(profile, dict(serializer.validated_data))
        profile.refresh_from_db()
        return Response(profile_data(profile))


    @extend_schema(
        request=AccountDeletionSerializer,
        responses={204: None},
        description="Deletes your account and everything of it for good: profile, conversations, documents, "
        "memory, finance, health and people data, consents, API tokens and sessions. Replies still running are "
        "stopped first. A wrong password is a 400 and deletes nothing.",
    )
    def delete(self, request: Request) -> Response:
        user = request_user(request)
        serializer = AccountDeletionSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        if not user.check_password(serializer.validated_data["password"]):
            raise serializers.ValidationError({"password": [_("The password is not right. Nothing was deleted.")]})
        delete_account(user)
        if hasattr(request, "session"):
            request.session.flush()
        return Response(status=204)


def _profile(request: Request) -> Profile:
    profile = Profile.for_user(request_user(request))
    profile.user = request_user(request)  # already loaded: no second query for the username
    return profile


# --------------------------------------------------------------------------- /skills/


class SkillSerializer(serializers.Serializer):
    name = serializers.CharField()
    description = serializers.CharField(help_text="In English for English readers when the skill has one.")
    requires_preference = serializers.CharField(allow_null=True)
    available = serializers.BooleanField(help_text="Its preference is on and you did not turn it off.")
    disabled = serializers.BooleanField(help_text="You turned it off (disabled_skills).")


def skill_entry(skill: SkillDefinition, profile: Profile) -> dict[str, Any]:
    return {
        "name": skill.name,
        "description": " ".join(skill.description_for(get_language()).split()),
        "requires_preference": skill.requires_user_preference,
        "available": is_allowed(skill, profile.preferences, profile.disabled_skills),
        "disabled": skill.name in profile.disabled_skills,
    }


class SkillListView(APIView):
    """The skills you may see (enabled ones), and whether each is available to you."""

    @extend_schema(responses={200: SkillSerializer(many=True)})
    def get(self, request: Request) -> Response:
        profile = Profile.for_user(request_user(request))
        skills = by_priority(current_catalog().skills)
        return Response([skill_entry(skill, profile) for skill in skills])


# --------------------------------------------------------------------------- /memory/


class KnowledgeItemSerializer(RejectUnknownFieldsMixin, serializers.ModelSerializer):
    """One thing the assistant remembers about you."""

    kind = serializers.ChoiceField(choices=KnowledgeItem.Kind.choices, default=KnowledgeItem.Kind.FACT)
    area = serializers.ChoiceField(choices=Area.choices, default=Area.GENERAL)
    content = StrictCharField(max_length=1000, trim_whitespace=True)

    class Meta:
        model = KnowledgeItem
        fields = ["id", "kind", "area", "content", "created_at", "updated_at"]
        read_only_fields = ["id", "created_at", "updated_at"]

    def update(self, instance: KnowledgeItem, validated_data: dict[str, Any]) -> KnowledgeItem:
        save_given_fields(instance, validated_data)
        return instance


class MemoryFull(exceptions.APIException):
    status_code = 409


@extend_schema_view(create=extend_schema(responses={201: KnowledgeItemSerializer, **error_responses(409)}))
class MemoryViewSet(
    mixins.ListModelMixin,
    mixins.CreateModelMixin,
    mixins.RetrieveModelMixin,
    mixins.UpdateModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet,
):
    """What the assistant remembers about you (newest first): list, add, correct and delete."""

    queryset = KnowledgeItem.objects.none()  # for schema generation; requests use get_queryset
    serializer_class = KnowledgeItemSerializer
    pagination_class = NewestFirst
    http_method_names = ["get", "post", "patch", "delete", "head", "options"]

    def get_queryset(self) -> QuerySet[KnowledgeItem]:
        return KnowledgeItem.objects.filter(owner=request_user(self.request))

    def perform_create(self, serializer: BaseSerializer[KnowledgeItem]) -> None:
        owner = request_user(self.request)
        if not KnowledgeItem.has_room_for(owner):
            raise MemoryFull(
                _(
                    "The assistant already remembers %(limit)d things about you, the most it keeps. "
                    "Delete what it no longer needs to know, then add this again."
                )
                % {"limit": settings.MEMORY_MAX_ITEMS}
            )
        serializer.save(owner=owner, source="user")
