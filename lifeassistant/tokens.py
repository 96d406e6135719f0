"""Token counts estimated without a tokenizer, for budgets where a few percent do not matter.

Shared by the web process (the extraction threshold, the skills ledger, the memory
budget), the reply task (history by token budget) and the offline model, none of which
should pay for a tokenizer: tiktoken would cost 45–70 MiB and ~1 ms a call.
"""

from __future__ import annotations

import json
import math
from typing import Any

# An OpenAI-style tokenizer averages ~3.2 UTF-8 bytes per token on Portuguese and
# English prose (o200k_base on the shipped skill prompts: 2.9–3.3), a little more on JSON.
BYTES_PER_TOKEN = 3.2
# Per message: role and separators, as the OpenAI chat format counts them.
TOKENS_PER_MESSAGE = 4


def estimate_text_tokens(text: str) -> int:
    """Tokens of ``text`` for an OpenAI-style tokenizer, estimated from its UTF-8 size."""
    return math.ceil(len(text.encode("utf-8")) / BYTES_PER_TOKEN) if text else 0


def count_tokens(*, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> int:
    """Tokens of ``messages`` plus tool definitions, estimated without a tokenizer.

    Used for the 10% extraction threshold and the skills ledger, where a few percent do
    not matter; a real tokenizer would cost the web process 45–70 MiB and ~1 ms a call.
    The provider's exact usage is recorded per reply.
    """
    total = 3  # the reply's priming, as the OpenAI chat format counts it
    for message in messages:
        content = message.get("content")
        text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False) if content else ""
        total += TOKENS_PER_MESSAGE + estimate_text_tokens(text)
    if tools:
        total += estimate_text_tokens(json.dumps(tools, ensure_ascii=False, separators=(",", ":")))
    return total
