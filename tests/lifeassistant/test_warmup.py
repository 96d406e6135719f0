"""A process loads what its first requests would before it serves them (lifeassistant/warmup.py)."""

from __future__ import annotations

import logging

import pytest

from chat.tasks import load_broker_transport
from documents.language import load_model
from lifeassistant import warmup
from lifeassistant.llm import max_input_tokens
from skills import services as skill_services
from skills.services import load_catalog


def test_the_apps_register_the_language_model_the_model_window_the_broker_the_urls_and_the_skills() -> None:
    assert {load_model, max_input_tokens, load_broker_transport, warmup.load_urlconf, load_catalog} <= set(warmup._steps)


def test_after_the_warm_up_the_first_request_imports_no_view(monkeypatch: pytest.MonkeyPatch) -> None:
    from django.urls import clear_url_caches, get_resolver

    clear_url_caches()  # as in a new process: the URLconf is imported on the first request
    warmup.load_urlconf()
    imported = []
    monkeypatch.setattr("django.urls.resolvers.import_module", lambda name: imported.append(name))
    assert get_resolver().resolve("/api/v1/conversations/").url_name == "conversation-list"
    assert imported == []


def test_after_the_warm_up_a_message_s_routing_compiles_no_trigger(monkeypatch: pytest.MonkeyPatch, shipped_skills: None) -> None:
    monkeypatch.setattr(skill_services, "_process", skill_services._CatalogCache())  # as in a new process
    warmup.warm_up()
    compiled = []
    monkeypatch.setattr(skill_services, "compile_matcher", lambda skills: compiled.append(skills))
    catalog = skill_services.current_catalog()
    assert compiled == []
    assert "finance" in catalog.matcher.match("gastei 50 reais no mercado")


def test_a_failing_step_is_logged_and_the_others_still_run(monkeypatch: pytest.MonkeyPatch, caplog) -> None:
    ran = []

    def broken() -> None:
        raise OSError("the model file is missing")

    monkeypatch.setattr(warmup, "_steps", [broken, lambda: ran.append("next")])
    with caplog.at_level(logging.WARNING, logger="lifeassistant.warmup"):
        warmup.warm_up()

    assert ran == ["next"]
    assert "warm-up step broken failed" in caplog.text


def test_after_the_warm_up_a_message_s_language_costs_no_model_load(monkeypatch: pytest.MonkeyPatch) -> None:
    import fasttext

    from documents.language import _detector, detect_language

    _detector.cache_clear()  # as in a new process
    warmup.warm_up()
    loads = []
    monkeypatch.setattr(fasttext, "load_model", lambda *args, **kwargs: loads.append(args))
    assert detect_language("Bom dia, hoje eu quero organizar as minhas contas do mês.") == "pt"
    assert loads == []
