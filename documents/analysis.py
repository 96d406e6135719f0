"""Intent extraction for the first user message of a round.

Pure logic around an injected model call: decide whether the message is big enough
to split, move structured blocks out with the deterministic extractor, ask the
analyzer model for ``{detectedLanguage, intent, contextItems}`` about what that
cannot split, validate its answer, and keep the message whole when the model is
missing or its answer is unusable.

Why structured blocks skip the model: its contextItems must repeat each block
verbatim, so its answer is as long as the paste (a 40 KB table is ~10,000 output
tokens: minutes of generation, far past the few seconds a ``POST`` can wait, so the
call always ended in the fallback after wasting its budget), and a copy made by a
model may alter the data. The extractor moves fenced code, JSON, CSV, tables, long
lists and transcripts exactly and at once; prose it cannot split goes to the model.
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from documents.extraction import ContextItem, extract

logger = logging.getLogger(__name__)

ANALYZER_PROMPT = """\
You are an input analyzer. Split the user's message into:
1) intent: the user's core request in one concise paragraph, normalized to the user's language.
2) contextItems: supportive data to attach as separate documents if significantly larger than the intent. Include large literal data blocks, long lists/tables, code/JSON blocks, quoted transcripts, CSV fragments, or detailed specs. Keep URLs in the intent unless they include large pasted content.
Rules:
- If total content length (intent + data) is less than 10% of the model's max tokens, do not extract; return an empty contextItems and keep a compact, self-contained intent.
- If content exceeds that, move bulky parts into contextItems, keeping the intent short and clear.
- Preserve critical references (URLs, filenames) in the intent.
- Normalize the intent to the detected language. If mixed-language, use the primary detected language and normalize.
Output JSON only (no markdown):
{
  "detectedLanguage": "en",
  "intent": "Concise normalized request...",
  "contextItems": [
    {
      "title": "User context 1",
      "mimeType": "text/plain",
      "content": "Full extracted content block here"
    }
  ]
}"""

DEFAULT_EXTRACTION_RATIO = 0.10
DEFAULT_MIME_TYPE = "text/plain"

Method = Literal["inline", "model", "deterministic", "deterministic-fallback"]
CallModel = Callable[[str, str], str]

# Models often wrap JSON in a single ```json fence despite being told not to.
_JSON_FENCE = re.compile(r"\A```(?:json)?[ \t]*\n(?P<body>.*)\n[ \t]*```\Z", re.DOTALL | re.IGNORECASE)
_LANGUAGE_CODE = re.compile(r"^[a-z]{2,3}$")
_MIME_TYPE = re.compile(r"^[a-z0-9][a-z0-9.+-]*/[a-z0-9][a-z0-9.+-]*$")


@dataclass(frozen=True)
class AnalyzerResult:
    """A validated analyzer answer."""

    detected_language: str | None
    intent: str
    items: tuple[ContextItem, ...]


@dataclass(frozen=True)
class Analysis:
    """The intent and context items for a message, with how they were obtained.

    ``input_chars``, ``output_chars``, ``item_count`` and ``elapsed_ms`` are telemetry:
    sizes and timing only, never content.
    """

    intent: str
    items: tuple[ContextItem, ...]
    method: Method
    language: str | None
    input_chars: int
    output_chars: int
    item_count: int
    elapsed_ms: float

    def telemetry(self) -> dict[str, Any]:
        """The fields that are safe to log: everything except the intent and the items."""
        return {
            "method": self.method,
            "language": self.language,
            "input_chars": self.input_chars,
            "output_chars": self.output_chars,
            "item_count": self.item_count,
            "elapsed_ms": self.elapsed_ms,
        }


def should_extract(
    raw: str, *, token_count: int, max_input_tokens: int, ratio: float = DEFAULT_EXTRACTION_RATIO
) -> bool:
    """Whether the message is large enough (≥ ratio × the model's input limit) to split."""
    if not raw.strip() or max_input_tokens <= 0:
        # Nothing to split, or no known limit to measure against: keep the message inline.
        return False
    return token_count >= ratio * max_input_tokens


def parse_analyzer_output(text: str) -> AnalyzerResult | None:
    """Validate the analyzer's JSON answer; None when it is not usable."""
    stripped = text.strip()
    fenced = _JSON_FENCE.match(stripped)
    body = fenced.group("body") if fenced else stripped
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict):
        return None
    intent = data.get("intent")
    if not isinstance(intent, str) or not intent.strip():
        return None
    items = _parse_items(data.get("contextItems"))
    if items is None:
        return None
    return AnalyzerResult(
        detected_language=_language_code(data.get("detectedLanguage")),
        intent=intent.strip(),
        items=items,
    )


def analyze(
    raw: str,
    *,
    token_count: int,
    max_input_tokens: int,
    call_model: CallModel | None,
    detected_language: str | None,
) -> Analysis:
    """Produce the intent and context items for a message.

    Small messages are kept inline without calling the model. In larger ones the
    deterministic extractor moves structured blocks out (no model call: see the module
    docstring); a large message it cannot split goes to the analyzer model when one is
    given, and is kept whole when none is or its answer is unusable.
    """
    started = time.perf_counter()
    if not should_extract(raw, token_count=token_count, max_input_tokens=max_input_tokens):
        return _finish(raw, started, raw.strip(), (), "inline", detected_language)
    extraction = extract(raw)
    if extraction.items:
        return _finish(raw, started, extraction.intent, extraction.items, "deterministic", detected_language)
    if call_model is not None:
        result = _ask_model(call_model, raw)
        if result is not None:
            language = result.detected_language or detected_language
            return _finish(raw, started, result.intent, result.items, "model", language)
    method: Method = "deterministic" if call_model is None else "deterministic-fallback"
    return _finish(raw, started, raw.strip(), (), method, detected_language)


def _ask_model(call_model: CallModel, raw: str) -> AnalyzerResult | None:
    try:
        output = call_model(ANALYZER_PROMPT, raw)
    except Exception as error:  # any failure of the model means: use the fallback
        logger.warning("Analyzer model call failed (%s); the message is kept whole.", type(error).__name__)
        return None
    result = parse_analyzer_output(output) if isinstance(output, str) else None
    if result is None:
        size = len(output) if isinstance(output, str) else 0
        logger.warning("Analyzer answer was not valid (%d chars); the message is kept whole.", size)
    return result


def _parse_items(value: object) -> tuple[ContextItem, ...] | None:
    """Validate contextItems; None when malformed. Items without content are dropped."""
    if value is None:
        return ()
    if not isinstance(value, list):
        return None
    items: list[ContextItem] = []
    for entry in value:
        if not isinstance(entry, dict):
            return None
        content = entry.get("content")
        if content is None or (isinstance(content, str) and not content.strip()):
            continue
        if not isinstance(content, str):
            # Dropping non-text content would silently lose data the intent no longer holds.
            return None
        items.append(
            ContextItem(
                title=_title(entry.get("title"), len(items) + 1),
                mime_type=_mime_type(entry.get("mimeType")),
                content=content,
            )
        )
    return tuple(items)


def _title(value: object, number: int) -> str:
    if isinstance(value, str) and value.strip():
        return value.strip()
    return f"User context {number}"


def _mime_type(value: object) -> str:
    if isinstance(value, str):
        essence = value.split(";", 1)[0].strip().lower()
        if _MIME_TYPE.match(essence):
            return essence
    return DEFAULT_MIME_TYPE


def _language_code(value: object) -> str | None:
    """An ISO 639 code from values like "pt", " EN ", "pt-BR"; None otherwise."""
    if not isinstance(value, str):
        return None
    primary = value.strip().lower().replace("_", "-").split("-", 1)[0]
    return primary if _LANGUAGE_CODE.match(primary) else None


def _finish(
    raw: str,
    started: float,
    intent: str,
    items: tuple[ContextItem, ...],
    method: Method,
    language: str | None,
) -> Analysis:
    return Analysis(
        intent=intent,
        items=items,
        method=method,
        language=language,
        input_chars=len(raw),
        output_chars=len(intent) + sum(len(item.content) for item in items),
        item_count=len(items),
        elapsed_ms=round((time.perf_counter() - started) * 1000, 3),
    )
