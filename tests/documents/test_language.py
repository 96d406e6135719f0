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


def test_links_and_addresses_are_found_wherever_they_sit_in_a_word():
    from documents.language import _prose_sample

    text = "Veja (https://x.example.com/a) e ana@example.com, <joao@ex.com.br> ou www.example.com hoje"
    assert _prose_sample(text) == "Veja ( e ou hoje"


def test_prose_written_without_spaces_is_still_prose():
    japanese = "今日はスーパーで五十円使いました。この出費を記録して、今月あとどれくらい予算が残っているか確認したいです。週末に友達と食事に行きたいので。"
    assert detect_language(japanese, previous="pt") == "ja"


@pytest.mark.parametrize(
    ("run", "sample"),
    [
        ("a" * 100_000, "a" * 1000),
        ("x@" * 50_000, "x@" * 500),
        ("a." * 50_000, "a." * 500),
        ("a+" * 50_000, "a+" * 500),
        ("a@" + "b." * 49_999, ""),
        ("http://" + "a" * 99_993, ""),
        ("(http://" + "a" * 99_992, "("),
    ],
)
def test_one_long_run_without_a_space_is_sampled_whole(run, sample):
    """The link and e-mail patterns once backtracked over such a run from each place they
    tried: one 100,000-character message held a request for 20 seconds. (How long it
    takes now: ``manage.py benchmark --section reading``.)"""
    from documents.language import _prose_sample

    assert _prose_sample(run) == sample


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


@pytest.mark.parametrize(
    ("text", "previous", "expected"),
    [
        ("fale sobre saude e exercicios fisicos por favor", "pt", "pt"),  # es 0.61
        ("meu personal trainer cobra 200 por mes", "pt", "pt"),  # es 0.58, pt 0.06
        ("blz, entao anota tbm o uber de ontem", "pt", "pt"),  # nl 0.56
        ("fale sobre saude e exercicios fisicos por favor", None, "es"),  # nothing to keep
        ("hable sobre salud y ejercicios fisicos por favor", "pt", "es"),  # es 0.94: a clear switch
        ("I spent fifty dollars at the grocery store this morning", "pt", "en"),
        ("Can you answer me in English from now on?", "pt", "en"),  # en 0.93
        ("hola, necesito ayuda con mis finanzas", "pt", "es"),  # es 0.97
    ],
)
def test_a_known_language_gives_way_only_to_a_confident_vote(text, previous, expected):
    """Informal Portuguese got wrong votes of 0.55-0.61 (es, nl), which switched a pt-BR
    user's conversation, and through it their profile, to Spanish or Dutch."""
    assert detect_language(text, previous=previous) == expected


@pytest.mark.parametrize(("score", "expected"), [(0.79, "pt"), (0.8, "es")])
def test_the_switch_threshold(fake_detector, score, expected):
    fake_detector(answer=[{"lang": "es", "score": score}])

    assert detect_language("This sentence has plenty of letters in it", previous="pt") == expected
    assert detect_language("This sentence has plenty of letters in it", previous=None) == "es"


@pytest.mark.parametrize(("score", "expected"), [(0.64, "en"), (0.65, "pt")])
def test_a_caller_may_let_a_weaker_known_language_give_way_sooner(fake_detector, score, expected):
    fake_detector(answer=[{"lang": "pt", "score": score}])

    assert detect_language("Analise meus gastos deste mês e me diga", previous="en", switch_confidence=0.65) == expected


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
