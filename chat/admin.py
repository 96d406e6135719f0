from typing import Any

from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils import timezone

from lifeassistant.admin_pages import model_page
from skills.forms import UsagePeriodForm
from skills.usage import REASON_HELP, LedgerRow, UsageSummary, period_bounds, summarize

from documents.admin import ChatDocumentAdmin
from documents.models import ChatDocument

from .answering import model_system_prompt
from .models import (
    SERVICE_FIELDS,
    ContentAccess,
    Conversation,
    IdempotencyRecord,
    Message,
    PendingAction,
    Prompt,
    ToolCall,
)
from .tool_stats import recent_events, tally

# What users wrote and were answered is theirs: staff read it only with this permission
# (view_message shows the metadata), and each page that shows it is logged (ContentAccess).
READ_CONTENT = "chat.read_message_content"


def reads_content(request: HttpRequest) -> bool:
    return request.user.has_perm(READ_CONTENT)


def log_content_access(request: HttpRequest, owner_id: int, what: str) -> None:
    ContentAccess.objects.create(
        staff_id=request.user.pk, staff_username=request.user.get_username(), owner_id=owner_id, what=what
    )


class ContentGated(admin.ModelAdmin):
    """An admin of rows that hold what users wrote or were answered (tool arguments and
    results, proposals, documents, prompts): the ``content_fields`` are shown, listed and
    searched only with ``READ_CONTENT``, and each change page that shows them is logged
    against ``owner_id_of`` (None: a row nobody's messages use any more, not logged)."""

    content_fields: frozenset[str] = frozenset()

    def _gated(self, request: HttpRequest, names: Any) -> Any:
        return names if reads_content(request) else [name for name in names if name not in self.content_fields]

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return self._gated(request, super().get_fields(request, obj))

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return self._gated(request, super().get_readonly_fields(request, obj))

    def get_list_display(self, request: HttpRequest) -> Any:
        return self._gated(request, super().get_list_display(request))

    def get_search_fields(self, request: HttpRequest) -> Any:
        # A search by text would tell who wrote what without showing it.
        return super().get_search_fields(request) if reads_content(request) else [
            name for name in super().get_search_fields(request) if name.split("__")[0] not in self.content_fields
        ]

    def owner_id_of(self, obj: Any) -> int | None:
        raise NotImplementedError

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        response = super().change_view(request, object_id, form_url, extra_context)
        shown = getattr(response, "context_data", {}).get("original")
        if reads_content(request) and response.status_code == 200 and shown is not None:
            owner_id = self.owner_id_of(shown)
            if owner_id is not None:
                log_content_access(request, owner_id, f"{self.model._meta.model_name} {shown.pk}")
        return response


class MessageInline(admin.TabularInline):
    model = Message
    fields = readonly_fields = ("role", "status", "content", "active_skills", "skill_reason", "created_at")
    extra = 0
    show_change_link = True
    can_delete = False

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        fields = super().get_fields(request, obj)
        return fields if reads_content(request) else [name for name in fields if name != "content"]


@admin.register(Conversation)
class ConversationAdmin(admin.ModelAdmin):
    list_display = ["id", "title", "owner", "active_skills", "messages_since_detection", "created_at"]
    search_fields = ["title", "owner__username"]
    # The inertia state and has_documents belong to the message service (a save here never writes them).
    readonly_fields = sorted(SERVICE_FIELDS)
    list_select_related = ["owner"]
    raw_id_fields = ["owner"]
    inlines = [MessageInline]

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        response = super().change_view(request, object_id, form_url, extra_context)
        conversation = getattr(response, "context_data", {}).get("original")
        if reads_content(request) and response.status_code == 200 and conversation is not None:
            log_content_access(request, conversation.owner_id, f"conversation {conversation.pk}")
        return response


class ToolCallInline(admin.TabularInline):
    model = ToolCall
    fields = readonly_fields = ("iteration", "tool", "arguments", "ok", "error", "duration_ms")
    extra = 0
    can_delete = False


@admin.register(Message)
class MessageAdmin(admin.ModelAdmin):
    list_display = ["id", "conversation", "role", "status", "skill_reason", "active_skills", "fixed_tokens", "created_at"]
    list_filter = ["role", "status", "skill_reason", "created_at"]
    search_fields = ["content", "intent"]
    raw_id_fields = ["conversation", "reply_to"]
    # The prompt is shared by many replies: shown, never edited from one of them.
    readonly_fields = ["prompt", "system_prompt_as_sent"]
    list_select_related = ["conversation"]
    inlines = [ToolCallInline]
    # Shown only with READ_CONTENT: what the user wrote, the answer, the tool calls'
    # arguments and results, and the prompt (it carries the user's memory).
    CONTENT_FIELDS = frozenset({"content", "intent", "error", "prompt", "system_prompt_as_sent"})

    def get_fields(self, request: HttpRequest, obj: Message | None = None) -> Any:
        fields = super().get_fields(request, obj)
        return fields if reads_content(request) else [name for name in fields if name not in self.CONTENT_FIELDS]

    def get_readonly_fields(self, request: HttpRequest, obj: Message | None = None) -> Any:
        fields = super().get_readonly_fields(request, obj)
        return fields if reads_content(request) else [name for name in fields if name not in self.CONTENT_FIELDS]

    def get_inlines(self, request: HttpRequest, obj: Message | None) -> Any:
        return super().get_inlines(request, obj) if reads_content(request) else []

    def get_search_fields(self, request: HttpRequest) -> Any:
        # A search by text would tell who wrote what without showing it.
        return super().get_search_fields(request) if reads_content(request) else []

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        response = super().change_view(request, object_id, form_url, extra_context)
        message = getattr(response, "context_data", {}).get("original")
        if reads_content(request) and response.status_code == 200 and message is not None:
            log_content_access(request, message.conversation.owner_id, f"message {message.pk}")
        return response

    @admin.display(description="System prompt (as the model gets it, with the documents listed when the reply runs)")
    def system_prompt_as_sent(self, message: Message) -> str:
        return model_system_prompt(message) if message.role == Message.Role.ASSISTANT else ""

    def get_urls(self) -> list[URLPattern]:
        usage = path("skill-usage/", model_page(self, self.skill_usage_view), name="chat_message_skill_usage")
        return [usage, *super().get_urls()]

    def skill_usage_view(self, request: HttpRequest) -> HttpResponse:
        """Which skills answered in a period, why, and the fixed tokens they saved (?period=7d)."""
        form = UsagePeriodForm(request.GET if "period" in request.GET else {"period": "7d"})
        summary = start = end = None
        if form.is_valid():
            start, end = period_bounds(
                form.cleaned_data["period"],
                now=timezone.now(),
                start=form.cleaned_data.get("start"),
                end=form.cleaned_data.get("end"),
                tz=timezone.get_current_timezone(),
            )
            summary = skill_usage_between(start, end)
        context: dict[str, Any] = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": "Skill usage",
            "form": form,
            "summary": summary,
            "start": start,
            "end": end,
            "reason_help": REASON_HELP,
            "changelist_url": reverse("admin:skills_skill_changelist"),
        }
        return TemplateResponse(request, "admin/chat/message/skill_usage.html", context)


# Beyond this many messages in a period only the most recent ones are aggregated.
MAX_USAGE_MESSAGES = 100_000


def skill_usage_between(start: Any, end: Any, *, limit: int = MAX_USAGE_MESSAGES) -> UsageSummary:
    """Summarize the assistant messages created in [start, end), newest ``limit`` at most."""
    values = list(
        Message.objects.filter(role=Message.Role.ASSISTANT, created_at__gte=start, created_at__lt=end)
        .order_by("-created_at", "-id")
        .values_list("active_skills", "skill_reason", "fixed_tokens", "monolithic_fixed_tokens")[: limit + 1]
    )
    rows = (
        LedgerRow(tuple(skills or ()), reason, fixed, monolithic)
        for skills, reason, fixed, monolithic in values[:limit]
    )
    return summarize(rows, truncated=len(values) > limit)


@admin.register(ToolCall)
class ToolCallAdmin(ContentGated):
    list_display = ["id", "tool", "ok", "duration_ms", "message", "created_at"]
    content_fields = frozenset({"arguments", "result", "error"})
    list_filter = ["tool", "ok"]
    raw_id_fields = ["message"]
    change_list_template = "admin/chat/toolcall/change_list.html"

    def get_urls(self) -> list[URLPattern]:
        stats = path("stats/", model_page(self, self.stats_view), name="chat_toolcall_stats")
        return [stats, *super().get_urls()]

    def stats_view(self, request: HttpRequest) -> HttpResponse:
        """Success rate per tool and per skill over the last days (?days=30)."""
        try:
            days = min(max(int(request.GET.get("days", 30)), 1), 365)
        except ValueError:
            days = 30
        by_tool, by_skill = tally(recent_events(days))
        context: dict[str, Any] = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": f"Tool success rate, last {days} days",
            "days": days,
            "by_tool": by_tool,
            "by_skill": by_skill,
        }
        return TemplateResponse(request, "admin/chat/toolcall/stats.html", context)

    def owner_id_of(self, obj: ToolCall) -> int | None:
        return obj.message.conversation.owner_id


@admin.register(PendingAction)
class PendingActionAdmin(ContentGated):
    list_display = ["id", "tool", "summary", "status", "conversation", "created_at", "expires_at", "executed_at"]
    list_filter = ["status", "tool", "created_at"]
    search_fields = ["summary", "conversation__owner__username"]
    raw_id_fields = ["conversation", "message"]
    list_select_related = ["conversation"]
    readonly_fields = ["result", "error", "decided_at", "executed_at", "created_at"]
    content_fields = frozenset({"arguments", "summary", "result", "error"})

    def owner_id_of(self, obj: PendingAction) -> int | None:
        return obj.conversation.owner_id


@admin.register(IdempotencyRecord)
class IdempotencyRecordAdmin(admin.ModelAdmin):
    list_display = ["key", "owner", "created_at"]
    raw_id_fields = ["owner"]


@admin.register(Prompt)
class PromptAdmin(ContentGated):
    """System prompts, each stored once and referenced by the replies that used it (they
    carry "About the user": shown only with READ_CONTENT)."""

    content_fields = frozenset({"text"})

    def owner_id_of(self, obj: Prompt) -> int | None:
        # Shared by the replies that used it (each user's "About the user" makes it theirs):
        # logged against the owner of the first reply that used it.
        owner_id: int | None = (
            Message.objects.filter(prompt=obj).order_by("id").values_list("conversation__owner_id", flat=True).first()
        )
        return owner_id

    list_display = ["sha256", "length"]
    search_fields = ["sha256", "text"]
    readonly_fields = ["sha256", "text"]

    @admin.display(description="characters")
    def length(self, prompt: Prompt) -> int:
        return len(prompt.text)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Prompt | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Prompt | None = None) -> bool:
        # Processes skip inserting a prompt they stored lately (chat.models.CommittedPrompts),
        # so only the sweep, which waits them out, deletes prompts (manage.py sweep_prompts).
        return False


@admin.register(ContentAccess)
class ContentAccessAdmin(admin.ModelAdmin):
    """Who read which user's messages, and when: for superusers, and nobody edits it."""

    list_display = ["read_at", "staff_username", "owner", "what"]
    list_filter = ["read_at"]
    search_fields = ["staff_username", "owner__username"]
    list_select_related = ["owner"]

    def has_module_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.is_active and request.user.is_superuser)

    def has_view_permission(self, request: HttpRequest, obj: ContentAccess | None = None) -> bool:
        return bool(request.user.is_active and request.user.is_superuser)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: ContentAccess | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: ContentAccess | None = None) -> bool:
        return False


class ChatDocumentContentAdmin(ContentGated, ChatDocumentAdmin):
    """Documents hold what users pasted or sent: gated like messages (registered here, above
    the documents app, which knows nothing of this permission)."""

    content_fields = frozenset({"content", "summary", "title", "original", "transactions"})

    def owner_id_of(self, obj: ChatDocument) -> int | None:
        return obj.owner_id


admin.site.unregister(ChatDocument)
admin.site.register(ChatDocument, ChatDocumentContentAdmin)
