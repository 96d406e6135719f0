import pytest

from skills.domain import DEFAULT_TONE, SkillDefinition
from skills.matching import compile_matcher, naive_match, normalize, skill_references, validate_pattern


def make_skill(name: str, *patterns: str, enabled: bool = True) -> SkillDefinition:
    return SkillDefinition(
        name=name,
        description="",
        trigger_patterns=patterns,
        tools=(),
        prompt_extension="",
        tone=DEFAULT_TONE,
        enabled=enabled,
    )


def match(text: str, *skills: SkillDefinition) -> dict[str, tuple[str, ...]]:
    return compile_matcher(skills).match(text)


def test_a_plain_pattern_matches_at_the_start_of_a_word():
    finance = make_skill("finance", "gast")
    assert match("Ontem eu gastei demais", finance) == {"finance": ("gast",)}


def test_a_plain_pattern_does_not_match_inside_a_word():
    counselor = make_skill("counselor", "briga")
    assert match("Muito obrigado pela ajuda", counselor) == {}


def test_a_plain_pattern_matches_at_the_very_start_of_the_text():
    counselor = make_skill("counselor", "briga")
    assert match("brigamos de novo", counselor) == {"counselor": ("briga",)}


def test_a_word_start_may_follow_punctuation():
    finance = make_skill("finance", "gast")
    assert match("(gastos) do mês", finance) == {"finance": ("gast",)}


def test_a_number_glued_to_a_word_is_read_as_two_words():
    health = make_skill("health", "=kg", "km")
    assert match("quero perder 5kg", health) == {"health": ("=kg",)}
    assert match("corri 10km hoje", health) == {"health": ("km",)}
    assert match("o kgb", health) == {}


def test_a_whole_word_pattern_needs_the_word_to_end():
    spiritual = make_skill("spiritual", "=fé")
    assert match("Tenho fé.", spiritual) == {"spiritual": ("=fé",)}
    assert match("Fez sol hoje", spiritual) == {}


def test_a_whole_word_pattern_does_not_match_a_longer_word():
    finance = make_skill("finance", "=real")
    assert match("Realmente, faz sentido", finance) == {}
    assert match("custou um real", finance) == {"finance": ("=real",)}


def test_a_phrase_matches_words_in_sequence():
    counselor = make_skill("counselor", "não sei o que fazer")
    assert match("Sinceramente não sei o que fazer agora", counselor) == {
        "counselor": ("não sei o que fazer",)
    }


def test_a_phrase_treats_any_whitespace_run_as_one_space():
    counselor = make_skill("counselor", "não sei o que fazer")
    assert match("não  sei\to que\nfazer", counselor) == {"counselor": ("não sei o que fazer",)}


def test_a_phrase_does_not_match_across_punctuation():
    counselor = make_skill("counselor", "não sei o que fazer")
    assert match("não sei, o que fazer", counselor) == {}


def test_the_last_word_of_a_phrase_is_a_prefix():
    finance = make_skill("finance", "conta de lu")
    assert match("a conta de luz veio alta", finance) == {"finance": ("conta de lu",)}


def test_the_last_word_of_a_whole_word_phrase_must_end():
    counselor = make_skill("counselor", "=me sinto só")
    assert match("me sinto só hoje", counselor) == {"counselor": ("=me sinto só",)}
    assert match("me sinto sozinho", counselor) == {}


def test_a_phrase_must_start_at_a_word_start():
    finance = make_skill("finance", "a pagar")
    assert match("tinha pagar", finance) == {}


def test_an_unaccented_pattern_matches_accented_text():
    finance = make_skill("finance", "divida", "orcamento")
    assert match("Minhas DÍVIDAS e o orçamento", finance) == {"finance": ("divida", "orcamento")}


def test_an_accented_pattern_matches_unaccented_text():
    health = make_skill("health", "insônia", "=ação")
    assert match("to com insonia, sem acao", health) == {"health": ("insônia", "=ação")}


def test_matching_ignores_case():
    finance = make_skill("finance", "Gast")
    assert match("GASTEI 200 NO POSTO", finance) == {"finance": ("Gast",)}


def test_every_overlapping_pattern_across_skills_is_reported():
    a = make_skill("a", "conta")
    b = make_skill("b", "contas a pagar")
    c = make_skill("c", "=conta")
    assert match("Minhas contas a pagar", a, b, c) == {
        "a": ("conta",),
        "b": ("contas a pagar",),
    }


def test_a_pattern_starting_inside_a_longer_match_is_reported():
    a = make_skill("a", "contas a pagar")
    b = make_skill("b", "a pagar")
    c = make_skill("c", "pagar")
    assert match("contas a pagar", a, b, c) == {
        "a": ("contas a pagar",),
        "b": ("a pagar",),
        "c": ("pagar",),
    }


def test_a_skill_reports_each_of_its_patterns_that_fired_once():
    finance = make_skill("finance", "gast", "gastei", "=reais")
    assert match("gastei 10 reais, gastei 5 reais", finance) == {
        "finance": ("gast", "gastei", "=reais")
    }


def test_the_same_pattern_in_two_skills_fires_for_both():
    relationships = make_skill("relationships", "=chefe")
    professional = make_skill("professional", "=chefe")
    assert match("meu chefe", relationships, professional) == {
        "relationships": ("=chefe",),
        "professional": ("=chefe",),
    }


def test_disabled_skills_are_left_out_of_the_matcher():
    finance = make_skill("finance", "gast", enabled=False)
    assert match("gastei", finance) == {}


def test_a_matcher_without_patterns_matches_nothing():
    assert match("qualquer coisa", make_skill("general")) == {}


def test_malformed_patterns_are_skipped_and_reported():
    finance = make_skill("finance", "=", "gast", "   ")
    matcher = compile_matcher([finance])
    assert matcher.match("gastei") == {"finance": ("gast",)}
    assert [(skill, pattern) for skill, pattern, _ in matcher.skipped_patterns] == [
        ("finance", "="),
        ("finance", "   "),
    ]


def test_regex_characters_in_patterns_are_literal():
    finance = make_skill("finance", "r$", "c++")
    assert match("paguei R$ 50 no curso de c++", finance) == {"finance": ("r$", "c++")}
    assert match("rs 50", finance) == {}


def test_normalize_folds_case_accents_cedilla_and_whitespace():
    assert normalize("  Ação\tÇÃO  Über\n") == "acao cao uber"


def test_normalize_turns_typographic_apostrophes_into_plain_ones():
    assert normalize("Don’t") == "don't"


@pytest.mark.parametrize(
    "pattern",
    ["", "   ", "=", " = ", "!!!", "= ?", "a" * 101, "linha\nquebrada", "linha\rquebrada"],
)
def test_validate_pattern_rejects_malformed_patterns(pattern):
    assert validate_pattern(pattern) is not None


@pytest.mark.parametrize("pattern", ["gast", "=fé", "não sei o que fazer", "r$", "a" * 100, "2kg"])
def test_validate_pattern_accepts_well_formed_patterns(pattern):
    assert validate_pattern(pattern) is None


def test_naive_match_is_the_original_substring_search():
    finance = make_skill("finance", "real", "conta")
    counselor = make_skill("counselor", "briga")
    assert naive_match("Obrigado, realmente", [finance, counselor]) == ("finance", "counselor")
    assert naive_match("Dívida", [make_skill("finance", "divida")]) == ()


def test_an_exclusion_silences_its_skills_patterns_on_the_words_it_matches():
    professional = make_skill("professional", "=promoção", "!na promoção")
    assert match("Ganhei uma promoção!", professional) == {"professional": ("=promoção",)}
    assert match("Comprei o tênis na promoção", professional) == {}


def test_an_exclusion_also_silences_a_pattern_that_only_overlaps_it():
    professional = make_skill("professional", "=um aumento", "!aumento de peso")
    assert match("pedi um aumento ao meu chefe", professional) == {"professional": ("=um aumento",)}
    assert match("tive um aumento de peso", professional) == {}


def test_an_exclusion_only_silences_where_it_matches():
    professional = make_skill("professional", "=promoção", "!na promoção")
    assert match("vi na promoção, e depois saiu minha promoção", professional) == {
        "professional": ("=promoção",)
    }


def test_an_exclusion_never_fires_its_skill_nor_silences_another_skill():
    finance = make_skill("finance", "na promoção")
    professional = make_skill("professional", "=promoção", "!na promoção")
    assert match("na promoção", finance, professional) == {"finance": ("na promoção",)}


def test_a_compound_pattern_fires_when_every_part_is_found_in_any_order():
    counselor = make_skill("counselor", "insônia | =sono & por causa")
    assert match("estou com insônia por causa disso", counselor) == {
        "counselor": ("insônia | =sono & por causa",)
    }
    assert match("por causa disso perdi o sono", counselor) == {
        "counselor": ("insônia | =sono & por causa",)
    }
    assert match("estou com insônia", counselor) == {}
    assert match("por causa da chuva", counselor) == {}


def test_a_skill_reference_is_found_when_that_skills_own_patterns_fire():
    finance = make_skill("finance", "divida")
    health = make_skill("health", "insonia")
    counselor = make_skill("counselor", "@health & por causa & @finance")
    skills = (finance, health, counselor)
    assert match("insônia por causa das dívidas", *skills) == {
        "health": ("insonia",),
        "finance": ("divida",),
        "counselor": ("@health & por causa & @finance",),
    }
    assert match("insônia por causa do barulho", *skills) == {"health": ("insonia",)}
    assert match("insônia e dívidas", *skills) == {"health": ("insonia",), "finance": ("divida",)}


def test_compound_patterns_do_not_chain():
    finance = make_skill("finance", "divida")
    counselor = make_skill("counselor", "@finance & medo")
    spiritual = make_skill("spiritual", "@counselor")
    assert match("medo das dívidas", finance, counselor, spiritual) == {
        "finance": ("divida",),
        "counselor": ("@finance & medo",),
    }


def test_the_pieces_of_a_compound_pattern_fire_nothing_by_themselves():
    counselor = make_skill("counselor", "insônia & por causa")
    assert match("por causa", counselor) == {}


def test_exclusions_apply_to_the_pieces_of_their_skills_compound_patterns():
    spiritual = make_skill("spiritual", "=deus & =fé", "!meu deus")
    assert match("meu Deus, que fé", spiritual) == {}
    assert match("fé em Deus", spiritual) == {"spiritual": ("=deus & =fé",)}


def test_skill_references_lists_the_skills_a_compound_pattern_names():
    assert skill_references("insônia & @finance | @health") == ("finance", "health")
    assert skill_references("gast") == ()


@pytest.mark.parametrize(
    "pattern",
    ["!", "! ", "!=", "!!!", "a & ", "| b", "a & @", "a & @Finance", "a & !b", "@fin ance", "a & =", "x & " + "a" * 101, "a | " * 80 + "b"],
)
def test_validate_pattern_rejects_malformed_exclusions_and_compound_patterns(pattern):
    assert validate_pattern(pattern) is not None


@pytest.mark.parametrize(
    "pattern", ["!na promoção", "!=de propósito", "a & b", "a | b", "@finance", "insônia | =sono & por causa & @finance"]
)
def test_validate_pattern_accepts_exclusions_and_compound_patterns(pattern):
    assert validate_pattern(pattern) is None


def test_malformed_compound_patterns_are_skipped_and_reported():
    counselor = make_skill("counselor", "a & ", "medo")
    matcher = compile_matcher([counselor])
    assert matcher.match("medo") == {"counselor": ("medo",)}
    assert [(skill, pattern) for skill, pattern, _ in matcher.skipped_patterns] == [("counselor", "a & ")]


@pytest.mark.parametrize(
    "text",
    [
        "Não quero falar de trabalho hoje",
        "sem papo de trabalho, por favor",
        "I don't want to talk about work today",
        "I’m not asking about work",
        "no quiero hablar del trabajo",
        "hoje não quero saber de trabalho",
        "por favor não me pergunta sobre o trabalho",
        "please stop bringing up work",
        "esquece o trabalho, me conta uma curiosidade",
        "not in the mood to talk about work, tell me a joke",
        "n quero falar de trabalho hj, so relaxar",
        "nao to preocupado com trabalho nao, so qro saber q horas fecha o shopping",
        "nem quero pensar em trabalho hoje, me conta uma piada",
        "prefiro não falar do trabalho agora",
        "can we not talk about work today? just tell me a fun fact",
        "I'd rather not think about work this weekend",
        "no quiero pensar en el trabajo hoy, contame un chiste",
    ],
)
def test_a_topic_the_user_sets_aside_fires_nothing(text):
    work = make_skill("professional", "trabalh", "=work", "about work", "=trabajo")
    assert match(text, work) == {}


@pytest.mark.parametrize(
    "text",
    [
        "Quem inventou o cartão de crédito?",
        "quem foi o fundador do Nubank?",
        "who invented the credit card?",
        "when was the first credit card issued?",
        "¿cuándo se inventó la tarjeta de crédito?",
    ],
)
def test_a_question_about_history_or_public_figures_fires_nothing(text):
    finance = make_skill("finance", "credit", "=cartao", "=nubank", "=card", "=tarjeta")
    assert match(text, finance) == {}
    # The question ends at its punctuation, and a question about the user is theirs.
    assert match(f"{text} Paguei o cartão ontem", finance) == {"finance": ("=cartao",)}
    assert match("quem foi que usou meu cartão?", finance) == {"finance": ("=cartao",)}


def test_only_the_words_right_after_the_set_aside_phrase_are_skipped():
    skills = (make_skill("professional", "trabalh"), make_skill("finance", "devendo"))
    # The clause ends at the comma; what follows is heard again.
    assert match("não quero falar de trabalho, tô devendo muito", *skills) == {"finance": ("devendo",)}
    assert match("não quero falar de nada hoje mas o trabalho me cansa", *skills) == {"professional": ("trabalh",)}
    assert match("quero falar de trabalho", *skills) == {"professional": ("trabalh",)}


@pytest.mark.parametrize(
    "text",
    [
        "no quiero hablar de plata ni de trabajo, solo necesito desahogarme",
        "não quero falar de dinheiro nem de trabalho hoje",
        "não quero falar nem de dinheiro nem de trabalho",
        "I don't want to talk about money or work right now",
        "I don't want to talk about money nor about work",
        "no quiero hablar de plata y de trabajo",
    ],
)
def test_a_second_topic_joined_to_a_set_aside_one_is_skipped_too(text):
    skills = (
        make_skill("professional", "trabalh", "=trabajo", "=work"),
        make_skill("finance", "dinheiro", "=plata", "=money"),
        make_skill("counselor", "desahog"),
    )
    found = match(text, *skills)
    assert "professional" not in found and "finance" not in found


def test_a_conjunction_that_opens_a_new_clause_ends_the_set_aside():
    skills = (make_skill("professional", "trabalh", "=trabajo"), make_skill("finance", "=plata", "devendo"))
    # "y" before a verb starts a clause of its own, which is heard again.
    assert match("no quiero hablar de plata y el trabajo me tiene mal", *skills) == {"professional": ("=trabajo",)}
    # A set-aside still ends at its punctuation, joined or not.
    assert match("não quero falar de trabalho, tô devendo muito", *skills) == {"finance": ("devendo",)}


def test_the_skills_a_message_sets_aside_are_told_apart_from_those_it_fires():
    skills = (make_skill("professional", "trabalh"), make_skill("finance", "dinheiro", "boleto"))
    matcher = compile_matcher(skills)
    assert matcher.read("não quero falar de dinheiro agora. vai chover?") == ({}, frozenset({"finance"}))
    assert matcher.set_aside("não quero falar de trabalho, tô sem dinheiro") == frozenset({"professional"})
    # A topic set aside and then named again is not set aside.
    assert matcher.set_aside("não quero falar de dinheiro, mas o boleto venceu") == frozenset()
    assert matcher.set_aside("quero falar de trabalho") == frozenset()
