"""Conversations, their messages and the tool calls the model made."""

from __future__ import annotations

import hashlib
import threading
import time
from typing import Any

from django.conf import settings
from django.db import models, transaction

from .failures import Failure


class Conversation(models.Model):
    """One user's chat thread. Also holds the skill state used for inertia."""

    # No index of its own: conv_owner_created starts with it.
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="conversations", db_index=False
    )
    class TitleSource(models.TextChoices):
        NONE = "", "none"
        MESSAGE = "message", "the first message"  # the offline heuristic; the model may replace it
        MODEL = "model", "the model"
        USER = "user", "the user"  # never replaced

    title = models.CharField(max_length=200, blank=True)
    title_source = models.CharField(max_length=8, choices=TitleSource.choices, default=TitleSource.NONE, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    # Skill inertia (docs/specification.md, skills architecture §5.3): what is active and for how long it stays.
    active_skills = models.JSONField(default=list, blank=True)
    skills_detected_at = models.DateTimeField(null=True, blank=True)
    messages_since_detection = models.PositiveIntegerField(default=0)
    # Per active skill, in order, the messages since it last fired (empty: all fired last): a
    # topic carried along by combinations lapses by it (skills.inertia, "Lapse"). The database
    # default lets a process still running code from before this column insert conversations
    # during a rolling upgrade (docs/operations.md).
    skills_quiet_for = models.JSONField(default=list, db_default=[], blank=True)
    # The language of its latest user message that had a detectable one: a short message
    # ("ok", "gastei 50") keeps it.
    language = models.CharField(max_length=8, blank=True)
    # Set with the first documents a message attaches, under the conversation's lock, so
    # the next message's lock reads it fresh (an EXISTS in that statement would not see
    # documents committed while it waited). It offers replies ``read_document``.
    has_documents = models.BooleanField(default=False)

    class Meta:
        # Most recently active first, as chat apps list them: a message (or a rename) moves
        # a conversation up.
        ordering = ["-updated_at", "-id"]
        indexes = [models.Index(fields=["owner", "-updated_at", "-id"], name="conv_owner_updated")]

    def __str__(self) -> str:
        return self.title or f"Conversation {self.pk}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        """Save; on an existing row, only the fields named, never by default the fields
        the message service owns (``SERVICE_FIELDS``).

        The inertia state and ``has_documents`` are written under the conversation's lock by
        the message service, naming its fields (``update_fields``). Any other save of an
        existing row — a rename, the admin — writes the other fields only, so it cannot put
        back the stale skills (or the "no documents") it read before a message changed them.
        """
        if not self._state.adding and kwargs.get("update_fields") is None:
            kwargs["update_fields"] = [
                field.name
                for field in self._meta.concrete_fields
                if not field.primary_key and field.name not in SERVICE_FIELDS
            ]
        super().save(*args, **kwargs)


# Written only by the message service, under the conversation's lock (chat/services.py).
SERVICE_FIELDS = frozenset(
    {"active_skills", "skills_detected_at", "messages_since_detection", "skills_quiet_for", "has_documents"}
)


class Prompt(models.Model):
    """A system prompt, stored once and referenced by its SHA-256 from every reply that used it.

    Most replies of a deployment share a handful of composed prompts: storing the text
    on each reply cost ~3 KB per reply, four times the messages themselves. A prompt holds
    what was known about its user, so one no message refers to any more (its conversation
    deleted, a retried reply rebuilt) is deleted by ``manage.py sweep_prompts``.
    """

    sha256 = models.CharField(max_length=64, primary_key=True)
    text = models.TextField()
    # Set by the sweep when it finds no message referring to the prompt, cleared when a
    # message stores it again; the next sweep, PROMPT_CACHE_SECONDS later or more, deletes it.
    unreferenced_since = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return self.sha256[:12]

    @staticmethod
    def digest(text: str) -> str:
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def store(self) -> None:
        """Insert this row, or clear its sweep mark if it exists: one upsert, or no query
        at all when this process stored the row less than PROMPT_CACHE_SECONDS ago
        (``CommittedPrompts``)."""
        if self.sha256 in COMMITTED_PROMPTS:
            return
        self.unreferenced_since = None
        Prompt.objects.bulk_create(
            [self], update_conflicts=True, unique_fields=["sha256"], update_fields=["unreferenced_since"]
        )
        digest = self.sha256
        # Only once committed: a rolled-back insert leaves no row to reference.
        transaction.on_commit(lambda: COMMITTED_PROMPTS.add(digest))


# How long a process trusts that a prompt row it stored still exists. The sweep deletes a
# prompt only when it was found unreferenced at least this long ago and no store() since
# cleared the mark, so no process can still skip storing it.
PROMPT_CACHE_SECONDS = 3600


class CommittedPrompts:
    """Digests of prompt rows this process stored, newest ``limit`` kept, each for
    ``PROMPT_CACHE_SECONDS``.

    Most replies share a few composed prompts, so the insert of each POST almost always
    found its row there: a round trip for nothing. ``manage.py flush`` (as the tests run
    it) empties the table, and then this too (``post_migrate``, see ``ChatConfig``).
    """

    def __init__(self, limit: int = 4096, seconds: float = PROMPT_CACHE_SECONDS) -> None:
        self.limit = limit
        self.seconds = seconds
        self._stored_at: dict[str, float] = {}
        self._lock = threading.Lock()

    def __contains__(self, digest: str) -> bool:
        stored_at = self._stored_at.get(digest)
        return stored_at is not None and time.monotonic() - stored_at < self.seconds

    def add(self, digest: str) -> None:
        with self._lock:
            self._stored_at.pop(digest, None)
            self._stored_at[digest] = time.monotonic()
            if len(self._stored_at) > self.limit:
                del self._stored_at[next(iter(self._stored_at))]

    def clear(self, **_: Any) -> None:
        with self._lock:
            self._stored_at.clear()


COMMITTED_PROMPTS = CommittedPrompts()


def lock_conversation(pk: int) -> Conversation:
    """Lock a conversation's row for the current transaction and return it.

    The one global lock order: a write that touches a conversation's messages or
    actions locks the conversation first, then the action rows. FOR NO KEY UPDATE
    serialises these writers without blocking the foreign-key checks (FOR KEY SHARE)
    of rows inserted under the conversation.
    """
    return conversations_to_lock().get(pk=pk)


def conversations_to_lock() -> models.QuerySet[Conversation]:
    """Conversations whose row a ``get`` locks (see ``lock_conversation``); for a lock
    that reads more in the same statement (an ``annotate``)."""
    return Conversation.objects.select_for_update(no_key=True)


class Message(models.Model):
    """A user message, or the assistant's reply to one (which starts pending)."""

    class Role(models.TextChoices):
        USER = "user"
        ASSISTANT = "assistant"

    class Status(models.TextChoices):
        PENDING = "pending"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"
        CANCELLED = "cancelled"  # stopped by the user; shown as "stopped"

    # No index of its own: msg_conv_created starts with it.
    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="messages", db_index=False)
    role = models.CharField(max_length=16, choices=Role.choices)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.DONE)
    # A user message has one live reply (constraint below); regenerated ones stay, superseded.
    reply_to = models.ForeignKey(
        "self", on_delete=models.CASCADE, null=True, blank=True, related_name="replies"
    )
    content = models.TextField(blank=True, help_text="What the user wrote, or the assistant's answer (the text so far while it runs).")
    intent = models.TextField(blank=True, help_text="The clean intent derived from a user message.")
    language = models.CharField(max_length=8, blank=True)
    # A failed reply: what went wrong for the logs and the admin (class names, provider
    # text), and the code whose sentence the API shows instead (``chat.failures``).
    error = models.TextField(blank=True)
    error_code = models.CharField(max_length=32, choices=Failure.choices, blank=True)
    # What the pipeline decided for an assistant message (the skills ledger).
    active_skills = models.JSONField(default=list, blank=True)
    skill_reason = models.CharField(max_length=16, blank=True)
    tools_offered = models.JSONField(default=list, blank=True)
    # Purposes (lifeassistant.privacy) whose consent the reply asks for: its skill or
    # tools were withheld for lack of it.
    consent_asked = models.JSONField(default=list, blank=True)
    temperature = models.FloatField(null=True, blank=True)
    prompt = models.ForeignKey(
        Prompt, on_delete=models.PROTECT, null=True, blank=True, related_name="+",
        help_text="The system prompt the reply was given (stored once per distinct text).",
    )
    fixed_tokens = models.PositiveIntegerField(null=True, blank=True)
    monolithic_fixed_tokens = models.PositiveIntegerField(null=True, blank=True)
    # Usage reported by the provider, summed over the tool loop.
    model = models.CharField(max_length=200, blank=True)
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    cost = models.DecimalField(max_digits=12, decimal_places=6, null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # The process running the reply (chat/replies.py): while it is alive, nobody else may.
    runner = models.CharField(max_length=100, blank=True, default="", editable=False)
    superseded_at = models.DateTimeField(
        null=True, blank=True,
        help_text="When a regenerated reply or an edited message replaced it: kept, but out of the thread and the model's history.",
    )

    # A prompt given through ``system_prompt`` and not yet stored (see save()).
    _prompt_to_store: Prompt | None = None

    class Meta:
        ordering = ["created_at", "id"]
        # view_message shows a message's metadata; its text needs this one, and each
        # reading is logged (ContentAccess).
        permissions = [("read_message_content", "Can read the content of users' messages")]
        indexes = [
            models.Index(fields=["conversation", "created_at", "id"], name="msg_conv_created"),
            models.Index(fields=["status", "created_at"], name="msg_status_created"),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["reply_to"], condition=models.Q(superseded_at__isnull=True), name="msg_one_live_reply"
            )
        ]

    def __str__(self) -> str:
        return f"{self.role} #{self.pk}"

    @property
    def has_ended(self) -> bool:
        """Done, failed or stopped: its text will not change again."""
        return self.status in FINAL_STATUSES

    @property
    def system_prompt(self) -> str:
        """The reply's system prompt text ("" for user messages and command answers)."""
        return self.prompt.text if self.prompt is not None else ""

    @system_prompt.setter
    def system_prompt(self, text: str) -> None:
        # Stored (if new) when the message is saved, so creating a message stays one call.
        self._prompt_to_store = Prompt(sha256=Prompt.digest(text), text=text) if text else None
        self.prompt = self._prompt_to_store

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self._prompt_to_store is not None:
            self._prompt_to_store.store()
            self._prompt_to_store = None
        super().save(*args, **kwargs)

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


# The statuses a reply ends in.
FINAL_STATUSES = (Message.Status.DONE, Message.Status.FAILED, Message.Status.CANCELLED)


class ToolCall(models.Model):
    """One tool call the model made while answering a message."""

    # No index of its own: toolcall_unique_per_message starts with it.
    message = models.ForeignKey(Message, on_delete=models.CASCADE, related_name="tool_calls", db_index=False)
    call_id = models.CharField(max_length=128, help_text="The provider's id for this call.")
    iteration = models.PositiveSmallIntegerField(default=0)
    tool = models.CharField(max_length=64)
    arguments = models.JSONField(default=dict, blank=True)
    result = models.JSONField(null=True, blank=True)
    ok = models.BooleanField(default=False)
    error = models.TextField(blank=True)
    duration_ms = models.FloatField(default=0.0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [models.UniqueConstraint(fields=["message", "call_id"], name="toolcall_unique_per_message")]
        indexes = [models.Index(fields=["tool", "created_at"], name="toolcall_tool_created")]

    def __str__(self) -> str:
        return f"{self.tool} ({'ok' if self.ok else 'error'})"


class IdempotencyRecord(models.Model):
    """The first response to a message create, replayed for retries with the same key."""

    # No index of its own: idempotency_unique_key_per_user starts with it.
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False)
    key = models.CharField(max_length=128)
    fingerprint = models.CharField(max_length=64, help_text="SHA-256 of the request target and body.")
    response_body = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["owner", "key"], name="idempotency_unique_key_per_user")]


class PendingAction(models.Model):
    """A writing tool call the model proposed, waiting for the user to confirm it.

    Nothing is written when the model calls a writing tool: the call becomes a pending
    action, the user accepts or rejects it (by message or through the API), and only an
    accepted, unexpired action runs, exactly once.
    """

    class Status(models.TextChoices):
        PENDING = "pending"
        ACCEPTED = "accepted"  # no longer written (an action runs under its locks); kept for old rows
        REJECTED = "rejected"
        EXPIRED = "expired"
        EXECUTED = "executed"
        FAILED = "failed"

    # Neither key has an index of its own: pendingaction_conv_status and
    # pendingaction_unique_per_call start with them.
    conversation = models.ForeignKey(
        Conversation, on_delete=models.CASCADE, related_name="pending_actions", db_index=False
    )
    message = models.ForeignKey(
        Message, on_delete=models.CASCADE, related_name="pending_actions", help_text="The reply that proposed it.",
        db_index=False,
    )
    tool_call_id = models.CharField(max_length=128)
    tool = models.CharField(max_length=64)
    arguments = models.JSONField(default=dict, blank=True)
    summary = models.CharField(max_length=500)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    result = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    decided_at = models.DateTimeField(null=True, blank=True)
    executed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["message", "tool_call_id"], name="pendingaction_unique_per_call")
        ]
        indexes = [models.Index(fields=["conversation", "status"], name="pendingaction_conv_status")]

    def __str__(self) -> str:
        return f"{self.tool} ({self.status})"


class ApiToken(models.Model):
    """An API token of one user for one client (a phone, an app, a script).

    Only a SHA-256 digest of the key is stored, so a database dump or the admin holds no
    usable token. A token expires (``API_TOKEN_TTL_DAYS``) and every token of a user is
    revoked when the password changes (``chat.api_tokens``).
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    # The device or client name given at sign-in; signing in again under it replaces its token.
    client = models.CharField(max_length=100, blank=True)
    digest = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()

    class Meta:
        ordering = ("-created_at", "-id")

    def __str__(self) -> str:
        return f"{self.user_id}:{self.client or '-'}"


class ContentAccess(models.Model):
    """A staff member read a user's message content in the admin: who, whose, when.

    Written by the admin only; nobody can change or delete a row there, and only
    superusers see them. It goes with the user it names (their data), and keeps the
    reader's name if the reader's account is deleted.
    """

    staff = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    staff_username = models.CharField(max_length=150)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    what = models.CharField(max_length=200, help_text="The page read, e.g. message 42 or conversation 7.")
    read_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-read_at", "-id"]
        verbose_name_plural = "content accesses"

    def __str__(self) -> str:
        return f"{self.staff_username} read {self.what}"
