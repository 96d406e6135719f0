from datetime import datetime, timedelta, timezone

from skills.domain import DEFAULT_TONE, SkillDefinition
import pytest

from skills.inertia import EMPTY_STATE, Cue, Decision, InertiaState, decide, topic_cue

NOW = datetime(2025, 3, 1, 12, 0, tzinfo=timezone.utc)


def make_skill(name: str, priority: int = 5, **fields: object) -> SkillDefinition:
    return SkillDefinition(
        name=name,
        description="",
        trigger_patterns=(),
        tools=(),
        prompt_extension="",
        tone=DEFAULT_TONE,
        priority=priority,
        **fields,  # type: ignore[arg-type]
    )


GENERAL = make_skill("general", priority=10)
FINANCE = make_skill("finance", priority=3)
COUNSELOR = make_skill("counselor", priority=2)
HEALTH = make_skill("health", priority=4)
RELATIONSHIPS = make_skill("relationships", priority=4)
SPIRITUAL = make_skill("spiritual", requires_user_preference="christian_perspective")
SKILLS = [GENERAL, FINANCE, COUNSELOR, HEALTH, RELATIONSHIPS, SPIRITUAL]
CHRISTIAN = {"christian_perspective": True}


def names(decision: Decision) -> list[str]:
    return [skill.name for skill in decision.active]


def run(messages: list[dict[str, tuple[str, ...]]], **options: object) -> list[Decision]:
    """Decide a conversation, message after message, carrying the state."""
    decisions = []
    state = EMPTY_STATE
    for index, matches in enumerate(messages):
        decision = decide(SKILLS, matches, state, now=NOW + timedelta(minutes=index), **options)  # type: ignore[arg-type]
        decisions.append(decision)
        state = decision.state
    return decisions


def test_triggered_skills_are_active_in_priority_order():
    decision = decide(SKILLS, {"health": ("sono",), "finance": ("divida",), "counselor": ("ansied",)}, EMPTY_STATE, now=NOW)
    assert names(decision) == ["counselor", "finance", "health"]
    assert decision.reason == "trigger"


def test_skills_with_equal_priority_are_ordered_by_name():
    decision = decide(SKILLS, {"relationships": ("mae",), "health": ("sono",)}, EMPTY_STATE, now=NOW)
    assert names(decision) == ["health", "relationships"]


def test_a_detection_resets_the_state():
    state = InertiaState(("finance",), NOW - timedelta(hours=1), 3)
    decision = decide(SKILLS, {"health": ("sono",)}, state, now=NOW)
    assert decision.state == InertiaState(("health",), NOW, 0)


def test_a_new_topic_replaces_the_previous_skills():
    decisions = run([{"finance": ("gast",)}, {}, {"health": ("sono",)}, {}])
    assert [names(decision) for decision in decisions] == [
        ["finance"],
        ["finance"],
        ["health"],
        ["health"],
    ]


def test_it_keeps_skills_for_five_quiet_messages():
    decisions = run([{"finance": ("gast",)}] + [{}] * 5)
    assert [names(decision) for decision in decisions] == [["finance"]] * 6
    assert [decision.reason for decision in decisions[1:]] == ["inertia"] * 5
    assert [decision.state.messages_since_detection for decision in decisions] == [0, 1, 2, 3, 4, 5]


def test_it_falls_back_on_the_sixth_quiet_message():
    decisions = run([{"finance": ("gast",)}] + [{}] * 6)
    assert names(decisions[6]) == ["general"]
    assert decisions[6].reason == "fallback"
    assert decisions[6].state.active_skills == ("general",)


def test_inertia_keeps_the_time_of_the_last_detection():
    decisions = run([{"finance": ("gast",)}, {}, {}])
    assert decisions[2].state.last_detected_at == NOW


def test_the_inertia_length_is_configurable():
    decisions = run([{"finance": ("gast",)}, {}, {}], inertia_messages=1)
    assert [names(decision) for decision in decisions] == [["finance"], ["finance"], ["general"]]


def test_zero_inertia_messages_disables_inertia():
    decisions = run([{"finance": ("gast",)}, {}], inertia_messages=0)
    assert names(decisions[1]) == ["general"]


def test_a_conversation_without_triggers_uses_the_fallback_skill():
    decision = decide(SKILLS, {}, EMPTY_STATE, now=NOW)
    assert names(decision) == ["general"]
    assert decision.reason == "fallback"


def test_general_alone_is_not_kept_by_inertia():
    state = InertiaState(("general",), None, 0)
    decision = decide(SKILLS, {}, state, now=NOW, routed="health")
    assert decision.reason == "router"


def test_the_fallback_is_empty_when_general_is_missing():
    decision = decide([FINANCE], {}, EMPTY_STATE, now=NOW)
    assert decision.active == ()


def test_a_skill_needing_a_preference_stays_off_without_it():
    decision = decide(SKILLS, {"spiritual": ("oracao",)}, EMPTY_STATE, now=NOW, preferences={})
    assert names(decision) == ["general"]
    assert decision.matched == {"spiritual": ("oracao",)}


def test_a_skill_needing_a_preference_fires_with_it():
    decision = decide(SKILLS, {"spiritual": ("oracao",)}, EMPTY_STATE, now=NOW, preferences=CHRISTIAN)
    assert names(decision) == ["spiritual"]


def test_a_preference_turned_off_ends_inertia_for_that_skill():
    state = InertiaState(("finance", "spiritual"), NOW, 1)
    decision = decide(SKILLS, {}, state, now=NOW, preferences={"christian_perspective": False})
    assert names(decision) == ["finance"]
    assert decision.state.active_skills == ("finance",)


def test_inertia_falls_back_when_no_kept_skill_is_allowed_any_more():
    state = InertiaState(("spiritual",), NOW, 1)
    decision = decide(SKILLS, {}, state, now=NOW, preferences={})
    assert names(decision) == ["general"]


def test_inertia_drops_skills_that_no_longer_exist_or_are_disabled():
    disabled_health = make_skill("health", priority=4, enabled=False)
    skills = [GENERAL, FINANCE, disabled_health]
    state = InertiaState(("finance", "health", "deleted"), NOW, 1)
    decision = decide(skills, {}, state, now=NOW)
    assert names(decision) == ["finance"]


def test_an_explicit_skill_is_active_without_triggers():
    decision = decide(SKILLS, {}, EMPTY_STATE, now=NOW, explicit="counselor")
    assert names(decision) == ["counselor"]
    assert decision.reason == "explicit"
    assert decision.state == InertiaState(("counselor",), NOW, 0)


def test_an_explicit_skill_joins_the_triggered_ones():
    decision = decide(SKILLS, {"finance": ("gast",)}, EMPTY_STATE, now=NOW, explicit="health")
    assert names(decision) == ["finance", "health"]


def test_an_explicit_skill_needing_a_preference_stays_off_without_it():
    decision = decide(SKILLS, {}, EMPTY_STATE, now=NOW, explicit="spiritual")
    assert names(decision) == ["general"]
    assert decision.reason == "fallback"


def test_an_unknown_explicit_skill_is_ignored():
    decision = decide(SKILLS, {"finance": ("gast",)}, EMPTY_STATE, now=NOW, explicit="nope")
    assert names(decision) == ["finance"]
    assert decision.reason == "trigger"


def test_the_router_is_used_when_triggers_and_inertia_give_nothing():
    decision = decide(SKILLS, {}, EMPTY_STATE, now=NOW, routed="health")
    assert names(decision) == ["health"]
    assert decision.reason == "router"
    assert decision.state.active_skills == ("general",)


def test_the_router_is_ignored_when_triggers_fired():
    decision = decide(SKILLS, {"finance": ("gast",)}, EMPTY_STATE, now=NOW, routed="health")
    assert names(decision) == ["finance"]


def test_the_router_is_ignored_while_inertia_holds():
    state = InertiaState(("finance",), NOW, 2)
    decision = decide(SKILLS, {}, state, now=NOW, routed="health")
    assert names(decision) == ["finance"]
    assert decision.reason == "inertia"


def test_a_routed_skill_needing_a_preference_stays_off_without_it():
    decision = decide(SKILLS, {}, EMPTY_STATE, now=NOW, routed="spiritual")
    assert names(decision) == ["general"]
    assert decision.reason == "fallback"


def test_triggers_of_unknown_skills_are_ignored():
    decision = decide(SKILLS, {"deleted": ("x",)}, EMPTY_STATE, now=NOW)
    assert names(decision) == ["general"]


def run_cued(messages: list[tuple[dict[str, tuple[str, ...]], Cue]], **options: object) -> list[Decision]:
    """Decide a conversation whose messages come with their topic cue."""
    decisions = []
    state = EMPTY_STATE
    for index, (matches, cue) in enumerate(messages):
        decision = decide(SKILLS, matches, state, now=NOW + timedelta(minutes=index), cue=cue, **options)  # type: ignore[arg-type]
        decisions.append(decision)
        state = decision.state
    return decisions


def test_a_message_referring_back_combines_with_the_skills_under_inertia():
    # "tenho 20 mil de dívida" ... "e por causa disso não durmo"
    decisions = run_cued([({"finance": ("divida",)}, Cue.NONE), ({"health": ("durmo",)}, Cue.REFERS_BACK)])
    assert names(decisions[1]) == ["finance", "health"]
    assert decisions[1].reason == "combined"
    # finance, kept, has gone one message without firing; health fired.
    assert decisions[1].state == InertiaState(("finance", "health"), NOW + timedelta(minutes=1), 0, (1, 0))


def test_a_topic_carried_along_by_combinations_lapses_after_five_messages_without_firing():
    # "to meio pra baixo hj", then five messages of work that go on with "e…", "tb…": the
    # feeling stays with them; at the sixth without it, it no longer holds (docs/routing-labelling.md:
    # "after about 5 messages without the topic coming back, an old topic no longer holds").
    work = ({"finance": ("boleto",)}, Cue.REFERS_BACK)
    decisions = run_cued([({"counselor": ("pra baixo",)}, Cue.NONE), *[work] * 6])
    assert [names(decision) for decision in decisions[1:]] == [["counselor", "finance"]] * 5 + [["finance"]]
    assert decisions[5].state.quiet_for == (5, 0)
    assert decisions[6].state.quiet_for == ()
    # A quiet follow-up counts too: the feeling fired at the first message, the domain at the
    # second, then "pode me lembrar disso?" and four more messages of the domain.
    follow_up = ({}, Cue.REFERS_BACK)
    decisions = run_cued([({"counselor": ("pra baixo",)}, Cue.NONE), work, follow_up, *[work] * 4])
    assert names(decisions[5]) == ["counselor", "finance"]
    assert names(decisions[6]) == ["finance"]
    # The feeling said again starts its count afresh.
    decisions = run_cued([({"counselor": ("pra baixo",)}, Cue.NONE), *[work] * 4,
                          ({"counselor": ("triste",)}, Cue.REFERS_BACK), *[work] * 5])
    assert all(names(decision) == ["counselor", "finance"] for decision in decisions[1:])


def test_a_message_the_learned_opinion_still_reads_a_kept_topic_in_combines_with_it():
    # "sou motoboy, machuquei o joelho" ... "sem entrega sem dinheiro, o aluguel vence" (rule h)
    kept = decide(SKILLS, {"health": ("joelho",)}, EMPTY_STATE, now=NOW).state
    leaning = decide(SKILLS, {"finance": ("aluguel",)}, kept, now=NOW, cue=Cue.NONE, leaning={"health", "finance"})
    assert names(leaning) == ["finance", "health"]
    assert leaning.reason == "combined"
    # Leaning to no kept topic, or with a cue of its own (small talk, a look-up, a new subject
    # announced), the new topic replaces it.
    for cue, lean in ((Cue.NONE, {"finance"}), (Cue.SMALL_TALK, {"health"}), (Cue.LOOKS_UP, {"health"}),
                      (Cue.CHANGES_TOPIC, {"health"})):
        decision = decide(SKILLS, {"finance": ("aluguel",)}, kept, now=NOW, cue=cue, leaning=lean)
        assert names(decision) == ["finance"], cue


def test_a_feeling_alone_joins_the_topic_at_hand():
    # "tenho 20 mil de dívida" ... "estou desesperada"
    decisions = run_cued([({"finance": ("divida",)}, Cue.NONE), ({"counselor": ("desesper",)}, Cue.NONE)])
    assert names(decisions[1]) == ["counselor", "finance"]
    assert decisions[1].reason == "combined"


def test_a_message_firing_an_active_skill_again_brings_the_other_skills_along():
    # counselor + finance active ... "paguei a fatura e fui na academia"
    first = decide(SKILLS, {"counselor": ("ansied",), "finance": ("divida",)}, EMPTY_STATE, now=NOW)
    decision = decide(SKILLS, {"finance": ("pague",), "health": ("academia",)}, first.state, now=NOW)
    assert names(decision) == ["counselor", "finance", "health"]
    assert decision.reason == "combined"


def test_combined_skills_stay_under_inertia_each_for_five_messages_since_it_fired():
    # finance fires, health joins it a message later; then quiet messages: finance lapses at the
    # sixth message since it fired, health at the sixth since it did, then the fallback.
    decisions = run_cued(
        [({"finance": ("divida",)}, Cue.NONE), ({"health": ("sono",)}, Cue.REFERS_BACK)]
        + [({}, Cue.NONE)] * 6
    )
    assert [names(decision) for decision in decisions[2:6]] == [["finance", "health"]] * 4
    assert names(decisions[6]) == ["health"]
    assert names(decisions[7]) == ["general"]


def test_a_feeling_under_inertia_stays_with_the_topic_that_follows_it():
    # "estou muito ansiosa" ... "e as parcelas do cartão estão todas atrasadas"
    decisions = run_cued([({"counselor": ("ansios",)}, Cue.NONE), ({"finance": ("parcela",)}, Cue.NONE)])
    assert names(decisions[1]) == ["counselor", "finance"]
    assert decisions[1].reason == "combined"
    assert decisions[1].state == InertiaState(("counselor", "finance"), NOW + timedelta(minutes=1), 0, (1, 0))


def test_a_feeling_stays_through_quiet_messages_and_joins_the_next_topic():
    decisions = run_cued(
        [({"counselor": ("trist",)}, Cue.NONE), ({}, Cue.NONE), ({}, Cue.NONE), ({"relationships": ("marido",)}, Cue.NONE)]
    )
    assert names(decisions[3]) == ["counselor", "relationships"]


def test_a_feeling_does_not_follow_a_look_up_in_the_users_records():
    # "tenho reunião com o diretor e tô nervoso" ... "quanto eu gastei de gasolina essa semana?"
    professional = make_skill("professional", priority=3)
    skills = [*SKILLS, professional]
    first = decide(skills, {"counselor": ("nervos",), "professional": ("reuniao",)}, EMPTY_STATE, now=NOW)
    second = decide(skills, {"finance": ("gastei",)}, first.state, now=NOW, cue=Cue.LOOKS_UP)
    assert (names(second), second.reason) == (["finance"], "trigger")
    # "tô muito ansiosa" ... "quanto gastei esse mês?": nor a feeling that came alone.
    decisions = run_cued([({"counselor": ("ansios",)}, Cue.NONE), ({"finance": ("gastei",)}, Cue.LOOKS_UP)])
    assert names(decisions[1]) == ["finance"]
    # A feeling fired by the look-up itself still joins the topic at hand.
    decisions = run_cued([({"finance": ("divida",)}, Cue.NONE), ({"finance": ("gastei",), "counselor": ("medo",)}, Cue.LOOKS_UP)])
    assert names(decisions[1]) == ["counselor", "finance"]


def test_a_new_subject_announced_after_a_feeling_leaves_the_feeling_behind():
    # "estou muito ansiosa" ... "mudando de assunto, quanto gastei esse mês?"
    decisions = run_cued([({"counselor": ("ansios",)}, Cue.NONE), ({"finance": ("gastei",)}, Cue.CHANGES_TOPIC)])
    assert names(decisions[1]) == ["finance"]
    assert decisions[1].reason == "trigger"


def test_a_domain_under_inertia_is_still_replaced_by_an_unrelated_domain():
    # "gastei 50 no mercado" ... "corri 5 km hoje"
    decisions = run_cued([({"finance": ("gastei",)}, Cue.NONE), ({"health": ("corri",)}, Cue.NONE)])
    assert names(decisions[1]) == ["health"]
    assert decisions[1].reason == "trigger"


def test_an_announced_change_of_subject_replaces_even_a_back_reference_or_a_feeling():
    decisions = run_cued([({"finance": ("divida",)}, Cue.NONE), ({"counselor": ("medo",)}, Cue.CHANGES_TOPIC)])
    assert names(decisions[1]) == ["counselor"]
    assert decisions[1].reason == "trigger"


def test_an_announced_change_of_subject_that_fires_nothing_leaves_the_kept_skills_behind():
    # finance ... "by the way, any tips?": not a money question any more
    decisions = run_cued([({"finance": ("divida",)}, Cue.NONE), ({}, Cue.CHANGES_TOPIC), ({}, Cue.NONE)])
    assert names(decisions[1]) == ["general"] and decisions[1].reason == "fallback"
    assert names(decisions[2]) == ["general"]  # nor does the next quiet message bring finance back


def test_a_message_setting_aside_a_kept_topic_leaves_that_skill_behind():
    # finance ... "não quero falar de dinheiro agora. vai chover amanhã?"
    first = decide(SKILLS, {"finance": ("divida",)}, EMPTY_STATE, now=NOW)
    second = decide(SKILLS, {}, first.state, now=NOW, set_aside={"finance"})
    assert (names(second), second.reason) == (["general"], "fallback")
    # counselor ... "mas não quero falar do meu namorado": the feeling stays.
    first = decide(SKILLS, {"counselor": ("triste",)}, EMPTY_STATE, now=NOW)
    second = decide(SKILLS, {}, first.state, now=NOW, set_aside={"relationships"})
    assert (names(second), second.reason) == (["counselor"], "inertia")


def test_a_feeling_joins_the_topic_also_when_the_message_names_a_symptom():
    # finance ... "to desesperada, nem durmo direito": the despair is about the debt
    decisions = run_cued([({"finance": ("divida",)}, Cue.NONE), ({"counselor": ("desesper",), "health": ("durmo",)}, Cue.NONE)])
    assert names(decisions[1]) == ["counselor", "finance", "health"]
    assert decisions[1].reason == "combined"


def test_nothing_combines_once_inertia_ran_out():
    decisions = run_cued(
        [({"finance": ("divida",)}, Cue.NONE)] + [({}, Cue.NONE)] * 6 + [({"counselor": ("medo",)}, Cue.REFERS_BACK)]
    )
    assert names(decisions[7]) == ["counselor"]
    assert decisions[7].reason == "trigger"


def test_nothing_combines_with_inertia_turned_off():
    decisions = run_cued(
        [({"finance": ("divida",)}, Cue.NONE), ({"health": ("sono",)}, Cue.REFERS_BACK)], inertia_messages=0
    )
    assert names(decisions[1]) == ["health"]


def test_a_kept_skill_whose_preference_was_turned_off_does_not_combine():
    state = InertiaState(("spiritual",), NOW, 1)
    decision = decide(SKILLS, {"counselor": ("medo",)}, state, now=NOW, preferences={}, cue=Cue.REFERS_BACK)
    assert names(decision) == ["counselor"]


def test_an_explicit_skill_does_not_combine_with_inertia():
    state = InertiaState(("finance",), NOW, 1)
    decision = decide(SKILLS, {}, state, now=NOW, explicit="health", cue=Cue.REFERS_BACK)
    assert names(decision) == ["health"]
    assert decision.reason == "explicit"


@pytest.mark.parametrize(
    ("text", "cue"),
    [
        ("e por causa disso não durmo", Cue.REFERS_BACK),
        ("Também estou sem dormir", Cue.REFERS_BACK),
        ("and that keeps me up at night", Cue.REFERS_BACK),
        ("I can't sleep either, it's too much", Cue.REFERS_BACK),
        ("Mudando de assunto, isso não importa: fui à academia", Cue.CHANGES_TOPIC),
        ("By the way, I ran 5k today", Cue.CHANGES_TOPIC),
        ("anyway, what's the capital of Iceland?", Cue.CHANGES_TOPIC),
        ("beleza. falando em outra coisa, quanto foi o jogo?", Cue.CHANGES_TOPIC),
        ("Por cierto, ¿qué hora es en Lima?", Cue.CHANGES_TOPIC),
        ("thanks for listening. what's a decent pasta recipe?", Cue.CHANGES_TOPIC),
        ("ta bom, chega disso. me conta uma curiosidade", Cue.CHANGES_TOPIC),
        ("corri 5 km hoje", Cue.NONE),
        ("Gastei 50 essa semana", Cue.NONE),
        ("Paraisso é um nome estranho", Cue.NONE),
        ("y encima no duermo por eso", Cue.REFERS_BACK),
        ("E as parcelas do cartão estão atrasadas", Cue.REFERS_BACK),
        ("but my boss keeps calling", Cue.REFERS_BACK),
        ("ah, mas meu marido nem percebe", Cue.REFERS_BACK),
        ("Pero mi novio no me entiende", Cue.REFERS_BACK),
        ("Emprestei dinheiro pro meu irmão", Cue.NONE),
        ("Fui ao mercado e paguei 50", Cue.NONE),
        ("Cambiando de asunto, ¿cuánto gasté en mayo?", Cue.CHANGES_TOPIC),
        ("on a different note, I ran 5k", Cue.CHANGES_TOPIC),
        # "outra coisa:" opening a message announces a new subject; "e outra coisa" adds.
        ("outra coisa: treinar em jejum emagrece mesmo?", Cue.CHANGES_TOPIC),
        ("Otra cosa - ¿cuánto gasté en mayo?", Cue.CHANGES_TOPIC),
        ("another thing: my knee hurts", Cue.CHANGES_TOPIC),
        ("e outra coisa que me preocupa é o cartão", Cue.REFERS_BACK),
        ("tem outra coisa: meu chefe", Cue.NONE),
        # "this weekend" opens a time frame; a plain "this" still points back.
        ("my wife's parents are visiting this weekend", Cue.NONE),
        ("I have a dentist appointment this Friday", Cue.NONE),
        ("this is killing me", Cue.REFERS_BACK),
        ("and this weekend too", Cue.REFERS_BACK),
        # Looking up a figure in one's own records; a back-reference or an opening
        # conjunction wins, and an announced change wins over both.
        ("quanto eu gastei de gasolina essa semana?", Cue.LOOKS_UP),
        ("How much did I put on my Amex this month?", Cue.LOOKS_UP),
        ("¿cuánto pagué en enero?", Cue.LOOKS_UP),
        ("e quanto gastei com isso?", Cue.REFERS_BACK),
        ("by the way, how much did I spend on groceries?", Cue.CHANGES_TOPIC),
        ("quanto custa uma consulta?", Cue.NONE),
        # A pronoun of someone spoken of; English "that" after "remind me" points ahead.
        ("queria rezar por ela", Cue.REFERS_TO_SOMEONE),
        ("he never calls me back", Cue.REFERS_TO_SOMEONE),
        ("Elefante é o maior animal terrestre?", Cue.NONE),
        ("remind me that the rent is due friday", Cue.NONE),
        # One word, or one after an article or a preposition: an answer, not a topic.
        ("Alimentação", Cue.BARE_ANSWER),
        ("de comida.", Cue.BARE_ANSWER),
        ("dormi mal", Cue.NONE),
        ("sí, ponlo en comida", Cue.BARE_ANSWER),
        # One's own pay named is the ledger's; "our" pay is shared.
        ("o salário caiu hoje, 3.200", Cue.ONES_PAY),
        ("Hoy cobré la jubilación", Cue.ONES_PAY),
        ("we'll have to live on my paycheck for a while", Cue.SHARED_COST),
        # "outra coisa," opening a message announces a new subject too.
        ("outra coisa, quanto tá a conta de luz?", Cue.CHANGES_TOPIC),
        # A return said bare ("enfim, voltando,"), and takings looked up ("quanto eu já fiz?").
        ("enfim, voltando, meu supervisor quer a entrega sexta", Cue.CHANGES_TOPIC),
        ("voltando pra casa agora", Cue.NONE),
        ("quanto eu ja fiz essa semana?", Cue.LOOKS_UP),
        # What a thing costs the user now is looked up too.
        ("quanto eu gasto de aluguel hj aqui?", Cue.LOOKS_UP),
        ("quanto pago de luz por mes?", Cue.LOOKS_UP),
        # ... and what came in or was given, also after "ah,"; "this quarter" is a time frame, no back-reference.
        ("quanto entrou de salario esse mes?", Cue.LOOKS_UP),
        ("ah, quanto eu dei de oferta esse mes?", Cue.LOOKS_UP),
        ("how much have I received this quarter?", Cue.LOOKS_UP),
    ],
)
def test_topic_cue_reads_back_references_and_announced_changes_as_whole_words(text, cue):
    assert topic_cue(text) is cue
