from django.apps import AppConfig


class LifeAssistantConfig(AppConfig):
    name = "lifeassistant"
    verbose_name = "Life assistant"
    # No litellm here: the web process never imports it (lifeassistant/llm.py). The
    # Celery worker pays the import at start-up instead (lifeassistant/celery.py).

    def ready(self) -> None:
        from django.core import checks

        from .checks import shared_cache_in_production, shared_cache_with_a_broker

        checks.register(shared_cache_with_a_broker, checks.Tags.caches)
        checks.register(shared_cache_in_production, checks.Tags.caches)

        from . import warmup
        from .llm import max_input_tokens

        warmup.register(max_input_tokens)  # every message is measured against the model's window
        warmup.register(warmup.load_urlconf)  # every request is resolved

        from .observability import tracing

        # Before Django builds its middleware chain (the request span is a middleware).
        tracing.instrument()
