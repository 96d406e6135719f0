"""Chat API views: translate HTTP to service calls, nothing more."""

from __future__ import annotations

import re
from typing import Any

from django.contrib.auth import authenticate
from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, mixins, status, viewsets
from rest_framework.authtoken.models import Token
from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework.exceptions import AuthenticationFailed, NotFound, ValidationError
from rest_framework.pagination import CursorPagination
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import BaseSerializer
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import APIView

from lifeassistant.models import Profile
from lifeassistant.users import request_user
from skills.services import current_catalog

from ..commands import available_commands
from ..context import handle_action as handle_context_action
from ..models import Conversation, Message
from ..throttling import LoginRateThrottle
from ..services import (
    IdempotencyConflict,
    Submission,
    can_retry,
    request_fingerprint,
    retry_reply,
    submit_message,
    submit_message_once,
)
from .serializers import (
    error_responses,
    CommandSerializer,
    ContextActionSerializer,
    ConversationSerializer,
    MessageCreateSerializer,
    MessageSerializer,
    SubmissionSerializer,
    TokenRequestSerializer,
    TokenSerializer,
)

IDEMPOTENCY_KEY = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")


class NewestFirst(CursorPagination):
    ordering = ("-created_at", "-id")
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200

    def paginate_queryset(self, queryset: Any, request: Request, view: Any = None) -> list[Any] | None:
        # A tampered cursor can decode to a position that is not a timestamp.
        try:
            return super().paginate_queryset(queryset, request, view)
        except (DjangoValidationError, ValueError, TypeError):
            raise NotFound("Invalid cursor.") from None


def owned_conversations(user: Any) -> QuerySet[Conversation]:
    """The only way views reach conversations: scoped to their owner."""
    return Conversation.objects.filter(owner=user)


def owned_messages(user: Any) -> QuerySet[Message]:
    return Message.objects.filter(conversation__owner=user).prefetch_related("tool_calls", "documents", "pending_actions")


class ConversationViewSet(
    mixins.CreateModelMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.UpdateModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet,
):
    """Create, list (newest first), retrieve, rename and delete your conversations."""

    queryset = Conversation.objects.none()  # for schema generation; requests use get_queryset
    serializer_class = ConversationSerializer
    pagination_class = NewestFirst

    def get_queryset(self) -> QuerySet[Conversation]:
        return owned_conversations(self.request.user)

    def perform_create(self, serializer: BaseSerializer[Conversation]) -> None:
        serializer.save(owner=self.request.user)


IDEMPOTENCY_PARAMETER = OpenApiParameter(
    "Idempotency-Key",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    description="Retries with the same key and body return the first response; another body gets 422.",
)


class ConversationMessagesView(generics.ListCreateAPIView):
    """List a conversation's messages (newest first) or send a new one."""

    pagination_class = NewestFirst
    serializer_class = MessageSerializer
    throttle_scope = "messages"

    def get_throttles(self) -> list[Any]:
        return [ScopedRateThrottle()] if self.request.method == "POST" else []

    def conversation(self) -> Conversation:
        return get_object_or_404(owned_conversations(self.request.user), pk=self.kwargs["conversation_id"])

    def get_queryset(self) -> QuerySet[Message]:
        return owned_messages(self.request.user).filter(conversation=self.conversation())

    @extend_schema(
        request=MessageCreateSerializer,
        responses={202: SubmissionSerializer, **error_responses(400, 401, 404, 422, 429)},
        parameters=[IDEMPOTENCY_PARAMETER],
    )
    def post(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        conversation = self.conversation()
        serializer = MessageCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        content = serializer.validated_data["content"]
        key = request.headers.get("Idempotency-Key")
        if key is None:
            body = render_submission(submit_message(user=request.user, conversation=conversation, content=content))
            return Response(body, status=status.HTTP_202_ACCEPTED)
        if not IDEMPOTENCY_KEY.match(key):
            raise ValidationError({"Idempotency-Key": ["Use 1-128 characters: letters, digits, '.', '_', ':' or '-'."]})
        try:
            body, _ = submit_message_once(
                user=request.user,
                conversation=conversation,
                content=content,
                key=key,
                fingerprint=request_fingerprint(conversation_id=conversation.pk, body=request.data),
                render=render_submission,
            )
        except IdempotencyConflict as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_422_UNPROCESSABLE_ENTITY)
        return Response(body, status=status.HTTP_202_ACCEPTED)


def render_submission(submission: Submission) -> dict[str, Any]:
    return SubmissionSerializer(
        {"user_message": submission.user_message, "assistant_message": submission.assistant_message}
    ).data


class MessageDetailView(generics.RetrieveAPIView):
    """One of your messages; poll an assistant message until its status is done or failed."""

    serializer_class = MessageSerializer

    def get_queryset(self) -> QuerySet[Message]:
        return owned_messages(self.request.user)


class MessageRetryView(APIView):
    """Queue a failed assistant reply again."""

    @extend_schema(request=None, responses={202: MessageSerializer, **error_responses(401, 404, 409)})
    def post(self, request: Request, pk: int) -> Response:
        message = get_object_or_404(owned_messages(request.user), pk=pk)
        if not can_retry(message):
            return Response(
                {"detail": "Only a failed (or stuck) assistant reply can be retried."},
                status=status.HTTP_409_CONFLICT,
            )
        return Response(MessageSerializer(retry_reply(message)).data, status=status.HTTP_202_ACCEPTED)


class TokenView(APIView):
    """Obtain (POST with username and password) or revoke (DELETE) your API token."""

    def get_permissions(self) -> list[Any]:
        return [AllowAny()] if self.request.method == "POST" else [IsAuthenticated()]

    def get_throttles(self) -> list[Any]:
        # Password guessing: LOGIN_RATE attempts per client IP, shared with the web sign-in.
        return [LoginRateThrottle()] if self.request.method == "POST" else []

    def perform_authentication(self, request: Request) -> None:
        # Logging in must not be blocked by a stale or revoked token still in the header.
        if request.method != "POST":
            super().perform_authentication(request)

    @extend_schema(request=TokenRequestSerializer, responses={200: TokenSerializer, **error_responses(400, 401, 429)})
    def post(self, request: Request) -> Response:
        serializer = TokenRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        user = authenticate(
            request._request,
            username=serializer.validated_data["username"],
            password=serializer.validated_data["password"],
        )
        if user is None or not user.is_active:
            raise AuthenticationFailed("Unable to log in with the provided credentials.")
        token, _ = Token.objects.get_or_create(user=user)
        return Response({"token": token.key})

    @extend_schema(request=None, responses={204: None})
    def delete(self, request: Request) -> Response:
        Token.objects.filter(user=request_user(request)).delete()
        return Response(status=status.HTTP_204_NO_CONTENT)


class ConversationContextView(APIView):
    """The light conversation context: store, retrieve or clear (see README for the contract)."""

    @extend_schema(request=ContextActionSerializer, responses={200: OpenApiTypes.OBJECT, 400: OpenApiTypes.OBJECT})
    def post(self, request: Request, conversation_id: int) -> Response:
        conversation = get_object_or_404(owned_conversations(request.user), pk=conversation_id)
        if not isinstance(request.data, dict):
            return Response({"success": False, "error": "The body must be a JSON object."}, status=400)
        body = handle_context_action(conversation, request.data)
        return Response(body, status=status.HTTP_200_OK if body["success"] else status.HTTP_400_BAD_REQUEST)


class CommandListView(APIView):
    """The commands you may type in a message (/help, /skill, and ! for allowed staff)."""

    @extend_schema(responses={200: CommandSerializer(many=True)})
    def get(self, request: Request) -> Response:
        preferences = Profile.for_user(request.user).preferences
        commands = available_commands(current_catalog().skills, preferences=preferences, is_staff=request.user.is_staff)
        return Response(CommandSerializer(commands, many=True).data)
