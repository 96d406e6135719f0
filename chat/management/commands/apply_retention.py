"""``manage.py apply_retention``: delete the conversations idle past their owner's retention now."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from chat.erasure import apply_retention


class Command(BaseCommand):
    help = "Delete conversations idle longer than their owner's retention_days (capped by RETENTION_MAX_DAYS)."

    def handle(self, *args: Any, **options: Any) -> None:
        deleted = apply_retention()
        self.stdout.write(f"Deleted {deleted} conversations.")
