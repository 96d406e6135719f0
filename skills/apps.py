from django.apps import AppConfig


class SkillsConfig(AppConfig):
    name = "skills"

    def ready(self) -> None:
        from django.db.models.signals import post_delete, post_save

        from .catalog_version import skills_changed
        from .models import Skill

        def on_write(**kwargs: object) -> None:
            skills_changed()

        post_save.connect(on_write, sender=Skill, dispatch_uid="skills-changed-save")
        post_delete.connect(on_write, sender=Skill, dispatch_uid="skills-changed-delete")
