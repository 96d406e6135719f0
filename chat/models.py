"""Conversations, their messages and the tool calls the model made."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Conversation(models.Model):
    """One user's chat thread. Also holds the skill state used for inertia."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="conversations")
    title = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    # Skill inertia (skills architecture §5.3): what is active and for how long it stays.
    active_skills = models.JSONField(default=list, blank=True)
    skills_detected_at = models.DateTimeField(null=True, blank=True)
    messages_since_detection = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["owner", "-created_at", "-id"], name="conv_owner_created")]

    def __str__(self) -> str:
        return self.title or f"Conversation {self.pk}"


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

    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="messages")
    role = models.CharField(max_length=16, choices=Role.choices)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.DONE)
    reply_to = models.OneToOneField(
        "self", on_delete=models.CASCADE, null=True, blank=True, related_name="reply"
    )
    content = models.TextField(blank=True, help_text="What the user wrote, or the assistant's final answer.")
    intent = models.TextField(blank=True, help_text="The clean intent derived from a user message.")
    language = models.CharField(max_length=8, blank=True)
    error = models.TextField(blank=True)
    # What the pipeline decided for an assistant message (the skills ledger).
    active_skills = models.JSONField(default=list, blank=True)
    skill_reason = models.CharField(max_length=16, blank=True)
    tools_offered = models.JSONField(default=list, blank=True)
    temperature = models.FloatField(null=True, blank=True)
    system_prompt = models.TextField(blank=True)
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

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [
            models.Index(fields=["conversation", "created_at", "id"], name="msg_conv_created"),
            models.Index(fields=["status", "created_at"], name="msg_status_created"),
        ]

    def __str__(self) -> str:
        return f"{self.role} #{self.pk}"

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class ToolCall(models.Model):
    """One tool call the model made while answering a message."""

    message = models.ForeignKey(Message, on_delete=models.CASCADE, related_name="tool_calls")
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

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
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
        ACCEPTED = "accepted"  # claimed for execution
        REJECTED = "rejected"
        EXPIRED = "expired"
        EXECUTED = "executed"
        FAILED = "failed"

    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="pending_actions")
    message = models.ForeignKey(
        Message, on_delete=models.CASCADE, related_name="pending_actions", help_text="The reply that proposed it."
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
