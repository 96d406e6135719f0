"""Tests for documents.analysis: the threshold, the analyzer answer and the fallbacks."""

import json

import pytest

from documents.analysis import (
    ANALYZER_PROMPT,
    AnalyzerResult,
    analyze,
    parse_analyzer_output,
    should_extract,
)
from documents.extraction import ContextItem

MAX_TOKENS = 128_000
ABOVE_THRESHOLD = 20_000


class RecordingModel:
    """A fake analyzer model that records its calls and answers with a fixed text."""

    def __init__(self, answer: str = "", error: Exception | None = None) -> None:
        self.answer = answer
        self.error = error
        self.calls: list[tuple[str, str]] = []

    def __call__(self, system_prompt: str, message: str) -> str:
        self.calls.append((system_prompt, message))
        if self.error is not None:
            raise self.error
        return self.answer


def _answer(**fields: object) -> str:
    return json.dumps(fields)


def _analyze_large(raw: str, call_model: RecordingModel | None, detected_language: str | None = None):
    return analyze(
        raw,
        token_count=ABOVE_THRESHOLD,
        max_input_tokens=MAX_TOKENS,
        call_model=call_model,
        detected_language=detected_language,
    )


def _message_with_csv() -> str:
    rows = "\n".join(f"2024-03-{n % 28 + 1:02d},Mercado {n},food,-{n}.50" for n in range(200))
    return f"How much did I spend on food?\ndate,place,category,amount\n{rows}\nThanks"


def test_the_prompt_shows_the_json_example_with_single_braces():
    example = ANALYZER_PROMPT[ANALYZER_PROMPT.index("{") :]

    assert "{{" not in ANALYZER_PROMPT
    assert json.loads(example) == {
        "detectedLanguage": "en",
        "intent": "Concise normalized request...",
        "contextItems": [
            {"title": "User context 1", "mimeType": "text/plain", "content": "Full extracted content block here"}
        ],
    }
    assert ANALYZER_PROMPT.startswith("You are an input analyzer.")


@pytest.mark.parametrize(
    ("token_count", "expected"),
    [(12_799, False), (12_800, True), (50_000, True), (50, False)],
)
def test_extraction_starts_at_ten_percent_of_the_model_input_limit(token_count, expected):
    assert should_extract("some text", token_count=token_count, max_input_tokens=MAX_TOKENS) is expected


def test_the_ratio_can_be_changed():
    assert should_extract("some text", token_count=300, max_input_tokens=1_000, ratio=0.25)
    assert not should_extract("some text", token_count=200, max_input_tokens=1_000, ratio=0.25)


def test_blank_messages_and_unknown_limits_are_never_extracted():
    assert not should_extract("   ", token_count=99_999, max_input_tokens=MAX_TOKENS)
    assert not should_extract("some text", token_count=99_999, max_input_tokens=0)


def test_a_small_message_is_kept_inline_without_calling_the_model():
    model = RecordingModel(error=AssertionError("the model must not be called"))
    raw = ("Gastei cinquenta reais no mercado hoje de manhã, anota para mim. " * 4)[:200]

    analysis = analyze(raw, token_count=50, max_input_tokens=MAX_TOKENS, call_model=model, detected_language="pt")

    assert model.calls == []
    assert analysis.method == "inline"
    assert analysis.intent == raw.strip()
    assert analysis.items == ()
    assert analysis.language == "pt"


def _large_prose() -> str:
    """A large message with no block the deterministic extractor can move out."""
    return "Help me plan a calmer week. " + "I keep postponing the gym, the groceries and my rest, and it piles up. " * 150


def test_structured_blocks_are_moved_out_without_asking_the_model():
    # The model would have to echo the 200 CSV rows back in its JSON: minutes of output.
    model = RecordingModel(error=AssertionError("the model must not be called"))

    analysis = _analyze_large(_message_with_csv(), model, detected_language="en")

    assert model.calls == []
    assert analysis.method == "deterministic"
    assert [item.title for item in analysis.items] == ["CSV data"]
    assert analysis.items[0].content.count("\n") == 200  # header and rows, exactly
    assert analysis.intent == "How much did I spend on food?\n[see user_context_1.csv]\nThanks"
    assert analysis.language == "en"


def test_a_valid_model_answer_is_used_for_prose_the_extractor_cannot_split():
    model = RecordingModel(
        _answer(
            detectedLanguage="en",
            intent="Plan a calmer week.",
            contextItems=[{"title": "Week notes", "mimeType": "text/plain", "content": "gym, groceries, rest"}],
        )
    )
    raw = _large_prose()

    analysis = _analyze_large(raw, model, detected_language="pt")

    assert model.calls == [(ANALYZER_PROMPT, raw)]
    assert analysis.method == "model"
    assert analysis.intent == "Plan a calmer week."
    assert analysis.items == (ContextItem(title="Week notes", mime_type="text/plain", content="gym, groceries, rest"),)
    assert analysis.language == "en"


def test_the_detected_language_is_kept_when_the_model_gives_none():
    model = RecordingModel(_answer(intent="Sum my food spending.", contextItems=[]))

    analysis = _analyze_large("x" * 100, model, detected_language="pt")

    assert analysis.method == "model"
    assert analysis.language == "pt"


def test_a_model_failure_keeps_the_message_whole():
    model = RecordingModel(error=TimeoutError("analyzer timed out"))
    raw = _large_prose()

    analysis = _analyze_large(raw, model, detected_language="en")

    assert len(model.calls) == 1
    assert analysis.method == "deterministic-fallback"
    assert analysis.items == ()
    assert analysis.intent == raw.strip()
    assert analysis.language == "en"


@pytest.mark.parametrize("answer", ["", "not json at all", _answer(intent="   "), '["a list"]'])
def test_an_unusable_model_answer_keeps_the_message_whole(answer):
    raw = _large_prose()

    analysis = _analyze_large(raw, RecordingModel(answer))

    assert analysis.method == "deterministic-fallback"
    assert analysis.item_count == 0
    assert analysis.intent == raw.strip()


def test_without_a_model_the_deterministic_extractor_is_used():
    analysis = _analyze_large(_message_with_csv(), None, detected_language="en")

    assert analysis.method == "deterministic"
    assert analysis.item_count == 1


def test_when_the_deterministic_extractor_finds_nothing_the_intent_is_the_raw_message():
    raw = "  Plan my week: " + "gym, groceries and rest " * 200

    analysis = _analyze_large(raw, None)

    assert analysis.items == ()
    assert analysis.intent == raw.strip()


def test_telemetry_reports_sizes_and_counts_but_never_content():
    raw = _message_with_csv()

    analysis = _analyze_large(raw, None, detected_language="en")
    telemetry = analysis.telemetry()

    assert analysis.input_chars == len(raw)
    assert analysis.item_count == 1
    assert analysis.output_chars == len(analysis.intent) + len(analysis.items[0].content)
    assert analysis.elapsed_ms >= 0
    assert set(telemetry) == {"method", "language", "input_chars", "output_chars", "item_count", "elapsed_ms"}
    assert "Mercado" not in repr(telemetry)


def test_a_plain_json_answer_is_parsed():
    result = parse_analyzer_output(
        _answer(
            detectedLanguage="pt",
            intent="  Somar os gastos.  ",
            contextItems=[{"title": "Gastos", "mimeType": "text/csv", "content": "a,b"}],
        )
    )

    assert result == AnalyzerResult(
        detected_language="pt",
        intent="Somar os gastos.",
        items=(ContextItem(title="Gastos", mime_type="text/csv", content="a,b"),),
    )


@pytest.mark.parametrize("fence", ["```json", "```JSON", "```"])
def test_an_answer_wrapped_in_a_single_code_fence_is_parsed(fence):
    text = f"\n {fence}\n{_answer(intent='Sum my spending.', contextItems=[])}\n```\n"

    assert parse_analyzer_output(text) == AnalyzerResult(detected_language=None, intent="Sum my spending.", items=())


@pytest.mark.parametrize(
    "text",
    [
        "",
        "Sure! Here is the JSON: {}",
        "[1, 2]",
        "null",
        _answer(contextItems=[]),
        _answer(intent=""),
        _answer(intent="   "),
        _answer(intent=42),
        _answer(intent="ok", contextItems="not a list"),
        _answer(intent="ok", contextItems=["not an object"]),
        _answer(intent="ok", contextItems=[{"content": {"nested": "object"}}]),
        "```json\n{\"intent\": \"ok\"}\n```\n```json\n{\"intent\": \"ok\"}\n```",
    ],
)
def test_invalid_answers_are_rejected(text):
    assert parse_analyzer_output(text) is None


def test_items_get_default_titles_and_mime_types_and_empty_items_are_dropped():
    result = parse_analyzer_output(
        _answer(
            intent="ok",
            contextItems=[
                {"content": "first"},
                {"title": "Empty", "content": "   "},
                {"title": "No content"},
                {"title": "  ", "mimeType": "not a mime", "content": "second"},
                {"title": "Typed", "mimeType": "Text/CSV; charset=utf-8", "content": "third"},
            ],
        )
    )

    assert result is not None
    assert result.items == (
        ContextItem(title="User context 1", mime_type="text/plain", content="first"),
        ContextItem(title="User context 2", mime_type="text/plain", content="second"),
        ContextItem(title="Typed", mime_type="text/csv", content="third"),
    )


def test_missing_context_items_mean_none():
    assert parse_analyzer_output(_answer(intent="ok")) == AnalyzerResult(detected_language=None, intent="ok", items=())


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("pt", "pt"),
        (" EN ", "en"),
        ("pt-BR", "pt"),
        ("pt_BR", "pt"),
        ("fil", "fil"),
        ("English", None),
        ("", None),
        (7, None),
        (None, None),
    ],
)
def test_the_detected_language_is_normalised_to_an_iso_code_or_ignored(value, expected):
    result = parse_analyzer_output(_answer(detectedLanguage=value, intent="ok"))

    assert result is not None
    assert result.detected_language == expected
