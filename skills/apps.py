from django.apps import AppConfig


class SkillsConfig(AppConfig):
    name = "skills"

    def ready(self) -> None:
        from django.db.models.signals import post_delete, post_save

        from .models import Skill
        from .services import bump_catalog_version

        def skills_changed(**kwargs: object) -> None:
            bump_catalog_version()

        post_save.connect(skills_changed, sender=Skill, dispatch_uid="skills-changed-save")
        post_delete.connect(skills_changed, sender=Skill, dispatch_uid="skills-changed-delete")
