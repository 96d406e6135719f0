from django.apps import AppConfig


class DocumentsConfig(AppConfig):
    name = "documents"

    def ready(self) -> None:
        from . import tools  # noqa: F401  (registers read_document)
