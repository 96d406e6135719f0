from django.apps import AppConfig


class SkillsConfig(AppConfig):
    name = "skills"

    def ready(self) -> None:
        from lifeassistant import warmup

        from . import signals  # noqa: F401  (connects the receivers)
        from .services import load_catalog

        warmup.register(load_catalog)  # every message is matched against the triggers
