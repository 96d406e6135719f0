"""The yes/no classifier for pending actions (chat.confirmation): pure, offline, pt/en/es."""

from __future__ import annotations

from unittest import mock

import pytest

from chat.confirmation import MAX_ANSWER_WORDS, Confirmation, answer_before, confirmation_intent
from lifeassistant.text import normalize


@pytest.mark.parametrize(
    "text",
    [
        # Portuguese
        "sim", "Sim!", "s", "SIM, pode registrar", "sim, adiciona isso", "pode registrar", "pode sim",
        "manda ver", "confirma", "confirmo", "ok, pode", "claro que sim", "isso, pode anotar", "pode anotar pra mim",
        "beleza, salva", "bora", "sim sim", "sim, obrigada",
        # English
        "yes", "Yes please", "yes, add that", "ok, record it", "go ahead", "sure, save it", "yep", "do it",
        "ok, go ahead and log it",
        # Spanish
        "sí", "sí, agrégalo", "dale", "claro, adelante", "vale, hazlo",
        # emoji
        "👍", "✅",
    ],
)
def test_a_yes_accepts(text: str) -> None:
    assert confirmation_intent(text) == Confirmation("accept")


@pytest.mark.parametrize(
    "text",
    [
        "não", "nao", "Não, obrigada", "cancela", "não pode", "deixa pra lá", "esquece", "não precisa",
        "melhor não", "nem pensar",
        "no", "nope", "no, don't", "No, don’t do it", "cancel that", "nevermind",
        "no, no lo hagas", "cancela eso",
    ],
)
def test_a_no_rejects(text: str) -> None:
    assert confirmation_intent(text) == Confirmation("reject")


@pytest.mark.parametrize(
    ("text", "intent", "rest"),
    [
        ("sim, e anota também 30 de uber", "accept", "anota também 30 de uber"),
        ("sim e anota 30 de uber", "accept", "anota 30 de uber"),
        ("pode registrar. E quanto gastei esse mês?", "accept", "quanto gastei esse mês?"),
        ("yes, and also log 20 for lunch", "accept", "also log 20 for lunch"),
        ("sí, y apunta 10 de café", "accept", "apunta 10 de café"),
        ("não, e me lembra de pagar a luz amanhã", "reject", "me lembra de pagar a luz amanhã"),
    ],
)
def test_an_answer_and_a_new_request_confirms_then_goes_on(text: str, intent: str, rest: str) -> None:
    assert confirmation_intent(text) == Confirmation(intent, rest)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "obrigada",
        "Gastei 50 reais no mercado",
        "no mercado",  # Portuguese "no" = "in the"
        "não sei",  # unsure, not a no
        "no idea",
        "ok, vou pensar",
        "sim não",  # a firm yes and a firm no
        # A yes that goes on without "and" may correct or question the proposal: nothing runs.
        "sim, mas foram 60 reais",
        "sim, mas quanto gastei?",
        "sim, foram 60",
        "yes but make it 60",
        "sim, quanto gastei?",
        "e aí?",
        "ok " * 10,
        "sim " * 9,
    ],
)
def test_anything_else_is_not_an_answer(text: str) -> None:
    assert confirmation_intent(text) is None


PASTE = "date,place,amount\n" + "2024-09-05,mercado,42.50\n" * 1_600  # ~40 KB


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Analise estes gastos:\n" + PASTE, None),
        ("sim e analise estes gastos:\n" + PASTE, Confirmation("accept", ("analise estes gastos:\n" + PASTE).strip())),
        ("sim " * 5_000, None),
        ("sim, e " + "pode " * 5_000, None),
    ],
)
def test_a_long_message_is_classified_from_its_first_words(text: str, expected: Confirmation | None) -> None:
    # Every POST is classified: a 40 KB paste once folded all of its ~10,000 words (70 ms).
    with mock.patch("chat.confirmation.normalize", wraps=normalize) as folded:
        assert confirmation_intent(text) == expected
    assert folded.call_count <= 2 * (MAX_ANSWER_WORDS + 2)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("sim e pode pode pode anota 30 de uber", Confirmation("accept", "pode pode pode anota 30 de uber")),
        # The request starts after nine yes/filler words: past what an answer may hold.
        ("sim e " + "pode " * 9 + "anota 30 de uber", None),
    ],
)
def test_after_and_the_request_must_begin_within_the_words_an_answer_may_hold(text: str, expected: Confirmation | None) -> None:
    assert confirmation_intent(text) == expected


@pytest.mark.parametrize(
    ("head", "answer"),
    [
        ("sim, e ", "sim"),
        ("Sim e ", "Sim"),
        ("yes, and ", "yes"),
        ("sí, y ", "sí"),
        ("ok plus ", "ok"),
        ("sim! ", "sim"),
        ("sim, pode, E\n", "sim, pode"),
        ("sime ", "sime"),  # "e" inside a word is no connector
        ("sim, ande ", "sim, ande"),
        (", e ", ", e"),  # nothing left: the text as written, trimmed
    ],
)
def test_the_answer_before_a_request_leaves_out_the_connector(head: str, answer: str) -> None:
    assert answer_before(head) == answer


def test_a_long_run_of_spaces_before_the_request_is_read_once() -> None:
    """A pattern anchored at the end backtracked over such a run from each place it tried:
    4,000 spaces took a worker minutes. Read backwards, it costs its length."""
    text = "sim," + " " * 40_000 + "pode, e anota 30 de uber"
    reading = confirmation_intent(text)

    assert reading == Confirmation("accept", "anota 30 de uber")
    assert answer_before(text[: -len(reading.rest)]) == "sim," + " " * 40_000 + "pode"
