"""What a Celery worker's parent does before the prefork pool forks its children."""

from __future__ import annotations

import gc
import sys

import pytest

from lifeassistant import llm
from lifeassistant.celery import import_the_model_gateway


@pytest.fixture
def unfrozen():
    yield
    gc.unfreeze()


def test_the_worker_parent_loads_litellm_and_freezes_what_it_holds_before_forking(unfrozen):
    gc.unfreeze()
    assert gc.get_freeze_count() == 0

    import_the_model_gateway()

    assert "litellm" in sys.modules
    # Everything alive now (litellm's modules among it) is out of the children's collections.
    assert gc.get_freeze_count() > 10_000


def test_litellm_keeps_the_anthropic_tokenizer_it_counts_with_but_not_its_parsed_copy():
    llm.litellm_module()
    import litellm.utils

    assert litellm.utils.json_data is None
    assert len(litellm.utils.claude_json_str) > 1_000_000
    # Counting Claude tokens still works: it reads the serialised tokenizer.
    assert litellm.token_counter(model="claude-3-haiku-20240307", text="Gastei 50 reais no mercado hoje") > 0
