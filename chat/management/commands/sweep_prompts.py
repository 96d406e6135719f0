"""``manage.py sweep_prompts``: delete the stored prompts no message refers to any more."""

from typing import Any

from django.core.management.base import BaseCommand
from django.utils import timezone

from chat.models import PROMPT_CACHE_SECONDS
from chat.prompt_sweep import sweep_prompts


class Command(BaseCommand):
    help = (
        "Delete the stored system prompts no message refers to (they hold what was known about "
        f"the user). Two runs at least {PROMPT_CACHE_SECONDS // 60} minutes apart: the first marks "
        "a prompt, the next deletes it. Run it hourly (cron)."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        swept = sweep_prompts(timezone.now())
        self.stdout.write(f"deleted: {swept.deleted}\nmarked unreferenced: {swept.marked}")
