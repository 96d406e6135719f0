"""Pending actions API: list a conversation's actions, accept or reject one."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, status
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from lifeassistant.db import retry_once_on_conflict
from lifeassistant.users import request_user

from ..actions import ActionConflict, accept, expire_stale, reject
from ..models import Conversation, PendingAction
from lifeassistant.openapi import error_responses

from .serializers import PendingActionSerializer

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def owned_actions(user: User) -> QuerySet[PendingAction]:
    """The only way views reach actions: through conversations the user owns."""
    return PendingAction.objects.filter(conversation__owner=user)


class ConversationActionsView(generics.ListAPIView):
    """The actions proposed in one of your conversations, oldest first; filter with ?status=pending."""

    serializer_class = PendingActionSerializer
    pagination_class = None

    @extend_schema(
        parameters=[
            OpenApiParameter("status", OpenApiTypes.STR, enum=list(PendingAction.Status.values), required=False)
        ]
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    def get_queryset(self) -> QuerySet[PendingAction]:
        user = request_user(self.request)
        conversation = get_object_or_404(Conversation.objects.filter(owner=user), pk=self.kwargs["conversation_id"])
        expire_stale(conversation)
        actions = owned_actions(user).filter(conversation=conversation).order_by("created_at", "id")
        wanted = self.request.query_params.get("status")
        if wanted is not None:
            if wanted not in PendingAction.Status.values:
                raise ValidationError({"status": [_("Use one of: %(statuses)s.") % {"statuses": ", ".join(PendingAction.Status.values)}]})
            actions = actions.filter(status=wanted)
        return actions


class ActionDecisionView(APIView):
    """Accept (run it, once) or reject a pending action of yours."""

    decide = staticmethod(accept)

    @extend_schema(request=None, responses={200: PendingActionSerializer, **error_responses(409)})
    def post(self, request: Request, pk: int) -> Response:
        action = get_object_or_404(owned_actions(request_user(request)), pk=pk)
        try:
            decided = retry_once_on_conflict(lambda: self.decide(action))
        except ActionConflict as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        return Response(PendingActionSerializer(decided).data)


class ActionAcceptView(ActionDecisionView):
    """Run a pending action now; it runs exactly once, whoever asks twice."""

    decide = staticmethod(accept)


class ActionRejectView(ActionDecisionView):
    """Decline a pending action; it will never run."""

    decide = staticmethod(reject)
