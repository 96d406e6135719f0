from django.apps import AppConfig


class DocumentsConfig(AppConfig):
    name = "documents"

    def ready(self) -> None:
        from lifeassistant import warmup

        from . import tools  # noqa: F401  (registers read_document)
        from .language import load_model

        warmup.register(load_model)  # every message's language is detected
