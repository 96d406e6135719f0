from django.apps import AppConfig


class SkillsConfig(AppConfig):
    name = "skills"

    def ready(self) -> None:
        from . import signals  # noqa: F401  (connects the receivers)
