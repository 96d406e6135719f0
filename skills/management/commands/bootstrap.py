from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandParser

from lifeassistant.models import Profile
from skills.loading import load_directory

SHIPPED_SKILLS = Path(__file__).resolve().parents[3] / "skills" / "definitions"


class Command(BaseCommand):
    help = (
        "Load the shipped skills and, with DEBUG on or --demo-user, create the demo superuser "
        "(safe to run again)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--username", default="demo")
        parser.add_argument("--password", default="demo-pass-123")
        parser.add_argument(
            "--demo-user",
            action="store_true",
            help="Create the demo superuser even with DEBUG off (its password is in the README).",
        )

    def handle(self, *args: Any, username: str, password: str, demo_user: bool, **options: Any) -> None:
        self.stdout.write(load_directory(SHIPPED_SKILLS).summary())
        # A superuser with a published password must not appear on a production server
        # that runs bootstrap after an upgrade.
        if not (settings.DEBUG or demo_user):
            self.stdout.write(
                "\nDEBUG is off: skills loaded, no demo user created "
                "(pass --demo-user to create one; createsuperuser makes a real one)."
            )
            return
        user_model = get_user_model()
        user, created = user_model.objects.get_or_create(username=username, defaults={"is_staff": True})
        if created:
            user.set_password(password)
            user.is_superuser = True
            user.save()
        Profile.for_user(user)
        model = settings.LLM_MODEL
        self.stdout.write(
            "\nReady on http://127.0.0.1:8000/  (admin at /admin/, API docs at /api/docs/)\n"
            f"Demo login: {username} / {password if created else '(unchanged)'}\n"
            f"Model: {model}" + (" — offline, set LLM_MODEL for a real model" if model == settings.OFFLINE_MODEL else "")
        )
