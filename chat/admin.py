from django.contrib import admin

from .models import Conversation, IdempotencyRecord, Message, ToolCall


class MessageInline(admin.TabularInline):
    model = Message
    fields = ["role", "status", "content", "active_skills", "skill_reason", "created_at"]
    readonly_fields = fields
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
    fields = ["iteration", "tool", "arguments", "ok", "error", "duration_ms"]
    readonly_fields = fields
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


@admin.register(IdempotencyRecord)
class IdempotencyRecordAdmin(admin.ModelAdmin):
    list_display = ["key", "owner", "created_at"]
    raw_id_fields = ["owner"]
