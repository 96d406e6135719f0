from django.apps import AppConfig
from django.db.backends.signals import connection_created


class ChatConfig(AppConfig):
    name = "chat"

    def ready(self) -> None:
        from . import light_context_tool  # noqa: F401  (registers conversation_context)
        from .search import register_fold

        # A module-level function: signals hold receivers weakly.
        connection_created.connect(register_fold, dispatch_uid="chat.search.register_fold")
