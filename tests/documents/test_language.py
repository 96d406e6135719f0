"""Tests for documents.language, offline language detection with the bundled small model."""

import pytest

from documents import language
from documents.language import detect_language


class FakeDetector:
    """Stands in for the fastText detector and records what it was asked."""

    def __init__(self, answer: list[dict] | None = None, error: Exception | None = None) -> None:
        self.answer = answer or []
        self.error = error
        self.calls: list[tuple[str, dict]] = []

    def detect(self, text: str, **options: object) -> list[dict]:
        self.calls.append((text, options))
        if self.error is not None:
            raise self.error
        return self.answer


@pytest.fixture
def fake_detector(monkeypatch):
    def install(**kwargs: object) -> FakeDetector:
        detector = FakeDetector(**kwargs)
        monkeypatch.setattr(language, "_detector", lambda: detector)
        return detector

    return install


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Gastei cinquenta reais no mercado hoje de manhã", "pt"),
        ("I spent fifty dollars at the grocery store this morning", "en"),
        ("Gasté cincuenta euros en el mercado esta mañana", "es"),
    ],
)
def test_the_language_of_a_sentence_is_detected(text, expected):
    assert detect_language(text, previous="de") == expected


def test_multi_line_messages_are_detected():
    text = "Oi!\nGastei cinquenta reais no mercado hoje.\nPode anotar na categoria alimentação?"

    assert detect_language(text) == "pt"


def test_a_very_short_message_keeps_the_previous_language():
    assert detect_language("oi", previous="pt") == "pt"
    assert detect_language("ok", previous=None) is None


def test_a_code_only_message_keeps_the_previous_language():
    code = "```python\nfor expense in expenses:\n    total += expense.amount\nprint(total)\n```"

    assert detect_language(code, previous="pt") == "pt"


def test_urls_and_numbers_do_not_count_as_prose():
    assert detect_language("https://bank.example.com/statements/2024/march 1234.56 9876", previous="es") == "es"


def test_long_runs_without_a_space_are_not_prose():
    """A link, a hash or minified data is no word: a run of 64 non-spaces or more is left
    out of the sample. (Searched for links and e-mail addresses first, one 100 KB run
    held a request for 20 seconds.)"""
    from documents.language import _prose_sample

    assert _prose_sample(f"Gastei {'a' * 63} reais e {'b' * 64} hoje") == f"Gastei {'a' * 63} reais e hoje"
    for run in ("a" * 100_000, "x@" * 50_000, "a." * 50_000):
        assert detect_language(run, previous="es") == "es"


def test_the_minimum_number_of_letters_can_be_changed():
    assert detect_language("Good morning friends", previous="pt", min_chars=100) == "pt"


def test_the_small_model_is_used_on_prose_without_newlines(fake_detector):
    detector = fake_detector(answer=[{"lang": "pt", "score": 0.9}])

    result = detect_language("Olá, tudo bem?\nGastei `total += 1` em https://x.example.com 42 reais hoje")

    assert result == "pt"
    [(text, options)] = detector.calls
    assert options == {"model": "lite", "k": 1}
    assert "\n" not in text
    assert "https://" not in text
    assert "total += 1" not in text
    assert "42" not in text


def test_a_low_confidence_answer_keeps_the_previous_language(fake_detector):
    fake_detector(answer=[{"lang": "en", "score": 0.49}])

    assert detect_language("This sentence has plenty of letters in it", previous="pt") == "pt"


def test_a_label_that_is_not_an_iso_639_1_code_keeps_the_previous_language(fake_detector):
    fake_detector(answer=[{"lang": "ceb", "score": 0.99}])

    assert detect_language("This sentence has plenty of letters in it", previous="pt") == "pt"


def test_an_empty_answer_keeps_the_previous_language(fake_detector):
    fake_detector(answer=[])

    assert detect_language("This sentence has plenty of letters in it", previous="pt") == "pt"


def test_detection_errors_keep_the_previous_language_instead_of_raising(fake_detector):
    fake_detector(error=ValueError("predict processes one line at a time"))

    assert detect_language("This sentence has plenty of letters in it", previous="en") == "en"


def test_pasted_data_does_not_outvote_a_short_request():
    rows = "\n".join(f"2024-03-{n % 28 + 1:02d},Grocery store downtown,food,-{n}.50" for n in range(60))
    text = f"Quanto eu gastei com comida em março?\ndate,description,category,amount\n{rows}"

    assert detect_language(text, previous="en") == "pt"
