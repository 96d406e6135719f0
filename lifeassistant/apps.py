from django.apps import AppConfig


class LifeAssistantConfig(AppConfig):
    name = "lifeassistant"
    verbose_name = "Life assistant"
