from django.apps import AppConfig


class ChatConfig(AppConfig):
    name = "chat"

    def ready(self) -> None:
        from . import light_context_tool  # noqa: F401  (registers conversation_context)
