from django.apps import AppConfig


class ChatConfig(AppConfig):
    name = "chat"

    def ready(self) -> None:
        # litellm takes seconds to import: pay it when the process starts, not on the
        # first user's message. This also registers the offline provider.
        from . import llm  # noqa: F401
