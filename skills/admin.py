from django.contrib import admin

from .models import Skill


@admin.register(Skill)
class SkillAdmin(admin.ModelAdmin):
    list_display = ["name", "priority", "enabled", "temperature", "tone_style", "requires_user_preference", "updated_at"]
    list_filter = ["enabled", "tone_style", "requires_user_preference"]
    search_fields = ["name", "description", "prompt_extension"]
