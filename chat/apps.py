from django.apps import AppConfig
from django.db.backends.signals import connection_created
from django.db.models.signals import post_migrate, post_save


class ChatConfig(AppConfig):
    name = "chat"

    def ready(self) -> None:
        from django.contrib.auth import get_user_model

        from . import light_context_tool  # noqa: F401  (registers conversation_context)
        from .api_tokens import revoke_on_password_change
        from .models import COMMITTED_PROMPTS
        from .search import register_fold
        from .tasks import load_broker_transport
        from lifeassistant import warmup

        warmup.register(load_broker_transport)

        # A module-level function: signals hold receivers weakly.
        connection_created.connect(register_fold, dispatch_uid="chat.search.register_fold")
        # A flushed database (the tests' teardown) has no prompts left to skip inserting.
        post_migrate.connect(COMMITTED_PROMPTS.clear, dispatch_uid="chat.models.COMMITTED_PROMPTS")
        post_save.connect(
            revoke_on_password_change, sender=get_user_model(), dispatch_uid="chat.api_tokens.revoke_on_password_change"
        )
