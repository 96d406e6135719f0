"""The learned second opinion (skills/opinion.py): what it reads, how it revises the patterns,
and that the shipped weights are the ones its training files give."""

import json
import math
from datetime import datetime, timezone
from pathlib import Path

import pytest

from lifeassistant.text import normalize
from skills import services
from skills.inertia import EMPTY_STATE, decide, topic_cue
from skills.matching import compile_matcher
from skills.opinion import (
    ADD_AT,
    DROP_AT,
    JOIN_AT,
    LEARNED,
    READ_CHARS,
    SHIPPED_PATH,
    char_features,
    encode_part,
    from_data,
    shipped_opinion,
    training_digest,
    word_features,
)
from tests.skills.shipped import shipped_definitions

REPO = Path(__file__).resolve().parents[2]
SKILLS = shipped_definitions()
NOW = datetime(2025, 3, 1, tzinfo=timezone.utc)


def route(text: str, *, opinion: bool, preferences: dict[str, bool] | None = None) -> set[str]:
    matcher = compile_matcher(SKILLS, shipped_opinion() if opinion else None)
    fired, set_aside = matcher.read(text)
    decision = decide(SKILLS, fired, EMPTY_STATE, now=NOW, preferences=preferences, cue=topic_cue(text), set_aside=set_aside)
    return {skill.name for skill in decision.active}


def test_words_and_their_neighbouring_pairs_are_read():
    assert word_features("gastei 50 no mercado") == [
        "gastei", "50", "no", "mercado", "gastei 50", "50 no", "no mercado"
    ]


def test_a_single_letter_is_no_word():
    assert word_features("e a conta") == ["conta"]


def test_character_grams_are_read_within_each_padded_word_and_a_short_word_once_whole():
    assert char_features("oi") == [" oi", "oi ", " oi "]
    assert char_features("sono") == [" so", "son", "ono", "no ", " son", "sono", "ono ", " sono", "sono "]


# A two-skill model small enough to compute by hand: "conta" says finance, "mae" relationships.
TINY = {
    "skills": ["finance", "relationships"],
    "intercepts": [-2.0, -2.0],
    "words": encode_part({"conta": [1.0, 6.0, -1.0], "mae": [2.0, -1.0, 6.0], "hoje": [1.5, 0.0, 0.0]}, 2),
    "chars": encode_part({}, 2),
    "doubted_patterns": {"finance": ["conta", "=boleto"], "relationships": ["mae"]},
}
BOTH = {"finance", "relationships"}


def test_probabilities_are_the_logistic_of_the_unit_length_tf_idf_scores():
    opinion = from_data(TINY)
    probabilities = opinion.probabilities("conta hoje")
    # tf-idf: conta 1.0, hoje 1.5; unit length divides by sqrt(1 + 2.25). "hoje" has no weight.
    norm = math.sqrt(1.0 + 1.5**2)
    assert probabilities["finance"] == pytest.approx(1 / (1 + math.exp(2.0 - 6.0 / norm)))
    assert probabilities["relationships"] == pytest.approx(1 / (1 + math.exp(2.0 + 1.0 / norm)))


def test_a_repeated_word_counts_less_than_twice():
    opinion = from_data(TINY)
    assert opinion.probabilities("conta conta mae")["finance"] > opinion.probabilities("conta mae")["finance"]


def test_it_adds_a_skill_it_is_sure_of_and_beside_fired_patterns_only_one_it_is_surer_of():
    opinion = from_data(TINY)
    assert ADD_AT <= opinion.probabilities("conta hoje")["finance"] < JOIN_AT
    assert opinion.revise({}, opinion.probabilities("conta hoje"), catalog=BOTH) == {"finance": (LEARNED,)}
    # Beside a skill a pattern fired, that is not sure enough; a surer one joins it.
    assert opinion.revise({"relationships": ("minha mae",)}, opinion.probabilities("conta hoje"), catalog=BOTH) == {"relationships": ("minha mae",)}
    assert opinion.probabilities("conta")["finance"] >= JOIN_AT
    assert opinion.revise({"relationships": ("minha mae",)}, opinion.probabilities("conta"), catalog=BOTH) == {
        "relationships": ("minha mae",), "finance": (LEARNED,)
    }


def test_it_never_adds_a_topic_the_message_sets_aside_nor_a_skill_missing_from_the_catalog():
    opinion = from_data(TINY)
    assert opinion.revise({}, opinion.probabilities("conta"), catalog=BOTH, set_aside={"finance"}) == {}
    assert opinion.revise({}, opinion.probabilities("conta"), catalog={"relationships"}) == {}
    fired = {"relationships": ("minha mae",)}
    assert opinion.revise(fired, opinion.probabilities("conta"), catalog=BOTH, set_aside={"finance"}) == fired
    assert opinion.revise(fired, opinion.probabilities("conta"), catalog={"relationships"}) == fired


def test_it_drops_a_fired_skill_it_is_sure_is_wrong_and_keeps_the_skills_it_does_not_know():
    opinion = from_data(TINY)
    assert opinion.probabilities("mae")["finance"] <= DROP_AT
    fired = {"finance": ("conta",), "relationships": ("mae",), "spiritual": ("igreja",)}
    assert opinion.revise(fired, opinion.probabilities("mae"), catalog=BOTH) == {"relationships": ("mae",), "spiritual": ("igreja",)}


def test_a_pattern_it_never_saw_misfire_is_never_overruled():
    """Only a pattern that misfired on a labelled message is doubted: one that never did,
    one staff add in the admin ("xadrez"), or an amount the ledger noted, stands."""
    opinion = from_data(TINY)
    assert opinion.revise({"finance": ("xadrez",)}, opinion.probabilities("mae"), catalog=BOTH)["finance"] == ("xadrez",)
    assert opinion.revise({"finance": ("conta", "xadrez")}, opinion.probabilities("mae"), catalog=BOTH)["finance"] == ("conta", "xadrez")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # holdout-137/138, blind: the words beside "puja" and "batizou" were new to the opinion,
        # which was sure the faith was wrong; neither pattern ever misfired on a labelled line.
        ("Diwali is next week and I want to do a proper Lakshmi puja at home", {"spiritual"}),
        ("minha filha se batizou", {"relationships", "spiritual"}),
    ],
)
def test_the_shipped_opinion_does_not_overrule_a_pattern_that_never_misfired(text, expected):
    christian = {"christian_perspective": True}
    assert route(text, opinion=True, preferences=christian) == route(text, opinion=False, preferences=christian) == expected


def test_the_doubted_patterns_are_those_that_fired_a_skill_on_an_example_labelled_without_it():
    from skills.management.commands.train_routing_opinion import _doubted_patterns

    texts = [normalize(text) for text in ("gastei 50 reais no mercado", "me conta uma coisa, qual o primeiro banco do brasil?")]
    labels = [frozenset({"finance"}), frozenset({"general"})]
    doubted = _doubted_patterns(["finance", "relationships"], texts, labels)
    assert doubted["relationships"] == []
    assert "banco" in " ".join(doubted["finance"]) and "gastei" not in doubted["finance"]


def test_a_model_without_an_intercept_per_skill_or_a_row_per_feature_is_refused():
    with pytest.raises(ValueError, match="one intercept per skill"):
        from_data({**TINY, "intercepts": [0.0]})
    with pytest.raises(ValueError, match="3 numbers a feature"):
        encode_part({"conta": [1.0, 6.0]}, 2)
    truncated = {**TINY["words"], "features": [*TINY["words"]["features"], "extra"]}
    with pytest.raises(ValueError, match="4 features need 12 numbers"):
        from_data({**TINY, "words": truncated})


def test_the_opinion_reads_only_the_opening_of_a_long_paste():
    opinion = shipped_opinion()
    opening = normalize("gastei 80 reais na farmacia hoje ") + "e " * READ_CHARS
    assert opinion.probabilities(opening + "x " * 50_000) == opinion.probabilities(opening + "y " * 50_000)


# Blind-set messages the patterns route wrong and the opinion right (holdout-69/70, dev-30, docs/skills.md).
@pytest.mark.parametrize(
    ("text", "patterns", "revised"),
    [
        ("levei a Mel no veterinario, 350 a consulta 🐶", {"general"}, {"finance"}),
        ("o que é bitcoin?", {"finance"}, {"general"}),
        ("tenho entrevista na sexta pra vaga de caixa no banco", {"finance", "professional"}, {"professional"}),
        ("me indica uma musica triste pra ouvir kkkk", {"counselor"}, {"general"}),
        # A skill it is surer of joins the ones patterns fired (holdout-88 and -71).
        ("A chuva estragou metade da colheita de milho, vou ter um prejuízo de uns 20 mil", {"finance"},
         {"finance", "professional"}),
        ("Trucking 11 hours a day and my back and knees are shot", {"professional"}, {"health", "professional"}),
        # ... and "it really hurts" is not the body: dropped, while the feeling joins.
        ("my best friend stopped talking to me and I don't know why, it really hurts", {"health", "relationships"},
         {"counselor", "relationships"}),
    ],
)
def test_the_shipped_opinion_mends_what_the_patterns_miss(text, patterns, revised):
    assert route(text, opinion=False) == patterns
    assert route(text, opinion=True) == revised


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("gastei 50 reais no mercado", {"finance"}),
        ("estou muito ansiosa, não consigo relaxar", {"counselor"}),
        ("não quero falar de dinheiro agora, me conta uma piada", {"general"}),
        ("oi, tudo bem?", {"general"}),
    ],
)
def test_the_shipped_opinion_leaves_plain_messages_as_the_patterns_route_them(text, expected):
    assert route(text, opinion=True) == route(text, opinion=False) == expected


def converse(*texts: str, opinion: bool) -> list[set[str]]:
    matcher = compile_matcher(SKILLS, shipped_opinion() if opinion else None)
    state, routed = EMPTY_STATE, []
    for text in texts:
        reading = matcher.reading(text)
        decision = decide(SKILLS, reading.fired, state, now=NOW, cue=topic_cue(text), set_aside=reading.set_aside,
                          leaning=reading.leaning)
        state = decision.state
        routed.append({skill.name for skill in decision.active})
    return routed


def test_a_topic_kept_that_the_opinion_still_reads_in_the_next_message_stays():
    """Rule h of skills.inertia: the run stays when the race's fee follows it (holdout-101); a
    run after groceries reads nothing of money and replaces it. (After a courier's fall, "sem
    entrega sem dinheiro" keeps the work and the knee by rule i too, with or without the opinion.)"""
    race = ("fiz 15km no longão hj, pace 5:40", "paguei 260 na inscrição da meia de SP, nem posso perder")
    assert converse(*race, opinion=False)[1] == {"finance"}
    assert converse(*race, opinion=True)[1] == {"finance", "health"}
    assert converse("gastei 50 no mercado", "corri 5 km hoje", opinion=True)[1] == {"health"}
    fall = ("sou motoboy e machuquei o joelho ontem", "sem entrega sem dinheiro né, o aluguel vence semana que vem")
    assert converse(*fall, opinion=False)[1] == converse(*fall, opinion=True)[1] == {"finance", "health", "professional"}


def test_a_feeling_only_the_opinion_reads_joins_the_topic_kept_and_nothing_else_interrupts():
    """Rule c with the opinion: "tô destruído" after a break-up names the feeling in words no
    pattern knows (dev-10, holdout-12, -38, -64, -91, -125 label it so); a ledger's word the
    opinion alone reads still does not interrupt a run."""
    breakup = ("meu namorado terminou comigo ontem", "tô destruído")
    assert converse(*breakup, opinion=False)[1] == {"relationships"}
    assert converse(*breakup, opinion=True)[1] == {"counselor", "relationships"}
    assert converse("corri 5 km hoje", "log it", opinion=True)[1] == {"health"}


def test_the_shipped_weights_are_trained_on_every_labelled_set_as_it_is_now():
    """Retrain (manage.py train_routing_opinion) after a labelled set changes; .ci/run checks
    that training gives these very weights (--check)."""
    shipped = json.loads(SHIPPED_PATH.read_text(encoding="utf-8"))
    files = sorted((REPO / "tests" / "data").glob("routing-*.jsonl"))
    assert shipped["trained_on"]["files"] == [file.name for file in files]
    assert shipped["trained_on"]["sha256"] == training_digest(files)
    assert set(shipped["skills"]) == {skill.name for skill in SKILLS} - {"general"}


def test_the_setting_turns_the_opinion_off(settings):
    settings.SKILLS_LEARNED_OPINION = False
    assert services.configured_opinion() is None
    settings.SKILLS_LEARNED_OPINION = True
    assert services.configured_opinion() is shipped_opinion()
