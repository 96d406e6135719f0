from typing import Any

from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import URLPattern, path

from .models import Conversation, IdempotencyRecord, Message, PendingAction, ToolCall
from .tools.stats import recent_events, tally


class MessageInline(admin.TabularInline):
    model = Message
    fields = readonly_fields = ("role", "status", "content", "active_skills", "skill_reason", "created_at")
    extra = 0
    show_change_link = True
    can_delete = False


@admin.register(Conversation)
class ConversationAdmin(admin.ModelAdmin):
    list_display = ["id", "title", "owner", "active_skills", "messages_since_detection", "created_at"]
    search_fields = ["title", "owner__username"]
    list_select_related = ["owner"]
    raw_id_fields = ["owner"]
    inlines = [MessageInline]


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
    list_select_related = ["conversation"]
    inlines = [ToolCallInline]


@admin.register(ToolCall)
class ToolCallAdmin(admin.ModelAdmin):
    list_display = ["id", "tool", "ok", "duration_ms", "message", "created_at"]
    list_filter = ["tool", "ok"]
    raw_id_fields = ["message"]
    change_list_template = "admin/chat/toolcall/change_list.html"

    def get_urls(self) -> list[URLPattern]:
        stats = path("stats/", self.admin_site.admin_view(self.stats_view), name="chat_toolcall_stats")
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


@admin.register(PendingAction)
class PendingActionAdmin(admin.ModelAdmin):
    list_display = ["id", "tool", "summary", "status", "conversation", "created_at", "expires_at", "executed_at"]
    list_filter = ["status", "tool", "created_at"]
    search_fields = ["summary", "conversation__owner__username"]
    raw_id_fields = ["conversation", "message"]
    list_select_related = ["conversation"]
    readonly_fields = ["result", "error", "decided_at", "executed_at", "created_at"]


@admin.register(IdempotencyRecord)
class IdempotencyRecordAdmin(admin.ModelAdmin):
    list_display = ["key", "owner", "created_at"]
    raw_id_fields = ["owner"]
