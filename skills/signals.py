"""Saves and deletes of skill rows move the catalog version (``skills.catalog_version``).

The receivers are module functions: a signal holds its receivers by weak reference, and a
function defined inside ``AppConfig.ready()`` lived on only while something else
happened to refer to it. With ``DEBUG`` on, Django's own cache of receiver signatures
did; in production nothing did, and a skill saved in the admin never reached the
running processes until they restarted.
"""

from __future__ import annotations

from typing import Any

from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from .catalog_version import skills_changed
from .models import Skill


@receiver(post_save, sender=Skill, dispatch_uid="skills-changed-save")
@receiver(post_delete, sender=Skill, dispatch_uid="skills-changed-delete")
def skill_written(**_: Any) -> None:
    skills_changed()
