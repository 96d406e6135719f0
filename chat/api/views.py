"""Chat API views: translate HTTP to service calls, nothing more."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from django.contrib.auth import authenticate
from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, mixins, status, viewsets
from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.validators import ProhibitNullCharactersValidator
from django.utils import timezone
from django.utils.translation import gettext_lazy, gettext as _
from rest_framework.exceptions import AuthenticationFailed, NotFound, ParseError, ValidationError
from rest_framework.pagination import CursorPagination
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import BaseSerializer
from rest_framework.views import APIView

from lifeassistant.models import Profile
from lifeassistant.openapi import error_responses
from lifeassistant.users import request_user
from skills.services import current_catalog

from skills.commands import available_commands
from ..light_context_store import handle_action as handle_context_action
from ..search import search_conversations
from ..api_tokens import issue_token
from ..models import ApiToken, Conversation, Message
from ..throttling import MessageRateThrottle, forget_sign_ins, sign_in_failed, sign_in_throttles
from ..services import (
    IdempotencyConflict,
    Submission,
    TurnConflict,
    cancel_reply,
    delete_conversation,
    regenerate_reply,
    request_fingerprint,
    retry_reply,
    submit_message,
    submit_message_once,
)
from .serializers import (
    CommandSerializer,
    CONTEXT_ACTION,
    CONTEXT_RESULT,
    ContextErrorSerializer,
    ConversationSerializer,
    ApiTokenSerializer,
    CredentialsSerializer,
    MessageCreateSerializer,
    MessageSerializer,
    SubmissionSerializer,
    TokenSerializer,
)

if TYPE_CHECKING:
    from django.contrib.auth.models import User

IDEMPOTENCY_KEY = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")


class NewestFirst(CursorPagination):
    ordering = ("-created_at", "-id")
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200
    # One message for every unreadable cursor (DRF's own, for one that is not base64, lacks the stop).
    invalid_cursor_message = gettext_lazy("Invalid cursor.")  # type: ignore[assignment]  # lazy, as DRF's own; the stubs say str

    def get_page_size(self, request: Request) -> int | None:
        # DRF ignores a page_size it cannot read (an empty one too); say so instead, as the
        # schema says integer. Leave the parameter out for the default size.
        raw = request.query_params.get(self.page_size_query_param)
        if raw is not None and not (raw.isascii() and raw.isdigit() and int(raw) > 0):
            raise ValidationError({self.page_size_query_param: [_("Use a whole number from 1 up.")]})
        return super().get_page_size(request)

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.page_size_query_param:
                parameter["schema"]["minimum"] = 1
            if parameter["name"] == self.cursor_query_param:
                parameter["description"] = (
                    "Opaque: the value a page's `next` or `previous` link carries. Any other value is a 400."
                )
        return parameters

    # A bad cursor is the request's fault, a 400: DRF's 404 read as "this conversation is
    # gone" on /conversations/{id}/messages/.
    def decode_cursor(self, request: Request) -> Any:
        try:
            return super().decode_cursor(request)
        except NotFound:
            raise self._invalid_cursor() from None

    def paginate_queryset(self, queryset: Any, request: Request, view: Any = None) -> list[Any] | None:
        # A tampered cursor can decode to a position that is not a timestamp.
        try:
            return super().paginate_queryset(queryset, request, view)
        except (DjangoValidationError, ValueError, TypeError):
            raise self._invalid_cursor() from None

    def _invalid_cursor(self) -> ValidationError:
        return ValidationError({self.cursor_query_param: [self.invalid_cursor_message]})


class RecentlyActiveFirst(NewestFirst):
    """Conversations: the one written in last comes first (its ``updated_at``)."""

    ordering = ("-updated_at", "-id")


def owned_conversations(user: User) -> QuerySet[Conversation]:
    """The only way views reach conversations: scoped to their owner."""
    return Conversation.objects.filter(owner=user)


def owned_messages(user: User) -> QuerySet[Message]:
    return Message.objects.filter(conversation__owner=user).prefetch_related("tool_calls", "documents", "pending_actions")


SEARCH_MAX_CHARS = 200


class ConversationViewSet(
    mixins.CreateModelMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.UpdateModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet,
):
    """Create, list (most recently active first), retrieve, rename and delete your conversations."""

    queryset = Conversation.objects.none()  # for schema generation; requests use get_queryset
    serializer_class = ConversationSerializer
    pagination_class = RecentlyActiveFirst

    def get_queryset(self) -> QuerySet[Conversation]:
        conversations = owned_conversations(request_user(self.request))
        text = self.request.query_params.get("search", "").strip()
        if "\x00" in text:  # PostgreSQL cannot compare text holding NUL: a 400, not a 500
            raise ValidationError({"search": [ProhibitNullCharactersValidator.message]})
        if len(text) > SEARCH_MAX_CHARS:  # SQLite refuses LIKE patterns over 50,000 bytes: a 500
            raise ValidationError({"search": [_("Search for at most %(count)s characters.") % {"count": SEARCH_MAX_CHARS}]})
        if self.action == "list" and text:
            return search_conversations(conversations, text)
        return conversations

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "search", OpenApiTypes.STR, OpenApiParameter.QUERY,
                description=f"Only your conversations whose title or messages contain these words (at most {SEARCH_MAX_CHARS} characters, no NUL).",
            )
        ]
    )
    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().list(request, *args, **kwargs)

    def perform_create(self, serializer: BaseSerializer[Conversation]) -> None:
        serializer.save(owner=self.request.user, **title_source(serializer))

    def perform_update(self, serializer: BaseSerializer[Conversation]) -> None:
        serializer.save(**title_source(serializer))

    def perform_destroy(self, instance: Conversation) -> None:
        delete_conversation(instance)


def title_source(serializer: BaseSerializer[Conversation]) -> dict[str, str]:
    """A title the user writes is theirs: generated titles never replace it. Clearing it
    lets the next message name the conversation again."""
    if "title" not in serializer.validated_data:
        return {}
    source = Conversation.TitleSource.USER if serializer.validated_data["title"] else Conversation.TitleSource.NONE
    return {"title_source": source}


IDEMPOTENCY_PARAMETER = OpenApiParameter(
    "Idempotency-Key",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    pattern=IDEMPOTENCY_KEY.pattern,
    description=(
        "1-128 letters, digits, '.', '_', ':' or '-'. A retry with the same key and body returns the "
        "first response; the same key with another body gets 422."
    ),
)


class ConversationMessagesView(generics.ListCreateAPIView):
    """List a conversation's messages (newest first) or send a new one."""

    pagination_class = NewestFirst
    serializer_class = MessageSerializer
    throttle_scope = "messages"

    def get_throttles(self) -> list[Any]:
        return [MessageRateThrottle()] if self.request.method == "POST" else []

    def conversation(self) -> Conversation:
        return get_object_or_404(owned_conversations(request_user(self.request)), pk=self.kwargs["conversation_id"])

    def get_queryset(self) -> QuerySet[Message]:
        # Superseded turns (regenerated, edited) stay in the database, out of the thread.
        return owned_messages(request_user(self.request)).filter(
            conversation=self.conversation(), superseded_at__isnull=True
        )

    def get_serializer_context(self) -> dict[str, Any]:
        # The list shows long user messages as previews; the detail view has them whole.
        return {**super().get_serializer_context(), "preview": True}

    @extend_schema(
        request=MessageCreateSerializer,
        responses={202: SubmissionSerializer, **error_responses(422)},
        parameters=[IDEMPOTENCY_PARAMETER],
    )
    def post(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        user = request_user(request)
        # A token's user came with its profile (chat.api.authentication); a session user
        # (the web chat) gets it joined with the conversation: one query either way.
        with_token = isinstance(request.auth, ApiToken) and type(user).profile.is_cached(user)
        conversations = owned_conversations(user)
        if not with_token:
            conversations = conversations.select_related("owner__profile")
        conversation = get_object_or_404(conversations, pk=self.kwargs["conversation_id"])
        if with_token:
            conversation.owner = user  # the same row (owned_conversations), profile included
        serializer = MessageCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        content = serializer.validated_data["content"]
        key = request.headers.get("Idempotency-Key")
        if key is None:
            body = render_submission(
                submit_message(
                    user=request_user(request),
                    conversation=conversation,
                    content=content,
                    accept_language=request.headers.get("Accept-Language"),
                )
            )
            return Response(body, status=status.HTTP_202_ACCEPTED)
        if not IDEMPOTENCY_KEY.match(key):
            raise ValidationError({"Idempotency-Key": [_("Use 1-128 characters: letters, digits, '.', '_', ':' or '-'.")]})
        try:
            body, _created = submit_message_once(
                user=request_user(request),
                conversation=conversation,
                content=content,
                key=key,
                fingerprint=request_fingerprint(conversation_id=conversation.pk, body=request.data),
                render=render_submission,
                accept_language=request.headers.get("Accept-Language"),
            )
        except IdempotencyConflict as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_422_UNPROCESSABLE_ENTITY)
        return Response(body, status=status.HTTP_202_ACCEPTED)


def render_submission(submission: Submission) -> dict[str, Any]:
    """The 202, from the objects in memory: the messages were just created (no query)."""
    return SubmissionSerializer(
        {"user_message": submission.user_message, "assistant_message": submission.assistant_message},
        context={"preview": True, "relations": submission.relations},
    ).data


class MessageDetailView(generics.RetrieveAPIView):
    """One of your messages; poll an assistant reply until it is done, failed or cancelled.

    While it runs, ``content`` holds the text so far.
    """

    serializer_class = MessageSerializer

    def get_queryset(self) -> QuerySet[Message]:
        return owned_messages(request_user(self.request))


class MessageRetryView(APIView):
    """Queue a failed assistant reply again (throttled with the message rate; once at a time)."""

    throttle_scope = "messages"
    throttle_classes = [MessageRateThrottle]

    @extend_schema(request=None, responses={202: MessageSerializer, **error_responses(409)})
    def post(self, request: Request, pk: int) -> Response:
        message = get_object_or_404(owned_messages(request_user(request)), pk=pk)
        retried = retry_reply(message)
        if retried is None:
            message.refresh_from_db(fields=["status"])
            return Response({"detail": retry_refusal(message)}, status=status.HTTP_409_CONFLICT)
        return Response(MessageSerializer(retried).data, status=status.HTTP_202_ACCEPTED)


def retry_refusal(message: Message) -> str:
    if message.role == Message.Role.ASSISTANT and message.status in (Message.Status.PENDING, Message.Status.RUNNING):
        return _("This reply is already queued or running; retry it if it fails.")
    return _("Only a failed (or stuck) assistant reply can be retried.")


class MessageCancelView(APIView):
    """Stop a reply while it is written (idempotent).

    A pending or running reply becomes ``cancelled`` ("stopped"): its text so far stays
    and the writes it proposed never run. A reply that already ended is returned as it
    is, with 200 too. A user message answers 409.
    """

    @extend_schema(request=None, responses={200: MessageSerializer, **error_responses(401, 404, 409)})
    def post(self, request: Request, pk: int) -> Response:
        message = get_object_or_404(owned_messages(request_user(request)), pk=pk)
        if message.role != Message.Role.ASSISTANT:
            return Response({"detail": _("Only an assistant reply can be stopped.")}, status=status.HTTP_409_CONFLICT)
        return Response(MessageSerializer(cancel_reply(message)).data)


class MessageRegenerateView(APIView):
    """Answer the last user message again (throttled with the message rate).

    ``id`` is the conversation's last reply, once it has ended (done, failed or stopped).
    It is superseded: kept, but out of the thread and the model's history, and the
    actions it proposed expire. The 202 is shaped like a new message's, with a new
    pending reply to the same user message (done at once when a command wrote the reply:
    /help, shell output). 409 when it is not the last reply or still runs.
    """

    throttle_scope = "messages"
    throttle_classes = [MessageRateThrottle]

    @extend_schema(request=None, responses={202: SubmissionSerializer, **error_responses(409)})
    def post(self, request: Request, pk: int) -> Response:
        message = get_object_or_404(owned_messages(request_user(request)), pk=pk)
        try:
            submission = regenerate_reply(message)
        except TurnConflict as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        return Response(render_submission(submission), status=status.HTTP_202_ACCEPTED)


class MessageEditView(APIView):
    """Replace your last message with new text and get a new reply (throttled with the message rate).

    ``id`` is your last message in the conversation; its reply must have ended (stop it
    first, else 409). The old message and its reply are superseded (kept, hidden), and
    the new text goes through the same steps as a new message. 202 like sending one.
    """

    throttle_scope = "messages"
    throttle_classes = [MessageRateThrottle]

    @extend_schema(request=MessageCreateSerializer, responses={202: SubmissionSerializer, **error_responses(409)})
    def post(self, request: Request, pk: int) -> Response:
        message = get_object_or_404(
            owned_messages(request_user(request)).select_related("conversation__owner__profile"), pk=pk
        )
        serializer = MessageCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        try:
            submission = submit_message(
                user=request_user(request),
                conversation=message.conversation,
                content=serializer.validated_data["content"],
                accept_language=request.headers.get("Accept-Language"),
                replacing=message,
            )
        except TurnConflict as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        return Response(render_submission(submission), status=status.HTTP_202_ACCEPTED)


class TokenView(APIView):
    """Obtain a token for a client (POST with username and password) or revoke the one you use (DELETE)."""

    def get_permissions(self) -> list[Any]:
        return [AllowAny()] if self.request.method == "POST" else [IsAuthenticated()]

    def get_throttles(self) -> list[Any]:
        # Password guessing: the sign-in budgets (chat/throttling.py), shared with the
        # web and admin sign-ins.
        return sign_in_throttles() if self.request.method == "POST" else []

    def perform_authentication(self, request: Request) -> None:
        # Logging in must not be blocked by a stale or revoked token still in the header.
        if request.method != "POST":
            super().perform_authentication(request)

    @extend_schema(request=CredentialsSerializer, responses={200: TokenSerializer})
    def post(self, request: Request) -> Response:
        serializer = CredentialsSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        user = authenticate(
            request._request,
            username=serializer.validated_data["username"],
            password=serializer.validated_data["password"],
        )
        if user is None or not user.is_active:
            sign_in_failed(request, serializer.validated_data["username"])
            raise AuthenticationFailed(_("Unable to log in with the provided credentials."))
        forget_sign_ins(request, user.get_username())
        token, key = issue_token(user, serializer.validated_data.get("client", "").strip())
        return Response({"token": key, "id": token.pk, "client": token.client, "expires_at": token.expires_at})

    @extend_schema(request=None, responses={204: None})
    def delete(self, request: Request) -> Response:
        # The token this request came with; a session (the web chat) has none to revoke.
        if isinstance(request.auth, ApiToken):
            request.auth.delete()
        return Response(status=status.HTTP_204_NO_CONTENT)


def _rendered_token(token: ApiToken, request: Request) -> dict[str, Any]:
    current = isinstance(request.auth, ApiToken) and request.auth.pk == token.pk
    return {
        "id": token.pk,
        "client": token.client,
        "created_at": token.created_at,
        "expires_at": token.expires_at,
        "current": current,
    }


class TokenListView(APIView):
    """Your API tokens that have not expired, newest first (keys are never shown again)."""

    @extend_schema(operation_id="list_auth_tokens", responses={200: ApiTokenSerializer(many=True)})
    def get(self, request: Request) -> Response:
        tokens = ApiToken.objects.filter(user=request_user(request), expires_at__gt=timezone.now())
        return Response(ApiTokenSerializer([_rendered_token(t, request) for t in tokens], many=True).data)


class TokenDetailView(APIView):
    """Revoke one of your API tokens (a lost phone, an old script)."""

    @extend_schema(operation_id="revoke_auth_token", request=None, responses={204: None, **error_responses(404)})
    def delete(self, request: Request, pk: int) -> Response:
        get_object_or_404(ApiToken.objects.filter(user=request_user(request)), pk=pk).delete()
        return Response(status=status.HTTP_204_NO_CONTENT)


class ConversationContextView(APIView):
    """The light conversation context: store, retrieve or clear (docs/specification.md, light context)."""

    @extend_schema(
        operation_id="manage_conversation_context",
        request=CONTEXT_ACTION,
        responses={
            200: CONTEXT_RESULT,
            # The contract's own error body, for unparseable JSON too.
            400: ContextErrorSerializer,
        },
    )
    def post(self, request: Request, conversation_id: int) -> Response:
        conversation = get_object_or_404(owned_conversations(request_user(request)), pk=conversation_id)
        try:
            payload = request.data
        except ParseError as exc:  # the contract's own error body, even for unparseable JSON
            return Response({"success": False, "error": str(exc.detail)}, status=status.HTTP_400_BAD_REQUEST)
        if not isinstance(payload, dict):
            return Response({"success": False, "error": "The body must be a JSON object."}, status=400)
        body = handle_context_action(conversation, payload)
        return Response(body, status=status.HTTP_200_OK if body["success"] else status.HTTP_400_BAD_REQUEST)


class CommandListView(APIView):
    """The commands you may type in a message (/help, /<skill name>, and ! for allowed staff)."""

    @extend_schema(responses={200: CommandSerializer(many=True)})
    def get(self, request: Request) -> Response:
        profile = Profile.for_user(request_user(request))
        commands = available_commands(
            current_catalog().skills,
            preferences=profile.preferences,
            is_staff=request.user.is_staff,
            disabled=profile.disabled_skills,
        )
        return Response(CommandSerializer(commands, many=True).data)
