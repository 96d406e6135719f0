"""What a Celery worker's parent does before the prefork pool forks its children."""

from __future__ import annotations

import gc
import sys

import pytest

from lifeassistant import llm
from lifeassistant.celery import import_the_model_gateway
from tests.conftest import last_line_printed_by_a_fresh_process


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


DEFERRED_BUILDS_PROBE = """
import django; django.setup()
from lifeassistant import llm
llm.litellm_module()
from litellm.types.utils import TokenCountResponse
from pydantic import BaseModel
from pydantic._internal._config import config_defaults

class DefinedLater(BaseModel):
    name: str

before = TokenCountResponse.__pydantic_complete__
counted = TokenCountResponse(total_tokens="7", request_model="m", model_used="m", tokenizer_type="t")
print(before, counted.total_tokens, TokenCountResponse.__pydantic_complete__, config_defaults["defer_build"],
      DefinedLater.__pydantic_complete__)
"""


def test_litellm_models_build_their_validators_on_first_use_and_pydantic_keeps_its_default():
    # In a fresh process: the test session has imported litellm already, without the deferral.
    # litellm's token-count endpoint model, for a call a chat never makes, is built on its
    # first use and validates as before; models defined after litellm's import build eagerly.
    assert last_line_printed_by_a_fresh_process(DEFERRED_BUILDS_PROBE) == "False 7 True False True"
