from django.contrib import admin

from .models import ChatDocument


@admin.register(ChatDocument)
class ChatDocumentAdmin(admin.ModelAdmin):
    list_display = ["file_name", "label", "mime_type", "size_bytes", "owner", "conversation", "created_at"]
    list_filter = ["label", "mime_type"]
    search_fields = ["file_name", "title", "summary"]
    raw_id_fields = ["owner", "conversation", "message"]
    # A sent file is checked on its way in (documents/files.py): the admin never replaces it.
    readonly_fields = ["original", "transactions"]
