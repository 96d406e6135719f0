"""The shipped skills (skills/definitions) route real messages as the skills architecture's §5 and §6.2 say
(docs/specification.md).

Each rule has cases that must fire and, next to them, the false positives its guard
keeps away. Detection is the pure pipeline (matcher, then decide): no model call.
"""

from datetime import datetime, timezone

import pytest

from skills.inertia import EMPTY_STATE, Decision, InertiaState, decide, topic_cue
from skills.matching import compile_matcher
from tests.skills.shipped import shipped_definitions

SKILLS = shipped_definitions()
MATCHER = compile_matcher(SKILLS)
NOW = datetime(2025, 3, 1, tzinfo=timezone.utc)
CHRISTIAN = {"christian_perspective": True}


def decide_text(text: str, state: InertiaState = EMPTY_STATE, preferences: dict[str, bool] | None = None) -> Decision:
    fired, set_aside = MATCHER.read(text)
    return decide(
        SKILLS, fired, state, now=NOW, preferences=preferences or {}, cue=topic_cue(text), set_aside=set_aside
    )


def route(text: str, preferences: dict[str, bool] | None = None) -> set[str]:
    return {skill.name for skill in decide_text(text, preferences=preferences).active}


def test_every_shipped_pattern_is_valid():
    assert len(SKILLS) == 7
    assert MATCHER.skipped_patterns == ()


@pytest.mark.parametrize(
    "text",
    [
        "não aguento mais",
        "Não aguento mais essa rotina",
        "tô no limite",
        "Estou no limite, sério",
        "I can't take this anymore",
        "I cant do this anymore",
        "Ando me sentindo vazia por dentro",
        "Parece que nada do que eu faço dá certo",
        "Tô sem forças pra nada",
        "I feel like I'm falling apart",
        "Me sinto um fracasso",
        "ninguém se importa comigo",
        "tô na bad hoje",
        "I've been feeling really down lately",
        "tô pensando em largar tudo",
        "Estou em dúvida se aceito a proposta",
        "quero sumir",
        "Tô muito cansada de tudo",
        "I'm so tired of everything",
        "Hoje foi um dia horrível",
    ],
)
def test_an_emotional_message_without_a_domain_word_reaches_the_counselor(text):
    assert route(text) == {"counselor"}


def test_despair_over_the_bills_reaches_the_counselor_and_finance():
    assert route("estou desesperada com as contas") == {"counselor", "finance"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # docs/specification.md, skills architecture §5.4 and §6.2: losing sleep over debts is financial stress.
        ("estou com insônia por causa das dívidas", {"counselor", "finance", "health"}),
        ("Estou perdendo o sono porque não consigo pagar as parcelas", {"counselor", "finance", "health"}),
        ("I can't sleep because of my credit card debt", {"counselor", "finance", "health"}),
        ("Estou estressado por causa das dívidas", {"counselor", "finance", "health"}),
        # Work against family: the conflict joins the two domains.
        ("Não consigo conciliar o trabalho com a família", {"counselor", "professional", "relationships"}),
        ("Meu trabalho está atrapalhando meu casamento", {"counselor", "professional", "relationships"}),
        ("Decidi pedir demissão", {"counselor", "professional"}),
        ("Estou devendo no cartão e não durmo direito", {"counselor", "finance", "health"}),
        ("Money problems are ruining my marriage", {"counselor", "finance", "relationships"}),
        ("O que você acha: devo investir minha reserva?", {"counselor", "finance"}),
    ],
)
def test_compound_patterns_add_the_skill_the_combination_calls_for(text, expected):
    assert route(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # The same domains without the causal link or the conflict stay as they are.
        ("Comprei remédio pra dor de cabeça, 40 reais", {"finance", "health"}),
        ("O trabalho está me deixando sem dormir", {"health", "professional"}),
        ("Dormi 8 horas e paguei a fatura", {"finance", "health"}),
        ("Vou levar a família no almoço da empresa", {"professional", "relationships"}),
        ("Decidi ir ao mercado mais cedo", {"general"}),
        ("O que você acha desse filme?", {"general"}),
    ],
)
def test_compound_patterns_need_every_part(text, expected):
    assert route(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Decidi que vou mudar de cidade", {"counselor"}),
        ("O que você acha de eu voltar a estudar?", {"counselor"}),
        ("Ganhei um aumento!", {"professional"}),
        ("Vou pedir aumento semana que vem", {"professional"}),
        ("Saiu minha promoção a coordenadora", {"professional"}),
        ("Tenho comido muita comida industrializada", {"health"}),
        ("Preciso comer melhor", {"health"}),
        ("Meu negócio está crescendo", {"professional"}),
        ("Quero abrir um negócio de doces", {"professional"}),
        ("Sinto que perdi meu propósito", {"spiritual"}),
    ],
)
def test_the_seeds_triggers_fire_again(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("decidi ir ao mercado", {"general"}),
        ("O que você acha do novo filme da Marvel?", {"general"}),
        ("Tive um aumento de peso depois das férias", {"health"}),
        ("O aumento do aluguel veio alto", {"finance"}),
        ("Minha renda aumentou esse mês", {"finance"}),
        ("Comprei o tênis na promoção", {"finance"}),
        ("Tá em promoção no mercado", {"finance"}),
        ("Gastei 80 reais com comida no fim de semana", {"finance"}),
        ("Vamos comer fora hoje?", {"general"}),
        ("Que negócio é esse?", {"general"}),
        ("Esse negócio não funciona", {"general"}),
        ("Estou pensando em empreender no ramo de alimentação", {"professional"}),
        ("Deixei a porta aberta de propósito", {"general"}),
        ("A propósito, que horas são?", {"general"}),
        ("Meu Deus, que calor!", {"general"}),
        ("Graças a Deus deu tudo certo", {"general"}),
        ("Muito obrigado pela ajuda", {"general"}),
        ("Realmente, faz sentido", {"general"}),
        ("Esse país tem muitas praias bonitas", {"general"}),
        ("Adoro a paisagem de São Paulo", {"general"}),
        ("Does this app work offline?", {"general"}),
        ("Meu time ganhou ontem!", {"general"}),
        ("Estou muito cansada hoje", {"health"}),
        ("I feel guilty for not spending time with my kids", {"counselor", "relationships"}),
    ],
)
def test_the_restored_triggers_keep_their_false_positives_away(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Anota que o Pedro é alérgico a camarão", {"relationships"}),
        ("Lembra que a Carla faz aniversário sábado", {"relationships"}),
        ("Meu chefe me humilhou na frente de todos e não paro de chorar", {"counselor", "professional"}),
        ("My boss wants the report by Friday", {"professional"}),
        ("O que você sabe sobre a Ana, minha colega?", {"relationships"}),
        ("How much did I spend this month?", {"finance"}),
        ("Comi muita besteira no fim de semana", {"health"}),
        ("Quero montar uma loja online", {"professional"}),
    ],
)
def test_people_work_money_and_food_in_their_everyday_wording(text, expected):
    assert route(text) == expected


def test_a_spiritual_message_still_needs_the_users_preference():
    assert route("Quero me aproximar mais de Deus") == {"general"}
    assert route("Quero me aproximar mais de Deus", CHRISTIAN) == {"spiritual"}


def test_a_conversation_combines_debts_with_the_feelings_and_the_sleep_they_cost():
    first = decide_text("Minhas dívidas do cartão passaram de 20 mil")
    second = decide_text("estou desesperada", first.state)
    third = decide_text("e por causa disso não consigo dormir", second.state)
    fourth = decide_text("Mudando de assunto: corri 5 km hoje", third.state)
    assert [skill.name for skill in first.active] == ["finance"]
    assert ([skill.name for skill in second.active], second.reason) == (["counselor", "finance"], "combined")
    assert ([skill.name for skill in third.active], third.reason) == (["counselor", "finance", "health"], "combined")
    assert ([skill.name for skill in fourth.active], fourth.reason) == (["health"], "trigger")


@pytest.mark.parametrize(
    ("feeling", "follow_up", "expected"),
    [
        ("estou muito ansiosa, não consigo relaxar", "e as parcelas do cartão estão todas atrasadas", ["counselor", "finance"]),
        ("I feel so overwhelmed lately", "but my boyfriend says I'm overreacting", ["counselor", "relationships"]),
        ("estoy muy angustiada", "y encima tengo muchas deudas con la tarjeta", ["counselor", "finance"]),
        ("estou muito ansiosa", "mudando de assunto, quanto gastei com mercado esse mês?", ["finance"]),
        ("tengo mucha ansiedad", "cambiando de tema, ¿cuánto gasté este mes?", ["finance"]),
        # Asking to talk of something else announces it too (holdout-139).
        ("estou muito ansiosa", "bora falar de outra coisa: quem ganhou a copa de 2002?", ["general"]),
        ("I feel so overwhelmed lately", "can we talk about something else? who won the 2002 world cup?", ["general"]),
    ],
)
def test_a_feeling_stays_with_the_topic_that_follows_unless_a_new_subject_is_announced(feeling, follow_up, expected):
    first = decide_text(feeling)
    assert [skill.name for skill in first.active] == ["counselor"]
    assert [skill.name for skill in decide_text(follow_up, first.state).active] == expected


@pytest.mark.parametrize(
    ("topic", "set_aside", "expected"),
    [
        ("minhas contas tão um caos", "olha, não quero falar de dinheiro agora. vai chover amanhã em sp?", ["general"]),
        ("my boss dumped three projects on me", "can we not talk about work? what's a good film?", ["general"]),
        ("tô triste hj", "mas não quero falar do meu namorado", ["counselor"]),
    ],
)
def test_setting_aside_the_topic_at_hand_leaves_its_skill_behind(topic, set_aside, expected):
    first = decide_text(topic)
    assert [skill.name for skill in decide_text(set_aside, first.state).active] == expected


def test_a_confirmation_after_an_expense_stays_with_finance():
    first = decide_text("gastei 50 reais no mercado")
    second = decide_text("pode registrar", first.state)
    assert [skill.name for skill in second.active] == ["finance"]
    assert second.reason == "inertia"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Words a blind held-out set (tests/data/routing-dev-2.jsonl) found missing.
        ("no duermo bien desde hace semanas", {"health"}),
        ("tengo miedo", {"counselor"}),
        ("bebi só 2 garrafinhas de água hj", {"health"}),
        ("marquei consulta com o cardiologista pra quinta", {"health"}),
        ("quanto eu ja torrei com uber esse mes?", {"finance"}),
        ("qual a diferença entre LCI e LCA?", {"finance"}),
        ("conheci um cara no tinder, primeiro encontro amanhã", {"relationships"}),
        ("remind me to take my vitamins", {"health"}),
        ("everything feels pointless right now", {"counselor"}),
        # And the false positives it found: a bench, luggage, a school assignment, the sky.
        ("sentei num banco da praça pra ler", {"general"}),
        ("qual o peso da bagagem de mão na latam?", {"general"}),
        ("o trabalho de geografia da escola é pra sexta", {"general"}),
        ("my phone's battery health is at 80%", {"general"}),
        ("I'm sick of this song", {"general"}),
        ("não quero falar de trabalho hoje, me conta uma curiosidade", {"general"}),
        ("paguei o aluguel de fevereiro", {"finance"}),  # "fever" fired on "fevereiro"
    ],
)
def test_held_out_vocabulary_and_false_positives(text, expected):
    assert route(text) == expected


def test_heaven_is_faith_only_when_it_is_not_the_sky():
    assert route("por que o céu é azul?", CHRISTIAN) == {"general"}
    assert "spiritual" in route("minha avó foi pro céu, será que ela está no céu?", CHRISTIAN)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A quarrel with someone close is a conflict: the counselor's with relationships (seed
        # 004 lists "briga" and "discuss" among the counselor's triggers), over money or work too.
        ("briguei com meu namorado ontem", {"counselor", "relationships"}),
        ("briguei feio com meu melhor amigo por causa de política", {"counselor", "relationships"}),
        ("me peleé con mi hermana", {"counselor", "relationships"}),
        ("my wife and I had a fight last night", {"counselor", "relationships"}),
        ("como eu falo isso pro meu sogro sem criar briga?", {"counselor", "relationships"}),
        ("Minha esposa e eu brigamos por causa das contas", {"counselor", "finance", "relationships"}),
        ("me peleé con mi novio por plata otra vez", {"counselor", "finance", "relationships"}),
        ("briguei com minha namorada e tô arrasada", {"counselor", "relationships"}),
        # Someone else's anger, or being shouted at, is no feeling the user wrote.
        ("I think my friend is mad at me, she left me on read for days", {"relationships"}),
        ("meu chefe gritou comigo na frente de todo mundo", {"professional"}),
        ("meu chefe gritou comigo e fiquei triste", {"counselor", "professional"}),
        ("I'm so mad at my sister", {"counselor", "relationships"}),
        # Being ignored, anniversaries, surprises and partners in regional slang.
        ("mi pololo no me habla hace 3 días", {"relationships"}),
        ("dia 14 faz 10 anos de casados", {"relationships"}),
        ("me ajuda a pensar numa surpresa pra ela?", {"relationships"}),
        ("me ajuda a pensar nessa decisão?", {"counselor"}),
        ("my missus wants to go to Spain", {"relationships"}),
    ],
)
def test_quarrels_and_the_people_around_the_user(text, expected):
    assert route(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Classes a seventh blind set (tests/data/routing-dev-7.jsonl) found missing, each in three languages.
        ("tô conseguindo guardar 500 por mês", {"finance"}),
        ("I want to plan something nice but keep it under $150", {"finance"}),
        ("no tengo un mango", {"finance"}),
        ("I'm skint till payday", {"finance"}),
        ("tô tentando perder 5kg até o fim do ano", {"health"}),
        ("tô com o estômago embrulhado desde ontem", {"health"}),
        ("my tummy's been dodgy all day", {"health"}),
        ("me cayó mal la comida", {"health"}),
        ("i'm knackered, only got 4 hours of kip", {"health"}),
        ("estoy hecha bolsa, no pegué un ojo", {"health"}),
        ("got a 10k run on sunday", {"health"}),
        ("booked a physio appointment for thursday", {"health"}),
        ("mañana tengo kine", {"health"}),
        ("my gaffer's put me on the late rota all week", {"professional"}),
        ("I need to finish my slides for the quarterly review", {"professional"}),
        ("me rajaron del laburo", {"professional"}),
        ("a menina nova da minha equipe me ignora no cafezinho", {"relationships"}),
        ("emotionally I'm running on empty", {"counselor"}),
        ("like everything just feels heavy", {"counselor"}),
        ("me siento pésimo", {"counselor"}),
        # And what they must not take: a knot in the stomach, a series marathon, a route.
        ("it's like a constant knot in my stomach", {"counselor"}),
        ("me recomenda uma série pra maratonar", {"general"}),
        ("qual a melhor rota pra ir pro centro?", {"general"}),
        ("I can't stomach his attitude", {"general"}),
    ],
)
def test_a_seventh_blind_sets_classes(text, expected):
    assert route(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Classes a ninth blind set (tests/data/routing-dev-9.jsonl) found missing, each in three languages.
        ("I've been feeling really low this week", {"counselor"}),
        ("ando bajoneada desde el lunes", {"counselor"}),
        ("tô num baixo astral danado", {"counselor"}),
        ("estoy hasta las narices, de verdad", {"counselor"}),
        ("sick and tired of my job", {"counselor", "professional"}),
        ("tô pelas tampas com esse povo", {"counselor"}),
        ("tô com dó dela", {"counselor"}),
        ("me da mucha pena mi abuela", {"counselor", "relationships"}),
        ("tô com mt saudade da minha família, moro longe", {"counselor", "relationships"}),
        ("te echo de menos", {"counselor"}),
        ("I've been so homesick lately", {"counselor"}),
        ("my boyfriend forgot my birthday and I'm really hurt", {"counselor", "relationships"}),
        ("me dolió lo que dijo mi hermana", {"counselor", "relationships"}),
        ("me sinto um peso pra todo mundo", {"counselor"}),
        ("I think I'm burning out", {"counselor", "professional"}),
        ("acordo já cansado de pensar no trampo", {"counselor", "professional"}),
        ("honestly I'm knackered and fed up", {"counselor"}),
        ("How much did I put on my Amex this month?", {"finance"}),
        ("quanto rende o CDB do Itaú?", {"finance"}),
        ("virei freela e não sei como declarar o IR", {"finance", "professional"}),
        ("tenho que emitir nota?", {"finance"}),
        ("¿cómo hago la declaración de la renta?", {"finance"}),
        ("Le presté 200 mil pesos a mi hermano", {"finance", "relationships"}),
        ("¿cómo se lo cobro sin pelear?", {"finance"}),
        # And what they must not take: a paperweight, famous brothers, a bank as an employer,
        # "ir" as a verb, a visa, a flight missed, "lo extraño" meaning the odd thing.
        ("pra que serve um peso de papel? nunca entendi", {"general"}),
        ("tirei um peso das costas", {"general"}),
        ("meu peso tá 80kg", {"health"}),
        ("quem inventou o avião afinal? santos dumont ou os irmãos wright?", {"general"}),
        ("tô estudando 6h por dia pro concurso do banco do brasil", {"professional"}),
        ("quero ir ao mercado", {"general"}),
        ("my visa got approved", {"general"}),
        ("I miss my flight home every time", {"general"}),
        ("lo extraño es que no me duele nada", {"health"}),
        ("sinto falta de ar quando subo escada", {"health"}),
        ("i'm knackered, only got 4 hours of kip", {"health"}),
    ],
)
def test_a_ninth_blind_sets_classes(text, expected):
    assert route(text) == expected


def test_a_feeling_about_work_does_not_follow_a_look_up_in_the_records():
    first = decide_text("tenho reunião com o diretor às 15h e tô nervoso")
    assert {skill.name for skill in first.active} == {"counselor", "professional"}
    second = decide_text("quanto eu gastei de gasolina essa semana?", first.state)
    assert {skill.name for skill in second.active} == {"finance"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # The classes dev-10 missed, each in pt-BR, English and Spanish: the throat and what
        # is inflamed, eating too much, a bill and an amount that came in, a health plan that
        # costs more, changing careers, a postgraduate course said short, dates, emotions and
        # confidence in oneself, feeling abandoned.
        ("I've had a sore throat since Monday", {"health"}),
        ("me duele la garganta desde ayer", {"health"}),
        ("meu joelho tá inflamado", {"health"}),
        ("exagerei no chocolate no fim de semana", {"health"}),
        ("I overdid it on the sweets yesterday", {"health"}),
        ("me pasé con los dulces en la fiesta", {"health"}),
        ("a conta do restaurante deu 230", {"finance"}),
        ("the grocery bill came to 120 this week", {"finance"}),
        ("la cuenta del super salió carísima", {"finance"}),
        ("recebi 300 de um bico", {"finance"}),
        ("me pagaron 200 por una changa", {"finance"}),
        ("my health insurance premium went up again", {"finance", "health"}),
        ("quero mudar de carreira", {"professional"}),
        ("I'm thinking of switching careers into UX", {"professional"}),
        ("quiero cambiar de rubro", {"professional"}),
        ("tranquei a pós em gestão de projetos", {"professional"}),
        ("I have a date on Friday, where should I take her?", {"relationships"}),
        ("tengo una cita con ella el viernes", {"relationships"}),
        ("no sé manejar mis emociones", {"counselor"}),
        ("quero ter mais autoconfiança", {"counselor"}),
        ("I want to believe in myself more", {"counselor"}),
        ("sinto que meus amigos me abandonaram", {"counselor", "relationships"}),
        # And what they must not take: a meeting with a client, idioms with money words, the
        # founding of an institution, where a saying comes from, a pet's sleep, a neighbour's
        # news without friction, a step goal, a review prepared for. (A lump in the throat was
        # here as no topic; holdout-17 and holdout-27 label it the counselor's, as round 19 does.)
        ("tô com um nó na garganta", {"counselor"}),
        ("tenho um encontro com o cliente amanhã", {"professional"}),
        ("we paid the price for that mistake", {"general"}),
        ("em que ano foi fundada a Caixa?", {"general"}),
        ("de donde viene la expresión 'estar en la luna'?", {"general"}),
        ("my dog slept all afternoon", {"general"}),
        ("o gato da vizinha dorme o dia inteiro", {"general"}),
        ("meu vizinho vive fazendo barulho de madrugada", {"relationships"}),
        ("bati a meta de 10 mil passos", {"health"}),
        ("bati a meta de vendas do mês", {"professional"}),
        ("How should I prepare for a performance review?", {"professional"}),
    ],
)
def test_a_tenth_blind_sets_classes(text, expected):
    assert route(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Classes four blind sets of 28 November 2026 (routing-dev-12 to 15) found missing,
        # tried here in other words: anger and revolt in slang, feeling low said loosely, a bad
        # parent, forgiveness not given, nobody missing one; waking in the night counted, a
        # runny nose, pills, too much coffee, a diagnosis; a payroll loan, a bill split, savings
        # burnt, fuel bought; a thesis, a sprint, a certification exam; a devotional, a book of
        # the Bible being read.
        ("tô mt puto com a operadora", {"counselor"}),
        ("fiquei revoltada com a demissão", {"counselor", "professional"}),
        ("honestly I've been kinda down all week", {"counselor"}),
        ("me sinto um péssimo pai", {"counselor", "relationships"}),
        ("ainda não consigo perdoar minha irmã", {"counselor", "relationships"}),
        ("acho que ninguém ia sentir minha falta se eu sumisse", {"counselor"}),
        ("acordei umas cinco vezes de madrugada", {"health"}),
        ("woke up three times last night", {"health"}),
        ("my nose has been runny since Sunday", {"health"}),
        ("tomo uns 6 cafés por dia, preciso diminuir", {"health"}),
        ("me diagnosticaron anemia", {"health"}),
        ("quero quitar o consignado antes", {"finance"}),
        ("a gente dividiu a conta da pizza, deu 40 pra cada", {"finance"}),
        ("torrei a reserva toda no conserto do carro", {"finance"}),
        ("abasteci o carro, 200 reais", {"finance"}),
        ("falta escrever a conclusão do TCC", {"professional"}),
        ("essa sprint tá puxada, mil tasks abertas", {"professional"}),
        ("estudando pra certificação PMP", {"professional"}),
        ("I'd like a short devotional for the morning", {"spiritual"}),
        ("tô lendo salmos, me explica o capítulo 23", {"spiritual"}),
        # And the false positives they found: a car seat, a phone's battery, a firm's party,
        # a gift chosen, someone's diet or home told as a fact, a project eating the week,
        # the world's religions, a word's origin, a question about a country.
        ("o banco do motorista tá rasgado", {"general"}),
        ("como economizar bateria no android?", {"general"}),
        ("a festa da firma vai ser num sítio", {"general"}),
        ("what should I get my sister for her graduation?", {"relationships"}),
        ("a Bia é vegana, lembra disso pro jantar", {"relationships"}),
        ("meu avô mora sozinho no interior", {"relationships"}),
        ("this migration is eating my whole sprint", {"professional"}),
        ("qual a religião mais antiga do mundo?", {"general"}),
        ("what's the origin of the word 'mortgage'?", {"general"}),
        ("qual país tem mais bancos por habitante?", {"general"}),
    ],
)
def test_the_blind_sets_of_28_november_classes(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # The fourth round's classes, in other words: exercise before or after work is
        # exercise, coffees counted, naps, a back worn out, hired, a dilemma "se me...", a
        # birthday said as "niver"; an animal's weight, a holiday's origin, a bank's charge
        # in Spanish and a quote for a client are not what their words suggest.
        ("went for a run after work", {"health"}),
        ("fiz pilates antes do trabalho", {"health"}),
        ("bebi uns 5 cafés hoje", {"health"}),
        ("I took a nap after lunch", {"health"}),
        ("standing all day is killing my back", {"health"}),
        ("me contrataram na agência!", {"professional"}),
        ("não sei se me caso ou espero mais", {"counselor"}),
        ("quando é o niver do Rafa?", {"relationships"}),
        ("quanto pesa uma baleia azul?", {"general"}),
        ("qual a origem do carnaval?", {"general"}),
        ("el banco me cobró una tarifa", {"finance"}),
        ("preciso mandar o orçamento pro cliente até amanhã", {"professional"}),
    ],
)
def test_the_fourth_blind_rounds_classes(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Someone else's illness is the people's (and the feeling's), not the user's body: the
        # verb in the third person tells it. The user's own stays health.
        ("minha sogra foi internada ontem", {"relationships"}),
        ("meu avô vai fazer cirurgia no joelho e tô com medo", {"counselor", "relationships"}),
        ("mi papá está enfermo", {"relationships"}),
        ("my sister is in the hospital", {"relationships"}),
        ("fui internado semana passada", {"health"}),
        ("vou fazer cirurgia no joelho", {"health"}),
        ("estoy enferma desde el lunes", {"health"}),
        # The fifth round's other classes, in other words.
        ("me conta uma piada de médico", {"general"}),
        ("who wrote the book of Job?", {"general"}),
        ("I never feel good enough", {"counselor"}),
        ("quero orar por ele hoje", {"relationships", "spiritual"}),
        ("queremos fazer as pazes", {"relationships"}),
        ("a chefe tá furiosa com o atraso", {"professional"}),
        ("went to bed at 3am, feeling wrecked", {"health"}),
        ("estudando pra OAB", {"professional"}),
    ],
)
def test_the_fifth_blind_rounds_classes(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # The sixth round's classes, in other words.
        ("qual o sinônimo de feliz?", {"general"}),
        ("translate 'I feel lonely' into French", {"general"}),
        ("me conta uma piada de dentista", {"general"}),
        ("em que ano foi a queda do muro de Berlim?", {"general"}),
        ("bebo uns 4 cafés por dia", {"health"}),
        ("skipped lunch again, too busy", {"health"}),
        ("sou alérgica a dipirona, anota aí", {"health"}),
        ("should I quit or stay another year?", {"counselor"}),
        ("necesito un consejo sobre mi vida", {"counselor"}),
        ("I've been feeling empty for weeks", {"counselor"}),
        ("não consigo dormir pensando na demissão", {"counselor", "health", "professional"}),
        ("lembra q o Léo n come glúten", {"relationships"}),
        ("ora comigo antes da prova?", {"spiritual"}),
        ("qnto sobrou na conta esse mês?", {"finance"}),
    ],
)
def test_the_sixth_blind_rounds_classes(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A pet's body is not the user's, up to a conjunction; the user's own still is.
        ("minha gata tá vomitando desde ontem, o que pode ser?", {"general"}),
        ("my dog has been limping since the walk", {"general"}),
        ("levei o cachorro pra passear e corri 5 km", {"health"}),
        ("gastei 250 no veterinário do gato", {"finance"}),
        # The seventh round's other classes, in other words.
        ("how tall is the Eiffel Tower?", {"general"}),
        ("quem ganhou o Oscar de melhor filme?", {"general"}),
        ("como se diz 'dívida' em espanhol?", {"general"}),
        ("como fala pro meu chefe que vou sair?", {"professional"}),
        ("meu guri começou na creche", {"relationships"}),
        ("a menina da faculdade me chamou pra sair", {"relationships"}),
        ("fechei contrato com um cliente novo", {"professional"}),
        ("deixei 50 reais de oferta no culto", {"finance", "spiritual"}),
        ("me siento vacía últimamente", {"counselor"}),
    ],
)
def test_the_seventh_blind_rounds_classes(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("topic", "question", "expected"),
    [
        # A question about the world, with no word of the user's own, keeps no topic...
        ("tô me sentindo muito sozinha", "quantos dias tem um ano bissexto?", ["general"]),
        ("briguei com meu irmão", "ah, e quantos ml tem uma colher de sopa?", ["general"]),
        ("me siento muy triste", "¿cuántos habitantes tiene Chile?", ["general"]),
        ("I'm so stressed about my debts", "how many bones does a shark have?", ["general"]),
        ("tenho reunião com o diretor amanhã", "e quantas calorias tem uma tapioca?", ["health"]),
        ("minha fatura veio alta", "quem inventou o cartão de crédito?", ["general"]),
        ("tô exausta do plantão", "kkk sabe qual o maior rio do mundo?", ["general"]),
        ("bah, paguei 420 no conserto do carro", "tu sabe qual o maior rio do brasil?", ["general"]),
        ("meu chefe me sobrecarrega", "can you recommend a good series for tonight?", ["general"]),
        ("la plata se me está acabando", "¿me recomiendas una película para esta noche?", ["general"]),
        ("me siento re solo", "che, ¿quién dirigía la selección en el 78?", ["general"]),
        # ... but one of the user's own life, or one referring back, goes on with it.
        ("gastei 300 no mercado", "e quantos reais eu gastei de uber?", ["finance"]),
        ("tô ansiosa com as dívidas", "e quantas parcelas ainda tenho disso?", ["counselor", "finance"]),
    ],
)
def test_a_question_about_the_world_keeps_no_topic(topic, question, expected):
    first = decide_text(topic)
    assert [skill.name for skill in decide_text(question, first.state).active] == expected


@pytest.mark.parametrize(
    ("topic", "follow_up", "expected"),
    [
        # "Never mind" drops what was being said.
        ("briguei com minha mãe", "enfim, deixa pra lá. alguma série boa pra hoje?", ["general"]),
        ("my boss is driving me crazy", "never mind, what's a good pasta recipe?", ["general"]),
        # A balance or a total asked for after a feeling is a look-up: finance alone.
        ("I feel so overwhelmed today", "what's my checking account balance?", ["finance"]),
        ("tô muito ansiosa hj", "quanto foi de uber essa semana?", ["finance"]),
        # Thanks for listening, said alone, is still the vent's last word; followed by
        # something else, that is a new subject.
        ("tô muito triste com o fim do namoro", "obrigada por ouvir", ["counselor", "relationships"]),
        ("tô muito triste com o fim do namoro", "obrigada por ouvir. me passa uma receita de bolo?", ["general"]),
        # "Não quero mais falar de..." sets the topic aside like "não quero falar de...".
        ("meu chefe me sobrecarrega", "n quero mais falar de trabalho hj, me conta uma piada", ["general"]),
    ],
)
def test_never_mind_look_ups_and_topics_no_longer_wanted(topic, follow_up, expected):
    first = decide_text(topic)
    assert [skill.name for skill in decide_text(follow_up, first.state).active] == expected


@pytest.mark.parametrize(
    ("topic", "follow_up", "expected"),
    [
        # A bare answer (one word, or one after an article or a preposition) answers the
        # assistant's question, an expense's category: the domain kept stays alone...
        ("paguei 45 no ifood", "comida", ["finance"]),
        ("gastei 90 reais hoje", "na academia", ["finance"]),
        # ... but after a feeling it names the feeling's cause, and a message with a verb
        # is a topic of its own.
        ("tô muito estressada", "trabalho", ["counselor", "professional"]),
        ("paguei o aluguel", "dormi mal", ["health"]),
        # A pronoun speaks of someone already spoken of: the people skill stays...
        ("meu irmão anda muito distante", "queria rezar por ele", ["relationships", "spiritual"]),
        # ... only when one is kept: the grandmother is no faith of hers.
        ("fui à missa hoje depois de anos", "minha vó ficou feliz, ela sempre pedia", ["relationships"]),
        # English "that" joining a clause points ahead, not back.
        ("corri 8 km hoje", "remind me that Ana's birthday is on Friday", ["relationships"]),
        # A joke, a podcast or a series asked for keeps no topic; "outra coisa," opening a
        # message and "switching topics" announce a new one.
        ("I'm stressed about rent", "tell me a dad joke", ["general"]),
        ("tô com raiva do meu chefe", "conta uma piada pra eu rir", ["general"]),
        ("paguei o aluguel", "alguma indicação de série pra hoje?", ["general"]),
        ("my rent went up again", "any podcast recommendations?", ["general"]),
        ("tô triste com meu namorado", "outra coisa, quanto tá a conta de luz?", ["finance"]),
        ("corri 8 km hoje", "switching topics, who won the 1970 World Cup?", ["general"]),
    ],
)
def test_answers_pronouns_and_requests_of_the_eighth_round(topic, follow_up, expected):
    first = decide_text(topic, preferences=CHRISTIAN)
    assert [skill.name for skill in decide_text(follow_up, first.state, CHRISTIAN).active] == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A close one's body, told in the third person, is theirs: no health of the user's.
        ("minha sogra quebrou o braço", {"relationships"}),
        ("my brother has the flu", {"relationships"}),
        ("a pressão do meu pai subiu", {"relationships"}),
        ("mi madre tiene gripe", {"relationships"}),
        ("my husband is in the hospital", {"relationships"}),
        # The user's own body in the same message still is.
        ("minha mãe disse que eu preciso dormir mais", {"health", "relationships"}),
        ("levei minha filha ao pediatra e aproveitei pra medir minha pressão", {"health", "relationships"}),
        ("minha filha tá com catapora e eu tô sem dormir", {"health", "relationships"}),
        # The eighth round's vocabulary, in other words.
        ("I get out of breath on the stairs", {"health"}),
        ("me falta el aire al subir escaleras", {"health"}),
        ("não tenho com quem falar", {"counselor"}),
        ("no me alcanza el sueldo", {"finance"}),
        ("what's the story behind the euro symbol?", {"general"}),
    ],
)
def test_the_eighth_blind_rounds_classes(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # The ninth round's classes, in other words: wording met for the first time...
        ("me da bronca que nadie me ayude", {"counselor"}),
        ("tô me sentindo injustiçada", {"counselor"}),
        ("fiquei olhando pro teto a noite toda", {"health"}),
        ("woke up at 3am again", {"health"}),
        ("me canso subiendo dos pisos", {"health"}),
        ("tô com gripa", {"health"}),
        ("semana de provas chegando e eu nem comecei", {"professional"}),
        ("no llego a fin de mes", {"finance"}),
        ("la cuaresma empieza el miércoles", {"spiritual"}),
        # ... what is no body of the user's: a prayer before bed, someone spoken of by a pronoun,
        # a partner's tastes; an interview at a bank is no money ...
        ("vou rezar antes de dormir hoje", {"spiritual"}),
        ("my grandpa is in the ICU, he has pneumonia", {"relationships"}),
        ("minha namorada adora comida árabe", {"relationships"}),
        ("ela passou um remédio pra mim tomar", {"health"}),
        ("tengo entrevista en un banco el lunes", {"professional"}),
        # ... a book or a podcast asked by one liked, and the guards kept.
        ("any podcasts like Serial?", {"general"}),
        ("livros parecidos com Torto Arado?", {"general"}),
        ("nossa senhora, que trânsito", {"general"}),
        ("como faz chupeta na bateria do carro?", {"general"}),
    ],
)
def test_the_ninth_blind_rounds_classes(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # The tenth round's classes, in other words.
        ("sinto que nunca sou suficiente", {"counselor"}),
        ("minha irmã quer ser minha fiadora", {"finance", "relationships"}),
        ("tomei dois energéticos pra virar a noite", {"health"}),
        ("minha glicada subiu", {"health"}),
        ("fiquei até 3h vendo série", {"health"}),
        # Someone else's body, years or wishes; a priest is no father; a poem, a quarrel that
        # wears one out and baroque churches toured are no body or faith of the user's.
        ("minha filha caçula quer dormir na vovó", {"relationships"}),
        ("o padre da minha cidade faz uma missa linda", {"spiritual"}),
        ("write a poem about my grandma's garden", {"general"}),
        ("I'm exhausted by all this arguing with my sister", {"counselor", "relationships"}),
        ("vi as igrejas barrocas de Tiradentes", {"general"}),
        ("acendi uma velita pra Virgem", {"spiritual"}),
    ],
)
def test_the_tenth_blind_rounds_classes(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # The eleventh round's classes, in other words.
        ("sinto que tô ficando pra trás", {"counselor"}),
        ("faz um mês que minha avó faleceu", {"counselor", "relationships"}),
        ("fiz 30 min de bicicleta ergométrica", {"health"}),
        ("o mecânico cobrou 1200 no conserto", {"finance"}),
        ("quero abrir uma loja de roupas", {"professional"}),
        ("vou me confessar no sábado", {"spiritual"}),
        ("who holds the record for most goals?", {"general"}),
        # Someone spoken of by a pronoun, someone else's health, a bike sold: no body of the user's.
        ("ele ainda tem 40 de febre", {"general"}),
        ("minha mãe quer saber da saúde dela", {"relationships"}),
        ("vendi minha bici por 300", {"finance"}),
    ],
)
def test_the_eleventh_blind_rounds_classes(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("topic", "follow_up"),
    [("gasté 200 en el súper", "sí, ponlo en comida"), ("paguei 80 no mercado", "coloca em alimentação")],
)
def test_a_category_given_as_an_order_is_a_bare_answer(topic, follow_up):
    first = decide_text(topic, preferences=CHRISTIAN)
    assert [skill.name for skill in decide_text(follow_up, first.state, CHRISTIAN).active] == ["finance"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # The twelfth round's classes, in other words.
        ("my sister's getting her wisdom teeth out on Friday", {"relationships"}),
        ("meu irmão faz quimio toda semana", {"relationships"}),
        ("my cat's vaccine cost 90 bucks", {"finance"}),
        ("o que ele falou isso me dói até hoje", {"counselor"}),
        ("lately I don't feel like myself at all", {"counselor"}),
        ("meus tornozelos incharam no voo", {"health"}),
        ("machuquei o ombro na academia", {"health"}),
        ("I'm 20 weeks pregnant and can't sleep on my back", {"health"}),
        ("my landlord wants to raise it by 15%", {"finance"}),
        ("preciso montar o plano de aula de amanhã", {"professional"}),
        ("our tech lead quit", {"professional"}),
        ("hola, ¿cuál es el río más largo del mundo?", {"general"}),
        ("nobody remembered to call me", {"counselor"}),
        ("a conta do hospital veio altíssima", {"finance"}),
    ],
)
def test_the_twelfth_blind_rounds_classes(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # The thirteenth round's classes, in other words.
        ("hoje a balança marcou 70,1, subi na balança depois do treino", {"health"}),
        ("ran a 10k in under an hour!", {"health"}),
        ("I want to save $10k this year", {"finance"}),
        ("anoche estuve durmiendo fatal otra vez", {"health"}),
        ("my heart is racing and I can't calm down", {"health"}),
        ("vivo com a sensação de que algo ruim vai acontecer", {"counselor"}),
        # Pricing one's work is the work's alone since round 37 (six lines of the sets to three).
        ("quanto devo cobrar por uma diária de faxina?", {"professional"}),
        ("quero trocar o carro pelo consórcio", {"finance"}),
        ("¿me conviene un plazo fijo a 90 días?", {"finance"}),
        # A fast kept for faith is no diet.
        ("começo o jejum de Daniel amanhã", {"spiritual"}),
        ("it's my first time fasting for Ramadan", {"spiritual"}),
    ],
)
def test_the_thirteenth_blind_rounds_classes(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # The fourteenth round's classes, in other words.
        ("a vó tá com pressão alta de novo", {"relationships"}),
        ("minha tia piorou essa semana", {"relationships"}),
        ("fiz 12 mil passos, 12,000 steps!", {"health"}),
        ("meu ombro estala quando levanto o braço", {"health"}),
        ("peguei plantão no hospital três noites seguidas", {"professional"}),
        ("tengo turno con el dentista mañana", {"health"}),
        ("reprovei na prova de cálculo e tô tremendo até agora", {"counselor", "professional"}),
        ("I lost my dad in March", {"counselor", "relationships"}),
        ("time to raise my prices, right?", {"professional"}),
        ("tava lendo Provérbios hoje cedo", {"spiritual"}),
    ],
)
def test_the_fourteenth_blind_rounds_classes(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # The fifteenth round's classes, in other words.
        ("translate to Spanish: 'my boss moved the meeting to Friday'", {"general"}),
        ("corrige pra mim: 'fui no médico ontem e ele disse que tô bem'", {"general"}),
        ("minha sobrinha de 5 anos tá com catapora", {"relationships"}),
        ("ela não quer tomar o remédio de jeito nenhum", {"general"}),
        ("acordei 3x de madrugada de novo", {"health"}),
        ("walked 4 miles with the dog today", {"health"}),
        ("tô no piloto automático faz semanas", {"counselor"}),
        # Pricing one's work is the work's alone since round 37 (six lines of the sets to three).
        ("sou diarista e quero saber quanto cobrar por faxina pesada", {"professional"}),
        ("they cut my hours again this week", {"professional"}),
        ("meu avô se aposentou depois de 40 anos no banco", {"relationships"}),
        ("quero voltar a ler o Alcorão", {"spiritual"}),
        ("vamos abençoar a comida antes do almoço?", {"spiritual"}),
    ],
)
def test_the_fifteenth_blind_rounds_classes(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # The sixteenth round's classes, in other words.
        ("separei 200 pro mercado esse mês", {"finance"}),
        ("acordei com o pescoço travado de novo", {"health"}),
        ("crio meu filho sozinha desde que ele nasceu", {"relationships"}),
        ("anota que o Beto odeia coentro", {"relationships"}),
        ("tô pilhada, não consigo desligar a cabeça pra dormir", {"counselor", "health"}),
        ("sou do candomblé, minha obrigação de 7 anos é em março", {"spiritual"}),
        ("fiquei grávida e ainda não contei pra ninguém", {"health"}),
        ("minha cunhada tá grávida de novo!", {"relationships"}),
        ("três meses sóbrio e hoje bateu vontade de beber", {"health"}),
        ("tenho 45 provas pra corrigir no fim de semana", {"professional"}),
        ("the partners want the brief by Monday", {"professional"}),
        ("meu sobrinho passou no vestibular!", {"relationships"}),
        ("estudando pro vestibular de direito", {"professional"}),
        ("why is it called a bear market?", {"general"}),
        ("a colega pegou o crédito da apresentação", {"professional"}),
    ],
)
def test_the_sixteenth_blind_rounds_classes(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # The seventeenth round's classes, in other words.
        ("comecei o ozempic faz duas semanas", {"health"}),
        ("sou entregador de app, como faço pra pegar mais corrida?", {"professional"}),
        ("fiz 8 km de corrida hoje", {"health"}),
        ("treino de costas tá pago", {"health"}),
        ("o aluguel tá pago", {"finance"}),
        ("quantas religiões existem no Brasil?", {"general"}),
        ("¿por qué los gatos son tan independientes?", {"general"}),
        ("my son is starting school next week", {"relationships"}),
        ("apúntalo en comida, por favor", {"finance"}),
        ("me siento re triste hoy", {"counselor"}),
        ("I'm worried about her surgery tomorrow", {"counselor"}),
        ("ora por mim, amanhã é a prova", {"spiritual"}),
        ("entrou 800 na conta, pagamento de um cliente", {"finance"}),
    ],
)
def test_the_seventeenth_blind_rounds_classes(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # The eighteenth round's classes, in other words.
        ("qual a moeda da Argentina?", {"general"}),
        ("ando con el ánimo por los suelos", {"counselor"}),
        ("sinto que não me encaixo em lugar nenhum", {"counselor"}),
        ("ele tá com medo da cirurgia", {"general"}),
        ("quanto já entrou esse mês?", {"finance"}),
        ("o carro quebrou de novo, a oficina deu 900", {"finance"}),
        ("I've been under the weather since Sunday", {"health"}),
        ("my BP was 150/95 this morning", {"health"}),
        ("deu match com um cara legal no app", {"relationships"}),
        ("oi minha filha, hoje caminhei 40 minutos", {"health"}),
        ("o movimento da loja tá fraco demais", {"professional"}),
        ("quero montar uma hamburgueria no meu bairro", {"professional"}),
        ("agradeci a Deus pela colheita", {"spiritual"}),
        ("dormi 4h, tô um caco", {"health"}),
    ],
)
def test_the_eighteenth_blind_rounds_classes(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Rounds 16-18's words kept to their sense: a good feeling said with "re", a
        # question for HR, shopping for cleaning products, the end of a contract.
        ("me siento re bien con mi nuevo trabajo", {"professional"}),
        ("can I talk to anyone at the front desk about my booking?", {"general"}),
        ("gastei 80 em produtos de limpeza", {"finance"}),
        ("o término do contrato de aluguel é em março", {"finance"}),
    ],
)
def test_the_later_rounds_words_keep_to_their_sense(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A close one's work is theirs, as their body is: the relationships skill hears of it.
        ("minha irmã perdeu o emprego ontem", {"relationships"}),
        ("meu namorado conseguiu uma vaga em Recife", {"relationships"}),
        ("my flatmate just quit her job at the café", {"relationships"}),
        ("mi hermano consiguió trabajo en Monterrey", {"relationships"}),
        ("minha amiga foi internada com dengue", {"relationships"}),
        # ...while the user's own work, after a conjunction, is still the user's.
        ("meu marido foi demitido e eu tô com medo de perder meu emprego também", {"counselor", "professional", "relationships"}),
        # An exclusion inside such a span still holds: a niece's school project is no job.
        ("me ajuda no trabalho de escola da minha sobrinha sobre o ciclo da água?", {"relationships"}),
    ],
)
def test_a_close_one_s_job_is_theirs(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # The nineteenth round's classes, in other words.
        ("tenho 80 provas pra corrigir esse fim de semana", {"professional"}),
        ("como precificar as trufas que eu faço?", {"professional"}),
        ("my acceptance rate on Instacart keeps dropping", {"professional"}),
        ("não consigo sair da cama faz dias", {"counselor"}),
        ("sinto um nó na garganta quando lembro dela", {"counselor"}),
        ("lately everything feels grey", {"counselor"}),
        ("I never feel good enough for anyone", {"counselor"}),
        ("a gente rachou a conta da pizza, deu 96", {"finance"}),
        ("lança a conta de água em moradia", {"finance"}),
        ("gasté 20 lucas en el súper", {"finance"}),
        ("mi perico está estornudando mucho", {"general"}),
        ("la neta tengo mucha chamba esta semana", {"professional"}),
        ("vou ser batizada na páscoa", {"spiritual"}),
        ("quiero leer un evangelio por semana", {"spiritual"}),
        ("who is on the fifty dollar bill?", {"general"}),
        ("¿me cuentas algo gracioso?", {"general"}),
        ("I bike to work every day now and lost 2kg", {"health"}),
        ("meu marido passou na entrevista do banco", {"relationships"}),
    ],
)
def test_the_nineteenth_blind_rounds_classes(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Round 19's words kept to their sense: a chicken cut in pieces, an idiom of judging,
        # a grey sky, a nail in the wall, a scolding, quitting soda, a granddaughter who
        # lives far, a sense of smell lost, a cover letter good enough.
        ("cortei o frango em pedaços", {"general"}),
        ("quem eu sou pra julgar?", {"general"}),
        ("o céu tá tudo cinza hoje", {"general"}),
        ("preciso pregar o quadro na parede", {"general"}),
        ("levei um sermão do meu chefe", {"professional"}),
        ("I have to quit drinking soda, my doctor said", {"health"}),
        ("minha neta que mora em BH vem me visitar", {"relationships"}),
        ("I lost my sense of smell after covid", {"health"}),
        ("is this good enough for a cover letter?", {"professional"}),
    ],
)
def test_round_nineteen_s_words_keep_to_their_sense(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("look_up", "expected"),
    [
        # A look-up in the user's records asks its own domain alone, even when that domain
        # was talked of beside a feeling...
        ("how much did I spend on groceries in May?", {"finance"}),
        ("quanto eu gastei de mercado esse mês?", {"finance"}),
        # ...unless it refers back or goes on with a conjunction.
        ("e quanto gastei com isso?", {"counselor", "finance"}),
    ],
)
def test_a_look_up_asks_its_own_domain_alone(look_up, expected):
    feeling = decide_text("I've been feeling really on edge all week")
    rent = decide_text("my landlord says the rent is going up 200 dollars next month", feeling.state)
    assert {skill.name for skill in rent.active} == {"counselor", "finance"}
    assert {skill.name for skill in decide_text(look_up, rent.state).active} == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # The twentieth round's classes, in other words.
        ("quiero poner un puesto de jugos en el mercado", {"professional"}),
        ("fechei o caixa hoje com 50 sobrando", {"professional"}),
        ("preciso pedir férias pro meu chefe", {"professional"}),
        ("não paro de me comparar com os outros", {"counselor"}),
        ("sinto que fiquei pra trás em tudo", {"counselor"}),
        ("me sinto uma péssima mãe hoje", {"counselor", "relationships"}),
        ("the neighbours' dog is doing my head in", {"counselor"}),
        ("minha loja faturou 12 mil, quanto posso tirar pra mim?", {"finance", "professional"}),
        ("filled up the car, 90 quid", {"finance"}),
        ("subi 5 andares de escada hoje", {"health"}),
        ("30 min no rowing machine hoje", {"health"}),
        ("meu melhor amigo foi demitido ontem", {"relationships"}),
        ("a mi abuelito le diagnosticaron presión alta", {"relationships"}),
        ("meu filho acordou com 39,2 de febre", {"relationships"}),
        ("vc sabe em q ano foi criado o SUS?", {"general"}),
        ("tô jejuando essa semana pela campanha da igreja", {"spiritual"}),
    ],
)
def test_the_twentieth_blind_rounds_classes(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Round 20's words kept to their sense: water retention, an internet plan, pizza
        # thought of, a team beaten, an umbrella, a photo, a bathtub, a physical book, the
        # same films again, a busy week, a book that stretches the mind.
        ("how do I reduce water retention?", {"general"}),
        ("quero contratar meu plano de internet novo", {"general"}),
        ("só de pensar em pizza me dá fome", {"general"}),
        ("o Flamengo foi derrotado de novo", {"general"}),
        ("I left behind my umbrella at the café", {"general"}),
        ("tira pra mim uma foto boa?", {"general"}),
        ("I filled up the bathtub for the kids", {"relationships"}),
        ("I prefer a physical copy of the book", {"general"}),
        ("to cansado de ver sempre os mesmos filmes, me indica um?", {"general"}),
        ("semana corrida, mal tive tempo de orar", {"spiritual"}),
        ("reading Psalms and it's doing my head in, in a good way", {"spiritual"}),
    ],
)
def test_round_twenty_s_words_keep_to_their_sense(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # The twenty-first round's classes, in other words.
        ("preciso marcar o preventivo esse mês", {"health"}),
        ("mó bad hoje, sei lá", {"counselor"}),
        ("sinto uma falta danada da minha vó", {"counselor", "relationships"}),
        ("fico feliz por ela, mas bateu uma invejinha", {"counselor"}),
        ("losing hope that anything will change", {"counselor"}),
        ("faz tempo que não vou congregar", {"spiritual"}),
        ("thinking of becoming a truck driver", {"professional"}),
        ("we finally landed a contract with the city!", {"professional"}),
        ("mañana tengo examen de sangre en ayunas", {"health"}),
        ("the custody hearing got moved to May", {"relationships"}),
        ("recebo mesada do meu avô todo mês", {"finance", "relationships"}),
        ("painho foi demitido semana passada", {"relationships"}),
        ("mi compa perdió la chamba", {"relationships"}),
        ("em que ano construíram a igreja da Pampulha?", {"general"}),
        ("quantos metros tem o Cristo Redentor?", {"general"}),
        ("o que significa 'burnout'?", {"general"}),
        ("qual a distância de uma maratona?", {"general"}),
    ],
)
def test_the_twenty_first_blind_rounds_classes(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A feeling denied is no feeling: what follows is the topic...
        ("não tô com raiva dele, só quero lembrar o aniversário da Bia", {"relationships"}),
        ("I'm not stressed about money, just show me my savings", {"finance"}),
        ("no estoy triste, solo quiero ordenar mis gastos", {"finance"}),
        # ...and a feeling said is still one.
        ("tô com raiva do meu chefe", {"counselor", "professional"}),
        ("I'm so stressed about money", {"counselor", "finance"}),
    ],
)
def test_a_feeling_denied_is_no_feeling(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Round 21's words kept to their sense: a medicine given to a child, a child taken to
        # the emergency room, a church's long fast, a greeting to a daughter, a karaoke at the
        # office party, a bus waited for, an orthopaedist's bill, a store card, a party
        # organised, appetite taken away.
        ("dei dipirona pra ele agora", {"general"}),
        ("levei ele no pronto socorro de madrugada", {"general"}),
        ("meu filho caiu, levo ele no pronto socorro?", {"relationships"}),
        ("glória a Deus, terminei o jejum de 21 dias", {"spiritual"}),
        ("bom dia minha filha, já tomei meu café", {"general"}),
        ("vou cantar no karaokê da firma sexta", {"general"}),
        ("cansei de esperar o ônibus, vou de uber", {"general"}),
        ("el traumatólogo me atendió rapidísimo", {"health"}),
        ("I owe 300 on my store card", {"finance"}),
        ("quiero hacer una reunión para celebrar su cumple", {"relationships"}),
        ("el estrés me está quitando el apetito", {"counselor", "health"}),
        # The pattern "=me cobro" was the Portuguese self-demand; a Spanish charge is no
        # feeling.
        ("eu me cobro demais no trabalho", {"counselor", "professional"}),
        ("el dentista me cobró carísimo", {"health"}),
    ],
)
def test_round_twenty_one_s_words_keep_to_their_sense(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    "text",
    [
        # Whole-word patterns that ended in a stem ("=eu to destruid") never matched anything;
        # they are prefixes now.
        "eu tô destruída com isso tudo",
        "estoy destrozada",
        "me siento estúpida",
        "tô arretada hoje",
    ],
)
def test_a_stem_reads_its_endings(text):
    assert "counselor" in route(text, CHRISTIAN)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # The twenty-second round's classes, in other words.
        ("voy a postular a una plaza de enfermera", {"professional"}),
        ("mudaram o horário da ordenha de novo", {"professional"}),
        ("my contract ended last week and nothing lined up", {"professional"}),
        ("sou professora de inglês numa escola pública", {"professional"}),
        ("a geada levou metade das mudas", {"professional"}),
        ("nada me dá prazer ultimamente", {"counselor"}),
        ("I hate how I look in every picture", {"counselor"}),
        ("qual o sentido disso tudo?", {"spiritual"}),
        ("sinto uma dorzinha no joelho quando agacho", {"health"}),
        ("tô tentando parar de beliscar entre as refeições", {"health"}),
        ("quero começar hidroginástica", {"health"}),
        ("tô um zumbi hoje", {"health"}),
        ("we just signed a lease on a new flat", {"finance"}),
        ("minha irmã é enfermeira", {"relationships"}),
        ("meu filho tá com tosse, posso dar dipirona?", {"relationships"}),
        ("mi viejo tuvo un infarto", {"relationships"}),
        ("who painted the church ceiling in Assisi?", {"general"}),
        ("quem é considerado o pai da medicina?", {"general"}),
        ("let's park the money stuff, how do I sleep better?", {"health"}),
        # Words kept to their sense: "tô rendendo" at work is no yield, "perdida sem saber"
        # what to eat is no distress, "neta" opening a Mexican sentence is no granddaughter,
        # "me contás" is Rioplatense "tell me".
        ("tô rendendo muito mais no trabalho", {"professional"}),
        ("tô perdida sem saber o que comer na dieta", {"health"}),
        ("neta estoy bien estresado", {"counselor"}),
        ("¿me contás un chiste?", {"general"}),
    ],
)
def test_the_twenty_second_blind_rounds_classes(text, expected):
    assert route(text, CHRISTIAN) == expected


def test_a_pronoun_of_someone_told_in_the_past_keeps_their_job_theirs():
    hired = decide_text("minha cunhada passou na entrevista do banco")
    assert {skill.name for skill in hired.active} == {"relationships"}
    before = decide_text("ela tava desempregada há 1 ano", hired.state)
    assert {skill.name for skill in before.active} == {"relationships"}


@pytest.mark.parametrize("trivia", ["bah, qual a altura do Everest?", "random q: who painted the Sistine Chapel?"])
def test_a_question_about_the_world_after_a_lead_in_leaves_the_topic(trivia):
    ride = decide_text("fiz 40 min de bike hoje de manhã")
    assert {skill.name for skill in decide_text(trivia, ride.state).active} == {"general"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Spain's "tío" said to the listener is no uncle...
        ("Tío, me han subido el alquiler otra vez", {"finance"}),
        ("he dormido fatal, tío", {"health"}),
        # ...and one's uncle still is.
        ("mi tío, el de Sevilla, se casa en junio", {"relationships"}),
        ("visité a mi tío ayer", {"relationships"}),
    ],
)
def test_a_word_of_address_is_no_relative(text, expected):
    assert route(text, CHRISTIAN) == expected


def test_setting_aside_the_topic_of_a_feeling_sets_the_feeling_aside_too():
    work = decide_text("semana puxada no trabalho, 3 entregas pra sexta")
    stressed = decide_text("e tô estressado demais com isso", work.state)
    assert {skill.name for skill in stressed.active} == {"counselor", "professional"}
    sleep = decide_text("não quero falar de trabalho agora, só queria dormir melhor", stressed.state)
    assert {skill.name for skill in sleep.active} == {"health"}
    # A feeling alone after it, with no topic of its own, still keeps the counselor...
    vent = decide_text("não quero falar do meu chefe, só tô muito cansada de tudo", stressed.state)
    assert "counselor" in {skill.name for skill in vent.active}
    # ...and so does a topic that was already beside the feeling.
    fired = decide_text("fui demitido e tô desesperado com as contas")
    job = decide_text("não quero falar de dinheiro agora, preciso achar um emprego logo", fired.state)
    assert {skill.name for skill in job.active} == {"counselor", "professional"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # The twenty-third round's classes, in other words.
        ("paguei 220 na urgent care ontem", {"finance", "health"}),
        ("hoy hice 30 min de bici", {"health"}),
        ("vendí mi bici usada", {"general"}),
        ("me ajuda com um cardápio mais saudável pra semana?", {"health"}),
        ("ainda não superei o fim do meu casamento", {"counselor", "relationships"}),
        ("meu chefe me cobrou na frente da equipe toda", {"counselor", "professional"}),
        ("necesito mucha lana para el viaje", {"finance"}),
        ("what's the balance on my card?", {"finance"}),
        ("aceitei a vaga em Curitiba!", {"professional"}),
        # Kept to their sense: a breakdown of costs, sadness and stress denied, a pizza eaten
        # alone, a post office.
        ("give me a breakdown of my expenses", {"finance"}),
        ("não é tristeza, é preguiça mesmo de treinar", {"health"}),
        ("comi uma pizza inteira sozinha", {"health"}),
        ("heading to the post office", {"general"}),
    ],
)
def test_the_twenty_third_blind_rounds_classes(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Rounds 21 to 23 reviewed: the user's own questions that a phrase of the world's or a
        # word with a second sense had taken.
        ("o que significa ter colesterol LDL alto no meu exame?", {"health"}),
        ("o que significa quando seu namorado não posta foto com você?", {"relationships"}),
        ("quantos dias tem que ficar de repouso depois da cirurgia?", {"health"}),
        ("how many hours do I need to sleep to stop feeling tired?", {"health"}),
        ("quantos km de caminhada por dia pra emagrecer?", {"health"}),
        ("em que ano eu tomei a vacina da febre amarela?", {"health"}),
        ("quem é considerado dependente no imposto de renda?", {"finance"}),
        ("o que é exatamente o cheque especial?", {"finance"}),
        ("nossa mano tá doendo muito meu joelho", {"health"}),
        ("passei o dia inteiro sozinho de novo, ninguém me procura", {"counselor"}),
        ("estou perdido sem saber o que fazer da vida", {"counselor"}),
        ("taxa de custódia do tesouro direto vale a pena?", {"finance"}),
        ("quase tive um infarto quando vi a fatura do cartão", {"finance"}),
        ("minha consciência pesava demais", {"general"}),
        ("não vai custar nada perguntar pro meu chefe", {"professional"}),
        ("a geada hoje de manhã tava linda aqui em Curitiba", {"general"}),
        ("tá fazendo uma falta danada um carro aqui em casa", {"general"}),
        ("I lost my balance on the stairs", {"general"}),
        ("this trip gave me a new lease on life", {"general"}),
        ("le hice el chequeo al carro", {"general"}),
        ("a truck driver hit my car this morning", {"general"}),
    ],
)
def test_rounds_twenty_one_to_twenty_three_keep_to_the_user_s_own_questions(text, expected):
    assert route(text, CHRISTIAN) == expected


def test_a_question_after_a_feeling_that_looks_nothing_up_keeps_the_feeling():
    anxious = decide_text("tô muito ansiosa esses dias")
    sleep = decide_text("quantas horas eu devo dormir pra me sentir melhor?", anxious.state)
    assert {skill.name for skill in sleep.active} == {"counselor", "health"}
    quarrel = decide_text("tô arrasada, briguei feio com minha irmã")
    mistake = decide_text("qual era o meu erro? só queria ajudar minha irmã", quarrel.state)
    assert {skill.name for skill in mistake.active} == {"counselor", "relationships"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # The twenty-fourth round's classes, in other words.
        ("terminei com a Ju e tô destruído", {"counselor", "relationships"}),
        ("treino de perna hoje, tô destruída", {"health"}),
        ("I'm worried sick about it", {"counselor"}),
        ("tengo miedo de que mi mamá no salga del hospital", {"counselor", "relationships"}),
        ("a mi hermano lo despidieron de la empresa", {"relationships"}),
        ("I tithe every month from my paycheck", {"finance", "spiritual"}),
        ("qual o salário mínimo hoje?", {"general"}),
        ("my knee keeps clicking", {"health"}),
        ("got a callback for the bakery position!", {"professional"}),
        ("me duele el cuello de estar en la oficina", {"health", "professional"}),
        ("tô à beira de um colapso", {"counselor"}),
        ("35 anos e sem nada guardado", {"finance"}),
        ("quero largar meu emprego no banco", {"professional"}),
    ],
)
def test_the_twenty_fourth_blind_rounds_classes(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("before", "look_up", "expected"),
    [
        # A look-up of past records asks its own domain alone, after a feeling beside it.
        ("to preocupado com minha pressão, deu 15 por 9 hj", "quais foram minhas últimas medições de pressão?", {"health"}),
        ("meu irmão me pediu 2 mil emprestado e tô chateada", "qual o saldo da minha poupança agora?", {"finance"}),
        ("money's been so tight I feel hopeless", "which bills are still unpaid this month?", {"finance"}),
    ],
)
def test_a_look_up_of_past_records_asks_its_own_domain(before, look_up, expected):
    assert {skill.name for skill in decide_text(look_up, decide_text(before).state).active} == expected



@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Round 24 reviewed: what its first words had taken.
        ("o restaurante estava meio vazio, achei estranho", {"general"}),
        ("deixei meu filho na escola e saí pra correr 5 km", {"health", "relationships"}),
        ("le conté a mi mamá lo de mi despido", {"professional", "relationships"}),
        ("fui pra academia com meu namorado, tô destruída", {"health", "relationships"}),
        ("vou numa festa nostalgia anos 2000 sábado", {"general"}),
        ("estoy en la oficina de correos esperando", {"general"}),
        ("I got a callback from the clinic about my biopsy", {"health"}),
        ("I saved up for the Rolex I always wanted", {"finance"}),
        ("a economia do país tá à beira de um colapso", {"general"}),
        ("I know squat about investing", {"finance"}),
        ("I got down on my knee and proposed!", {"general"}),
    ],
)
def test_round_twenty_four_keeps_to_the_user_s_own_words(text, expected):
    assert route(text, CHRISTIAN) == expected


def test_not_wanting_to_talk_about_it_with_someone_keeps_the_topic():
    cheated = decide_text("meu marido me traiu e eu tô arrasada")
    talk = decide_text("eu não quero falar disso com ele agora, como eu começo a conversa?", cheated.state)
    assert "relationships" in {skill.name for skill in talk.active}


def follow(*messages: str) -> list[set[str]]:
    """The active skills of each message of one conversation, inertia carried along."""
    state, routed = EMPTY_STATE, []
    for message in messages:
        decision = decide_text(message, state, CHRISTIAN)
        state = decision.state
        routed.append({skill.name for skill in decision.active})
    return routed


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A ledger line: a purchase and its amount, with its cents or its currency sign.
        ("padaria 12,50", {"finance"}),
        ("taxi $18.40", {"finance"}),
        ("1.250,00 aluguel", {"finance"}),
        # Its words are the expense's category.
        ("farmácia 45,90", {"finance"}),
        # A whole number, an amount with a unit, a grade or an hour counts something else.
        ("minha nota 9,50", {"general"}),
        ("bus at 7.45", {"general"}),
        ("ônibus 474", {"general"}),
        ("corri 10,5 km", {"health"}),
        # A salary counted as the household's money is finance's; the job's, with the job named.
        ("o salário mal paga o aluguel e o mercado", {"finance"}),
        ("meu salário cobre as contas da casa", {"finance"}),
        ("vou pedir um salário maior na entrevista", {"professional"}),
        ("quero um salário melhor", {"professional"}),
        ("metade do salário vai pra pagar o aluguel", {"finance"}),
        ("cortaram meu salário pela metade", {"finance", "professional"}),
        # Questions about the world, after a lead-in or asking an old price.
        ("che, ¿quién ganó el mundial del 86?", {"general"}),
        ("cara, em que ano surgiu o cartão de crédito?", {"general"}),
        ("who came up with the credit score?", {"general"}),
        ("how fast is a cheetah?", {"general"}),
        # No sleep as not shutting an eye, and over money a feeling too.
        ("não preguei o olho essa noite", {"health"}),
        ("a conta do cartão não me deixa pregar o olho", {"counselor", "finance", "health"}),
        ("estoy constipada desde ayer", {"health"}),
        ("I haven't eaten since breakfast", {"health"}),
        ("my shoulder clicks when I lift my arm", {"health"}),
        # Set aside as people say it: "num" for "não", "not gonna".
        ("num quero falar de dinheiro hoje, me indica um exercício pra lombar", {"health"}),
        # A football team is no team at work; "esquece de" puts nothing off.
        ("meu time perdeu de novo, que fase", {"general"}),
        ("não esquece de pagar o boleto amanhã", {"finance"}),
    ],
)
def test_the_twenty_fifth_blind_rounds_classes(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("messages", "expected"),
    [
        # A subject put off at the opening leaves it, and its words fire nothing.
        (("recebi uma proposta de emprego em Recife", "esquece o emprego por enquanto, quanto tenho na poupança?"),
         [{"professional"}, {"finance"}]),
        (("tô treinando pra meia maratona", "deixa a corrida pra lá, quem pintou a Guernica?"),
         [{"health"}, {"general"}]),
        # A close one's news told by a pronoun stays theirs; a word of the user's own is the user's.
        (("meu pai vai fazer uma cirurgia no joelho", "ele tá de boa, o cirurgião disse que é rápido"),
         [{"relationships"}, {"relationships"}]),
        (("meu pai vai fazer uma cirurgia no joelho", "ele disse que eu preciso ir ao médico também"),
         [{"relationships"}, {"health", "relationships"}]),
        # Dropping the subject, then another in the same message; said alone it keeps the vent.
        (("tô triste com a briga com minha irmã", "não quero mais falar disso. quantas horas eu dormi ontem?"),
         [{"counselor", "relationships"}, {"health"}]),
        (("tô triste com a briga com minha irmã", "não quero mais falar disso"),
         [{"counselor", "relationships"}, {"counselor", "relationships"}]),
        # A total looked up asks its own domain alone.
        (("tô muito ansiosa", "qual o total que eu gastei com farmácia?"), [{"counselor"}, {"finance"}]),
        # After a health topic, a ledger line with its currency sign is an expense; an amount with
        # cents alone goes on with the topic ("deu 72,45" is the weighing's).
        (("dormi 5 horas essa noite", "padaria R$ 8,90"), [{"health"}, {"finance"}]),
        (("me pesei hoje", "deu 72,45"), [{"health"}, {"health"}]),
        (("dinner with mum tonight", "at 7.30"), [{"relationships"}, {"relationships"}]),
        # Reviewed: a person put off is still spoken of; the user's own verb, with no pronoun.
        (("meu ex me mandou mensagem", "deixa ele pra lá, ele nunca vai mudar"), [{"relationships"}, {"relationships"}]),
        (("minha mãe veio me visitar", "ela disse que tô muito magra, tô sem comer direito"),
         [{"relationships"}, {"health", "relationships"}]),
        (("minha irmã brigou comigo", "não quero mais falar disso, ela nunca vai mudar"),
         [{"counselor", "relationships"}, {"counselor", "relationships"}]),
        (("I go to the gym 5 days a week", "let's drop it to 3 days a week"), [{"health"}, {"health"}]),
    ],
)
def test_round_twenty_five_s_conversations(messages, expected):
    assert follow(*messages) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A close one's news as found out or said, and by the names people give them.
        ("meu irmão descobriu que tá com pressão alta", {"relationships"}),
        ("my hubby got laid off last week", {"relationships"}),
        ("a mi primo lo botaron del trabajo", {"relationships"}),
        # Who built or designed a thing of the world, after an exclamation.
        ("eita, quem projetou o Maracanã?", {"general"}),
        ("quem construiu o Cristo Redentor?", {"general"}),
        # Feelings and dates as people say them.
        ("tive um dia pesado, só queria alguém pra conversar", {"counselor"}),
        ("I've been feeling blue all week", {"counselor"}),
        ("tenho um encontro com uma mina do app amanhã", {"relationships"}),
        # Instalments, an Indian EMI, several purchases on one line.
        ("parcelei o celular em 10x", {"finance"}),
        ("how much is my EMI this month?", {"finance"}),
        ("coffee 4.50, parking 12", {"finance"}),
        # Medicine bought for someone is their health; eating out is no diet; a residency exam is work.
        ("comprei remédio pra minha avó, deu 80 reais", {"finance", "relationships"}),
        ("we're eating out tonight, any cheap spots?", {"finance"}),
        ("tô estudando pra prova da residência", {"professional"}),
        ("capotei no sofá às 21h", {"health"}),
        ("tô lendo Eclesiastes essa semana", {"spiritual"}),
        # The boss's anger is the boss's; financial health is money.
        ("meu chefe ficou puto com o atraso do relatório", {"professional"}),
        ("minha saúde financeira tá péssima", {"finance"}),
        # Reviewed: the user's own words end a close one's span; a builder of the user's own wall.
        ("minha mãe disse que preciso ir ao médico", {"health", "relationships"}),
        ("my partner and I just got laid off", {"professional", "relationships"}),
        ("quem construiu o muro aqui de casa me cobrou 3 mil", {"finance"}),
        ("jantei com a Emi ontem", {"general"}),
        ("tengo una cita con la doctora el lunes", {"health"}),
        ("capotei o carro na estrada mas tô bem", {"general"}),
        ("tô pensando se aceito a proposta de SP ou fico em BH", {"professional"}),
    ],
)
def test_the_twenty_sixth_blind_rounds_classes(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("messages", "expected"),
    [
        # Visiting a close one in hospital, their fever going down: theirs.
        (("minha vó caiu e quebrou o fêmur", "vou visitar ela no hospital amanhã"), [{"relationships"}, {"relationships"}]),
        (("mi abuela está internada", "pero ya le bajó la fiebre"), [{"relationships"}, {"relationships"}]),
        # What is left to pay, looked up, asks finance alone after a feeling.
        (("tô devendo no cartão e tô mal", "quanto ainda falta pra quitar o empréstimo?"),
         [{"counselor", "finance"}, {"finance"}]),
        # A countdown is no debt looked up; "nossa" opening trivia is no "our".
        (("tô com muito medo da cirurgia", "quanto ainda falta pro resultado da biópsia?"),
         [{"counselor", "health"}, {"counselor", "health"}]),
        (("tô ansiosa hoje", "nossa, quantos ossos tem o corpo humano?"), [{"counselor"}, {"general"}]),
    ],
)
def test_round_twenty_six_s_conversations(messages, expected):
    assert follow(*messages) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A shared account, a tithe or a donation with its amount: money.
        ("a gente abriu uma conta conjunta semana passada", {"finance"}),
        ("dízimo de novembro: 300", {"finance", "spiritual"}),
        ("quero doar 150 reais pro abrigo de animais", {"finance"}),
        # Drinking, scans and a sleepless small hours: the body.
        ("ando bebendo mais do que deveria nos fins de semana", {"health"}),
        ("waiting on my scan results from Tuesday", {"health"}),
        ("wide up at 4am again, can't fall back asleep", {"health"}),
        # Feelings in the words people use.
        ("this week I'm about to lose it, honestly", {"counselor"}),
        ("I feel so hollow inside", {"counselor"}),
        ("tô com uma saudade de casa absurda", {"counselor"}),
        ("terminei com o Rafa ontem e tô um caco", {"counselor", "relationships"}),
        # Someone's birthday, a separation in Spanish.
        ("lembra que o Caio faz niver sábado", {"relationships"}),
        ("my daughter is turning 7 next week", {"relationships"}),
        ("me separé de mi esposo en junio", {"relationships"}),
        # Set aside: "never mind my...", "not talking about...".
        ("never mind my diet, who won the World Cup in 2002?", {"general"}),
        ("I'm not talking about money today, just tell me a fun fact", {"general"}),
        # Guards: slang "sick", a soul that hurts, a job in an ICU, a course in hospital management,
        # the boss who will freak out.
        ("this beat is sick, who produced it?", {"general"}),
        ("me duele el alma verlo así", {"counselor"}),
        ("trabalho na UTI neonatal há 3 anos", {"professional"}),
        ("quero fazer MBA em gestão hospitalar", {"professional"}),
        ("vou chegar atrasado de novo, meu chefe vai surtar", {"professional"}),
        # Controls: "sick" of the user's body; a plain "sou enfermeira"; "tô um caco" after sleeping little.
        ("I'm sick with the flu since Monday", {"health"}),
        ("dormi 4 horas, tô um caco", {"health"}),
        ("tô um caco, terminei o treino de perna agora", {"health"}),
        ("vou doar 2 horas do meu tempo no abrigo", {"general"}),
        ("the printer scans really slowly", {"general"}),
        ("the chocolate eggs are hollow inside", {"general"}),
        ("I have to be up at 4am for my flight", {"general"}),
    ],
)
def test_the_twenty_seventh_blind_rounds_classes(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("messages", "expected"),
    [
        # A look-up in any wording asks its own domain alone after a feeling, also when no
        # pattern knows its words; the conversation goes on with that domain.
        (("tô nervosa demais", "as faturas do cartão venceram", "quanto que eu devo ao todo?", "eita"),
         [{"counselor"}, {"counselor", "finance"}, {"finance"}, {"finance"}]),
        (("I'm so stressed", "rent went up again", "how much do we have left this month?"),
         [{"counselor"}, {"counselor", "finance"}, {"finance"}]),
        (("ando muito triste", "dormi mal a semana toda", "qual foi minha média de sono em outubro?"),
         [{"counselor"}, {"counselor", "health"}, {"health"}]),
        # Control: a feeling alone under inertia, no domain kept, stays with the feeling.
        (("tô muito triste hoje", "quanto eu sofri por ele, né"), [{"counselor"}, {"counselor"}]),
        # Controls: a while to bear is no figure looked up; the feeling stays.
        (("estou desesperada com as dívidas", "quanto tempo eu vou aguentar isso?"),
         [{"counselor", "finance"}, {"counselor", "finance"}]),
        (("I'm so stressed about my debt", "how many more months do I have to live like this?"),
         [{"counselor", "finance"}, {"counselor", "finance"}]),
    ],
)
def test_round_twenty_seven_s_conversations(messages, expected):
    assert follow(*messages) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Money in the words of a bank app; what one earned, looked up; a servant's pay is trivia.
        ("entrei no rotativo do cartão de novo", {"finance"}),
        ("coloquei 200 na caixinha do banco", {"finance"}),
        ("poupei 300 esse mês", {"finance"}),
        ("quanto eu ganhei em outubro?", {"finance"}),
        ("qual o salário de um juiz no Brasil?", {"general"}),
        # No sleep in Spanish; a medical test to take, not a driving or a bar exam.
        ("anoche no pegué ojo", {"health"}),
        ("preciso fazer um exame de vista logo", {"health"}),
        ("vou fazer o exame de direção na sexta", {"general"}),
        # Feelings as people say them; being shouted at in shorthand is the job's.
        ("tô pra explodir com essa situação", {"counselor"}),
        ("quedé asustadísima con el ruido", {"counselor"}),
        ("the thought of it makes me sick to my stomach", {"counselor"}),
        ("o coordenador gritou cmg hj", {"professional"}),
        ("how should I answer 'why do you want this job' in the interview?", {"professional"}),
        # Work: an offer to earn more, a group selection exercise, a new role.
        ("recebi uma proposta pra ganhar o dobro", {"professional"}),
        ("amanhã tenho dinâmica de grupo numa empresa", {"professional"}),
        ("I start my new role on Monday", {"professional"}),
        # Faith: a parish, a retreat.
        ("a paróquia vai fazer bingo sábado", {"spiritual"}),
        ("thinking of going on a church retreat", {"spiritual"}),
        # Set aside: what a trouble is not about.
        ("nem quero saber de trabalho hoje, só quero chorar", {"counselor"}),
        ("it's not about the money, I just feel alone", {"counselor"}),
        ("o problema não é o salário, é que eu me sinto inútil", {"counselor"}),
        # A close one's medicine, said with a complement or by "his"/"hers", is theirs.
        ("paguei o remédio de diabetes da minha avó, 120 reais", {"finance", "relationships"}),
        ("paguei o remédio dele, 45 reais", {"finance"}),
        # Controls: the user's own exam and medicine.
        ("vou fazer exame de sangue amanhã", {"health"}),
        ("esqueci de tomar meu remédio de pressão", {"health"}),
    ],
)
def test_the_twenty_eighth_blind_rounds_classes(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("messages", "expected"),
    [
        # What "we" do while a close one is spoken of is theirs too.
        (("eu e minha esposa vamos morar juntos", "o aluguel é 1800 e a gente divide"),
         [{"relationships"}, {"finance", "relationships"}]),
        (("my boyfriend is moving in next month", "we'll split the rent 50/50"),
         [{"relationships"}, {"finance", "relationships"}]),
        # A figure of money looked up in the gerund asks finance alone.
        (("fui promovida!", "quanto eu tô gastando de mercado por mês?"), [{"professional"}, {"finance"}]),
        # Control: "we" with no close one kept starts afresh.
        (("dormi mal", "we spent 300 on dinner"), [{"health"}, {"finance"}]),
    ],
)
def test_round_twenty_eight_s_conversations(messages, expected):
    assert follow(*messages) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # The body as people say it; leg day; hardly eating.
        ("acordei com a pressão alta hoje", {"health"}),
        ("tive um pequeno sangramento depois do exame", {"health"}),
        ("fiz perna ontem e hoje nem ando", {"health"}),
        ("I keep skipping meals at work", {"health", "professional"}),
        # A pediatrician is a child's; a ride for an app is no run.
        ("preciso marcar pediatra pra minha filha", {"relationships"}),
        ("rodo de uber à noite, compensa mais?", {"professional"}),
        # Quitting, pricing one's work, selling to order, a venture, Spanish public exams.
        ("acho que vou pedir as contas semana que vem", {"professional"}),
        ("faço bolo por encomenda, como divulgar?", {"professional"}),
        ("estoy preparando oposiciones para profesora", {"professional"}),
        # Money: splitting a bill, a deposit, school fees in Mexico; a pay kept the same at work.
        ("bora rachar a pizza, 40 pra cada", {"finance"}),
        ("la colegiatura de mi hijo subió otra vez", {"finance", "relationships"}),
        ("mi jefe me pidió más horas por el mismo sueldo", {"professional"}),
        # Feelings as people say them; a soul that breaks is no faith.
        ("me sinto travada, não sei nem o que sentir", {"counselor"}),
        ("I feel stuck in life", {"counselor"}),
        ("me parte el alma verla llorar", {"counselor"}),
        # Devotion; a year asked about a thing of the world; news read is still the user's topic.
        ("I do puja every morning", {"spiritual"}),
        ("li uma matéria sobre ansiedade e me identifiquei", {"counselor"}),
        ("em que ano ficou pronta a ponte Rio-Niterói?", {"general"}),
        # A close one's diagnosis received, medicine bought for them: theirs.
        ("minha tia recebeu o diagnóstico de diabetes", {"relationships"}),
        ("comprei um xarope pra ele, deu 30 reais", {"finance"}),
        # Controls: the user's own diagnosis; "calor de rachar" is the weather.
        ("recebi o diagnóstico de gastrite", {"health"}),
        ("tá um frio de rachar hoje", {"general"}),
    ],
)
def test_the_twenty_ninth_blind_rounds_classes(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("messages", "expected"),
    [
        # Money spent while a close one is spoken of is spent with or for them.
        (("minha irmã vai casar em maio", "o vestido de madrinha custou 600 reais"),
         [{"relationships"}, {"finance", "relationships"}]),
        (("my girlfriend and I are moving in together", "the deposit is $2,000"),
         [{"relationships"}, {"finance", "relationships"}]),
        # A look-up that fires nothing asks the records alone, without the close one.
        (("meu marido quer sacar a poupança", "quanto rendeu no último ano?"),
         [{"finance", "relationships"}, {"finance"}]),
        # The weather is small talk: nothing kept.
        (("paguei o condomínio, 700", "nossa, que calor hoje hein"), [{"finance"}, {"general"}]),
        # Spanish "he gastado" is "I have spent", not "he".
        (("mi papá está internado", "estoy muy preocupada", "¿cuánto he gastado en taxis esta semana?"),
         [{"relationships"}, {"counselor", "relationships"}, {"finance"}]),
        # Controls: a new domain other than money after a close one starts afresh, and so does the
        # user's own bill; the weather with more to say keeps the topic.
        (("minha mãe vem me visitar amanhã", "fiz 40 minutos de esteira hoje"), [{"relationships"}, {"health"}]),
        (("mi mamá está de visita", "pagué la luz, vino carísima"), [{"relationships"}, {"finance"}]),
        (("amanhã é o niver da minha filha", "vai chover no dia da festa dela?"),
         [{"relationships"}, {"relationships"}]),
    ],
)
def test_round_twenty_nine_s_conversations(messages, expected):
    assert follow(*messages) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A phone bill by its carrier; trying for a baby; a late period.
        ("a conta da vivo veio um absurdo", {"finance"}),
        ("estamos tentando engravidar faz 6 meses", {"health"}),
        ("my period is late again, should I worry?", {"health"}),
        # Driving for a living, a small shop, switching careers; a child's team is no job.
        ("sou taxista há 20 anos", {"professional"}),
        ("I drive for Uber on weekends", {"professional"}),
        ("I run a small flower shop, how do I price arrangements?", {"finance", "professional"}),
        ("my son made the soccer team!", {"relationships"}),
        # "Tô um caco" over a close one, anger in Gaúcho, worn out by caring, not knowing how to tell.
        ("minha vó piorou e eu tô um caco", {"counselor", "relationships"}),
        ("bah, tô de cara com meu chefe", {"counselor", "professional"}),
        ("cuidar do meu pai tá me esgotando", {"counselor", "relationships"}),
        ("não sei como vou contar pros meus pais que reprovei", {"counselor", "relationships"}),
        # A gift bought as such; an errand at the pharmacy.
        ("le compré unos aretes de regalo a mi mamá", {"finance", "relationships"}),
        ("passei na farmácia pra comprar fralda", {"finance"}),
        # Set aside: what the user is not looking for.
        ("not looking for diet tips, I just need to vent about my day", {"counselor"}),
        # Controls: a sermon that moves one is faith's; a choice of work weighed is a dilemma.
        ("a pregação de hoje mexeu comigo", {"spiritual"}),
        ("I can't tell whether to take the job in Austin", {"counselor", "professional"}),
    ],
)
def test_the_thirtieth_blind_rounds_classes(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("messages", "expected"),
    [
        # A sum looked up is the ledger's, whatever it was earned from or spent on.
        (("peguei um freela de tradução", "quanto eu recebi de freela esse ano?"), [{"professional"}, {"finance"}]),
        # A bill looked up after a feeling asks finance alone.
        (("tô nervosa com as contas", "quanto tá a fatura desse mês?"), [{"counselor", "finance"}, {"finance"}]),
        # What the sum was spent on is the ledger's category (round 31; round 30 kept it).
        (("voltei pra academia", "quanto gastei na academia esse mês?"), [{"health"}, {"finance"}]),
    ],
)
def test_round_thirty_s_conversations(messages, expected):
    assert follow(*messages) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Driving for an app as it is said; a slow night of orders; night work; boosting posts.
        ("tô rodando de uber desde o ano passado", {"professional"}),
        ("doordash was dead tonight, barely 4 orders", {"professional"}),
        ("working nights is killing me, any tips to stay focused?", {"professional"}),
        ("vale a pena pagar impulsionamento no insta pra minha loja?", {"finance", "professional"}),
        # Feeling lost or a fool, on the verge of collapse, "I'm a mess", torn between paths.
        ("tô me sentindo perdido depois que saí de casa", {"counselor"}),
        ("me sentindo uma trouxa depois dessa", {"counselor"}),
        ("tô à beira de um colapso com tanta coisa", {"counselor"}),
        ("honestly I'm a mess since the breakup", {"counselor", "relationships"}),
        ("I'm torn between moving back home and staying here", {"counselor"}),
        ("meu primo pediu 500 emprestado e não sei se empresto", {"counselor", "finance", "relationships"}),
        # Teeth ground at night, a jog in Spanish, lunch skipped, a racing heart.
        ("acordei com dor no maxilar de tanto ranger os dentes", {"health"}),
        ("ayer troté 5 km antes del trabajo", {"health", "professional"}),
        ("ando pulando o almoço por causa da correria", {"health"}),
        ("meu coração tá disparado do nada", {"health"}),
        # Income noted as such; a contract's sum; cleaning jobs paid; the rent in Colombia.
        ("entrou 300 do bazar, anota como entrada", {"finance"}),
        ("fechei um contrato de 12 mil com a prefeitura", {"finance", "professional"}),
        ("ganhei 250 das faxinas de ontem", {"finance"}),
        ("el arriendo subió otra vez", {"finance"}),
        # A salary received is finance's alone; negotiated, it is the job's too.
        ("recebi meu salário, finalmente", {"finance"}),
        ("quero negociar meu salário na empresa", {"professional"}),
        # One's parents in Spanish; a buddy's illness is his; the baby's things.
        ("mis papás me mandaron 300 dólares", {"finance", "relationships"}),
        ("my buddy Tom was diagnosed with asthma", {"relationships"}),
        ("comprei fralda e lenço pro bebê, 180 reais", {"finance", "relationships"}),
        # The topic named right after "not about" is set aside.
        ("not about money this time, I just feel lonely", {"counselor"}),
        ("not talking about work today, how many glasses of water did I log?", {"health"}),
        # A category looked up is the ledger's.
        ("quanto gastei com remédio esse mês?", {"finance"}),
        ("how much did I spend on the dentist this year?", {"finance"}),
        # Trivia that names a feeling; a better-paying job is a kind of job; money "eating" no food.
        ("what caused the Great Depression?", {"general"}),
        ("should I take the better-paying job far from my family?", {"counselor", "professional", "relationships"}),
        ("o aluguel tá comendo tudo que eu ganho", {"finance"}),
        # Controls: a feeling said after a look-up's category is heard; a meal eaten is the body's.
        ("quanto gastei com farmácia? tô me sentindo péssima", {"counselor", "finance"}),
        ("tô comendo tudo que vejo pela frente", {"health"}),
        # Controls from the round's review: a drink is no baby, an unpaid salary is the job's too,
        # calories burned are the body's, "not about to" is "won't", a trouble told mid-message is
        # heard, a prank is no jog, a customer's rider no job, potatoes no parents, a depression
        # of one's own is a feeling.
        ("qual a melhor água pra beber?", {"health"}),
        ("ainda não recebi o salário desse mês", {"finance", "professional"}),
        ("quanto gasto de caloria numa caminhada de 30 minutos?", {"finance", "health"}),
        ("I'm not about to stop running", {"health"}),
        ("we're not talking about money enough and it's causing fights", {"counselor", "finance"}),
        ("o trote dos calouros vai ser no parque", {"general"}),
        ("el repartidor no llegó con mi pedido", {"general"}),
        ("quiero hacer mis papas al horno", {"general"}),
        ("tive uma grande depressão ano passado", {"counselor"}),
    ],
)
def test_the_thirty_first_blind_rounds_classes(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("messages", "expected"),
    [
        # A recipe asked for starts afresh.
        (("comprei 200 de salgadinhos pra festa do meu filho", "me passa uma receita de bolo de chocolate?"),
         [{"finance", "relationships"}, {"general"}]),
        (("I've been praying for my sister", "what's an easy lasagna recipe?"), [{"relationships", "spiritual"}, {"general"}]),
        # The weather as it is typed, and fair weather, is small talk.
        (("paguei o boleto da luz, 230", "aff q calor hj"), [{"finance"}, {"general"}]),
        (("hoy corrí 5 km", "qué buen clima hace hoy"), [{"health"}, {"general"}]),
        # Where the money went, what is left: a look-up, the close one not kept.
        (("mi mamá me manda 100 dólares al mes", "¿en qué gasté más este mes?"), [{"finance", "relationships"}, {"finance"}]),
        (("my car needs new tires, $600", "what's left in my budget this month?"), [{"finance"}, {"finance"}]),
        # Controls: a prescription, an idiom and a recipe for someone spoken of are no fresh start.
        (("tô com sinusite de novo", "preciso de uma receita de antibiótico?"), [{"health"}, {"health"}]),
        (("meu filho não quer ir pra escola", "eu sei que não existe receita de bolo, mas o que eu faço?"),
         [{"relationships"}, {"counselor", "relationships"}]),
        (("minha mãe tá com pressão alta", "me passa uma receita sem sal pra ela?"),
         [{"relationships"}, {"relationships"}]),
    ],
)
def test_round_thirty_one_s_conversations(messages, expected):
    assert follow(*messages) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A day's takings from app work, told with their figure, are the ledger's alone.
        ("Uber ontem foi bom, fiz 260 conto em 8 horas", {"finance"}),
        ("made $95 on Instacart this afternoon", {"finance"}),
        # An offer countered, a salary asked to rise: the career's, not the ledger's.
        ("they offered me the role at 110k, can I counter?", {"professional"}),
        ("quiero negociar mi sueldo con el jefe nuevo", {"professional"}),
        # Selling food to order, one's pupils, a career chosen in Spanish, days off work.
        ("quero vender marmita pra fora pra complementar a renda", {"finance", "professional"}),
        ("my students won't stop talking in class", {"professional"}),
        ("estoy pensando en cambiar de carrera", {"professional"}),
        # A close one's morning fever, medicine given to them, bought for them in Spanish; a nan.
        ("a minha vó amanheceu com dor no peito", {"relationships"}),
        ("le compré el inhalador a mi hermano, 25 mil", {"finance", "relationships"}),
        ("my nan's in hospital again", {"relationships"}),
        # A bill split, a market run totalled, an offering with its sum, a pet hotel's rate.
        ("rachamos 300 na casa de praia", {"finance"}),
        ("fui no mercado e deu 412 reais", {"finance"}),
        ("di el diezmo, 20 mil pesos", {"finance", "spiritual"}),
        ("o hotel pet cobra 80 a diária", {"finance"}),
        # Feeling betrayed; one's own check-up; a job at a hospital is no body.
        ("me sinto traída pela minha melhor amiga", {"counselor", "relationships"}),
        ("preciso fazer meus exames de rotina", {"health"}),
        ("got a job at the hospital as a receptionist", {"professional"}),
        # Controls: the app job without takings is the work; a takings figure spent is still spent.
        ("tô pensando em largar o uber e virar motorista de ônibus", {"professional"}),
        ("rodei 10h de uber hoje e tô com dor nas costas", {"health", "professional"}),
        # Controls from the round's review: work counted, or money spent, is no takings; a weekday's
        # "feira", a laugh "rachei de rir", a kitchen counter, a loan offered, a dentist paid, Spanish
        # "mi gran", a school's exams.
        ("fiz 3 entrevistas de emprego hoje e gastei 80 reais de uber", {"finance", "professional"}),
        ("na quarta-feira me deu uma crise de ansiedade", {"counselor"}),
        ("rachei de rir com meus amigos ontem", {"relationships"}),
        ("I wiped the counter with bleach", {"general"}),
        ("the bank offered me a 15k personal loan", {"finance"}),
        ("le pagué al dentista 800 pesos por la endodoncia", {"finance", "health"}),
        ("mi gran logro este año fue bajar 10 kilos", {"health"}),
        ("semana que vem vou fazer meus exames finais da faculdade", {"general"}),
    ],
)
def test_the_thirty_second_blind_rounds_classes(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("messages", "expected"),
    [
        # The close one's medicine, given or bought, is theirs; and so is the day's takings' ledger.
        (("meu filho tá gripado", "dei xarope pra ele agora"), [{"relationships"}, {"relationships"}]),
        (("mi abuela está enferma", "le compré las pastillas, 30 mil"), [{"relationships"}, {"finance", "relationships"}]),
        (("rodei de uber o dia todo, fiz 300 conto", "pode registrar"), [{"finance"}, {"finance"}]),
    ],
)
def test_round_thirty_two_s_conversations(messages, expected):
    assert follow(*messages) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # "Minha filha" closing a thanks addresses the listener; after a greeting it is one's child.
        ("obrigado minha filha", {"general"}),
        ("bom dia, meu filho tá com febre desde ontem", {"relationships"}),
        # A locked shoulder is the body's, not a feeling; pregnancy sickness.
        ("acordei com o pescoço travado", {"health"}),
        ("to de 8 semanas e enjoando demais", {"health"}),
        # Savings kept, a day's or a sale's takings closed, a pension check.
        ("tenho uns 3 mil guardado pra reforma", {"finance"}),
        ("fechei o dia com 280 no app", {"finance"}),
        ("vendi 10 caixa de morango, deu 400", {"finance"}),
        ("just got my pension check, log it", {"finance"}),
        # A driver's account, a foreman, nursing studied for, an offer countered.
        ("a 99 bloqueou minha conta de motorista", {"professional"}),
        ("quero passar em enfermagem na federal", {"professional"}),
        ("I got a job offer for 90k, should I counter at 100k?", {"professional"}),
        # Sleep lost over a debt is worry too.
        ("devo 5 mil no cartão e não durmo mais pensando nisso", {"counselor", "finance", "health"}),
        # Controls from the round's review: a run is no ride, a quarrel is no thesis, a day closed
        # "com chave de ouro" is no takings, a secret kept no savings, being fed up no nausea, a
        # cake one is in charge of no job, "caso daqui a 2 semanas" no wedding.
        ("fiz 7km de corrida no parque hoje", {"health"}),
        ("tive uma discussão feia com minha irmã", {"counselor", "relationships"}),
        ("fechei o dia com chave de ouro", {"general"}),
        ("guardei segredo por 3 anos", {"general"}),
        ("já tô enjoando de arroz e feijão todo dia", {"general"}),
        ("fiquei encarregada de fazer o bolo do aniversário da minha mãe", {"relationships"}),
        ("caso daqui a 2 semanas a dor não passe, volto no médico", {"health"}),
        ("registrei minha corrida no app", {"health"}),
    ],
)
def test_the_thirty_third_blind_rounds_classes(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("messages", "expected"),
    [
        # A recipe "com" what one has starts afresh too; a trip's fund is the ledger's.
        (("fiz a feira hoje, 150 reais", "me passa uma receita com chuchu?"), [{"finance"}, {"general"}]),
        (("vou pro Japão em abril", "put $250 into the trip fund today"), [{"general"}, {"finance"}]),
    ],
)
def test_round_thirty_three_s_conversations(messages, expected):
    assert follow(*messages) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Tips earned in a shift are income, in three languages.
        ("made 220 in tips tonight", {"finance"}),
        ("hj tirei 80 de gorjeta", {"finance"}),
        ("saqué 600 de propinas en el turno", {"finance", "professional"}),
        # A burn is the body's, and so is an appetite lost to heartbreak.
        ("queimei a mao no forno hj", {"health"}),
        ("my girlfriend dumped me and I'm heartbroken, can't even eat", {"counselor", "health", "relationships"}),
        # A stand-up meeting, a substitute called in, a carer's or a teacher's trade told.
        ("daily de 1h hj, q perda de tempo", {"professional"}),
        ("got called in to sub for 3rd grade today", {"professional"}),
        ("sou cuidadora de idosos", {"professional"}),
        ("soy maestra en una escuela rural", {"professional"}),
        # A friend's or a brother's name for anyone, closing a thanks, addresses the listener.
        ("obg amiga", {"general"}),
        ("valeu irmao, tmj", {"general"}),
        # Abbreviated look-ups keep the category the ledger's.
        ("qnto eu gastei de remedio esse mes?", {"finance"}),
        # Kilos of meat bought, and a fridge in Spanish, are no body.
        ("comprei 5kg de carne pro churrasco", {"finance"}),
        ("me quedan 4 cuotas del refri", {"finance"}),
        # Controls: tips asked for a date, a friend spoken of, kilos lost, a soda drunk.
        ("first date tonight, any tips?", {"relationships"}),
        ("minha amiga tá doente", {"relationships"}),
        ("perdi 2kg essa semana", {"health"}),
        ("tomei um refri gelado agora", {"health"}),
    ],
)
def test_the_thirty_fourth_blind_rounds_classes(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("messages", "expected"),
    [
        # "tb" is "também"; last night's game is small talk; a step count looked up in Spanish.
        (("minhas gemeas fizeram 1 aninho hj", "tb to sem dormir faz 2 dias kkk"),
         [{"relationships"}, {"health", "relationships"}]),
        (("gastei 200 no mercado", "vc viu o jogo do corinthians ontem?"), [{"finance"}, {"general"}]),
        (("estoy triste por mi mamá", "cuántos pasos caminé hoy?"), [{"counselor", "relationships"}, {"health"}]),
    ],
)
def test_round_thirty_four_s_conversations(messages, expected):
    assert follow(*messages) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # An offer from another shop or firm is work.
        ("recebi proposta de outra empresa", {"professional"}),
        # Driving for a delivery or ride app, hours on it told.
        ("I drive for uber on weekends", {"professional"}),
        ("rodo 10h por dia no app", {"professional"}),
        ("this bug in production is killing me lol", {"professional"}),
        # Tithing is money given to the church, as "dízimo" is.
        ("I want to start tithing", {"finance", "spiritual"}),
        ("quiero empezar a dar el diezmo", {"finance", "spiritual"}),
        # Money lost in a sum.
        ("perdi uns 2 mil no tigrinho", {"finance"}),
        # Not knowing how to cope is a feeling.
        ("my grandma is in hospice and i dont know how to cope", {"counselor", "relationships"}),
        # Controls: a machine that died, a death, a key lost, an offer of marriage.
        ("my phone died lol", {"general"}),
        ("my car died on the highway", {"general"}),
        ("my grandpa died last week", {"counselor", "relationships"}),
        ("perdi a chave de casa", {"general"}),
        ("recebi uma proposta de casamento", {"relationships"}),
    ],
)
def test_the_thirty_fifth_blind_rounds_classes(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Working out, in English, with how often or where; "it worked out", working out a budget
        # or a deal, and working out of an office are no exercise.
        ("I haven't worked out in weeks", {"health"}),
        ("I've been working out at the gym every day", {"health"}),
        ("I used to work out every morning", {"health"}),
        ("it all worked out in the end", {"general"}),
        ("I work outside all day", {"professional"}),
        ("I've been working out a budget with my wife", {"finance", "relationships"}),
        ("I started working out a deal with my manager", {"professional"}),
        ("I haven't worked out what to do about my debt", {"finance"}),
        ("I work out of a coworking space now", {"professional"}),
        # What a trouble is not is set aside; the topic named after it is heard.
        ("nao é nada de saude, é meu chefe", {"professional"}),
        ("não é nada de dinheiro nem de trabalho, tô triste", {"counselor"}),
        ("no es nada de salud, es mi jefe", {"professional"}),
        # Controls: a quality of the trouble sets nothing aside, comma or not; denying a part in
        # something still speaks of it.
        ("não é nada de grave, só uma dor de cabeça", {"health"}),
        ("não é nada de especial só dor de cabeça de novo", {"health"}),
        ("no es nada de nuevo me duele la espalda otra vez", {"health"}),
        ("não é nada de novo minha ansiedade voltou", {"counselor"}),
        ("eu não tenho nada a ver com a dívida do meu irmão mas ele colocou no meu nome", {"finance", "relationships"}),
    ],
)
def test_the_thirty_sixth_rounds_classes(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("messages", "expected"),
    [
        # A feeling, then a trouble that is not the body's: the body set aside joins nothing.
        (("nao to bem hj", "mas nao é nada de saude, é meu chefe"), [{"counselor"}, {"counselor", "professional"}]),
        (("I'm stressed out of my mind", "I haven't worked out in weeks"), [{"counselor"}, {"counselor", "health"}]),
    ],
)
def test_round_thirty_six_s_conversations(messages, expected):
    assert follow(*messages) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A medicine bought for a close one is money and them, not the user's body (any language).
        ("I bought cough syrup for my mom, it was $15", {"finance", "relationships"}),
        ("Compré las pastillas para la tensión de mi abuela, 30 euros", {"finance", "relationships"}),
        ("comprei um remédio pra minha dor de cabeça, 20 reais", {"finance", "health"}),
        # What a close one may take is their body; what they may do for the user is the user's.
        ("meu irmão tá com dengue, o q ele pode tomar pra febre?", {"relationships"}),
        # How a close one feels is theirs: the user said nothing of their own feeling.
        ("meu irmão tá com depressão e não quer procurar ajuda", {"relationships"}),
        ("minha namorada ta passando por um momento dificil com a familia dela", {"relationships"}),
        ("Mi hija adolescente tiene ansiedad, ¿cómo la puedo apoyar?", {"relationships"}),
        # ... but a feeling about them is the user's, and so is grief.
        ("fiquei com raiva do meu cunhado q me pediu dinheiro emprestado de novo", {"counselor", "finance", "relationships"}),
        ("minha mãe tá internada e eu to desesperada", {"counselor", "relationships"}),
        ("Hoje faz um ano que meu pai se foi", {"counselor", "relationships"}),
        # When a thing of the world came to be is trivia, asked after naming it too; not a thing of one's own.
        ("o pix foi lançado em que ano?", {"general"}),
        ("when was Pix launched?", {"general"}),
        ("meu boleto foi criado quando?", {"finance"}),
        # A film's credits are no credit.
        ("fiquei até o fim dos créditos do filme esperando a cena pós-crédito", {"general"}),
        ("stayed for the end credits of the movie", {"general"}),
        ("meu limite de crédito baixou", {"finance"}),
        # Pricing one's work is the work's.
        ("quanto eu cobro por um manual de marca completo?", {"professional"}),
    ],
)
def test_the_thirty_seventh_rounds_classes(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("messages", "expected"),
    [
        # Going back to the subject, announced, leaves the look-up asked in between behind.
        (
            ("to estressado com o trabalho", "quanto eu gastei de uber esse mes?",
             "enfim, voltando pro trabalho: meu gestor marcou um 1:1 cmg amanha e to nervoso"),
            [{"counselor", "professional"}, {"finance"}, {"counselor", "professional"}],
        ),
        # Going home is no announcement.
        (("gastei 80 no mercado", "voltando pra casa agora, to exausta"), [{"finance"}, {"health"}]),
        # "How many km did I run" looks up the records: the feeling kept does not follow it.
        (
            ("Feeling really down today", "I skipped my run and just stayed in bed all morning",
             "how many km did I run last week?"),
            [{"counselor"}, {"counselor", "health"}, {"health"}],
        ),
    ],
)
def test_round_thirty_seven_s_conversations(messages, expected):
    assert follow(*messages) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Rides given for an app are work, and their takings money: no run.
        ("fiz 312 reais hoje nas corridas", {"finance"}),
        ("Fiz 22 corridas hoje no Uber", {"professional"}),
        ("fiz 3 corridas de 5 km essa semana", {"health"}),
        # Food paid for is an expense, not the diet; eating is the body's.
        ("gasté 450 pesos en la comida de hoy", {"finance"}),
        ("spent $60 on dinner", {"finance"}),
        ("gastei muito com comida porque to ansiosa e comendo demais", {"counselor", "finance", "health"}),
        # Money spent on a close one's care is money and them; on oneself too, the body as well.
        ("gastei 400 na farmácia com os remédios da minha vó", {"finance", "relationships"}),
        ("paguei 200 de academia pra mim e pro meu marido", {"finance", "health", "relationships"}),
        # A shift at the hospital is work; a pharmacy on duty is nobody's shift.
        ("Tô de plantão hoje no hospital até as 7", {"professional"}),
        ("Por que as farmácias fazem plantão no domingo?", {"general"}),
        # A film named after God is a film.
        ("Is City of God very violent?", {"general"}),
        # Fear as what a thing does to the user; hate of someone close.
        ("minha mãe n deixa eu ir no show, odeio ela", {"counselor", "relationships"}),
        ("Faço meditação pra me conectar com algo maior que eu", {"spiritual"}),
    ],
)
def test_the_thirty_eighth_rounds_classes(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("messages", "expected"),
    [
        # A feeling, a look-up, then the fear said about it: the feeling joins the money again.
        (
            ("to me sentindo sufocada hoje, parece que tudo desaba", "quanto eu já gastei no cartão esse mês?",
             "isso me apavora, ganho 1.800 e a fatura já passou de 2.300"),
            [{"counselor"}, {"finance"}, {"counselor", "finance"}],
        ),
        # A driver's day: takings, then a cost, all money.
        (("fiz 312 reais hoje nas corridas", "gastei 90 de gasolina", "pode registrar os dois"),
         [{"finance"}, {"finance"}, {"finance"}]),
    ],
)
def test_round_thirty_eight_s_conversations(messages, expected):
    assert follow(*messages) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A ledger line may say where, after a word or two ("almoço hj 29,90 no self service");
        # a purchase told with its verb still hears what was bought.
        ("almoço hj 29,90 no self service", {"finance"}),
        ("comprei remédio de 89,90 na farmácia", {"finance", "health"}),
        # An exam of the user's own is the body's.
        ("to com medo de fazer a endoscopia semana que vem", {"counselor", "health"}),
        # Embarrassment paid and a car lent are no money; a date is a date.
        ("paguei o maior mico no date ontem kkkk", {"relationships"}),
        ("Minha cunhada pegou meu carro emprestado e devolveu todo arranhado", {"relationships"}),
        # A rosary before sleeping is faith, not sleep.
        ("Hoy recé el rosario antes de dormir", {"spiritual"}),
        ("Everything's getting on top of me at the moment", {"counselor"}),
        # A term of a degree is study for a career.
        ("tô no 5º período de direito", {"professional"}),
        ("no período da tarde eu descanso", {"general"}),
    ],
)
def test_the_thirty_ninth_rounds_words(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Illnesses and symptoms the body's words missed; a series about doctors, a playlist to
        # train to, a place at medical school and a food drive are no body of the user's.
        ("tenho fibromialgia e meu chefe acha que é frescura", {"health", "professional"}),
        ("Prezado, tenho hérnia de disco", {"health"}),
        ("my crohn's is flaring again", {"health"}),
        ("saí do plantão agora, 12h em pé, meus pés tão inchados", {"health", "professional"}),
        ("Se me bajó la presión en el colectivo y casi me desmayo", {"health"}),
        ("meu marido tá com covid, como eu faço pra não pegar?", {"health", "relationships"}),
        ("me indica uma série de médico tipo House", {"general"}),
        ("mudando de assunto, me indica uma playlist pra treinar?", {"general"}),
        ("o simulado do enem é amanha, preciso de nota pra medicina", {"professional"}),
        ("¿Cuántos litros de agua tiene una piscina olímpica?", {"general"}),
        ("Our church is running a food drive Saturday", {"spiritual"}),
        # "orem por" asks for prayer; a blessing said as thanks is courtesy, one asked is faith.
        ("orem pela minha mãe, ela vai operar o coração amanhã", {"relationships", "spiritual"}),
        ("Muito obrigada pela ajuda, minha filha. Deus te abençoe.", {"general"}),
        ("Deus abençoe minha família nessa viagem", {"relationships", "spiritual"}),
        # A broken heart is a feeling; wanting not to seem desperate is none.
        ("meu coração tá partido, ele terminou comigo por mensagem", {"counselor", "relationships"}),
        ("q eu respondo?? nao quero parecer desesperada kkk", {"general"}),
        # A crush as teens say it, a wife said "mi señora"; a family a parish helps is not the user's,
        # and "ficando pra trás" is no one the user is seeing.
        ("o menino q eu to afim me respondeu no insta!!!", {"relationships"}),
        ("there's this guy in my chem class and I think he likes me", {"relationships"}),
        ("sinto que tô ficando pra trás", {"counselor"}),
        ("pero mi señora dice que estoy loco", {"relationships"}),
        ("Estoy organizando una kermés en la parroquia para ayudar a una familia de la comunidad", {"spiritual"}),
        # Money sent home, takings, money left at a shop, a consultation's price; owing a visit and
        # a bank robbery film are no money.
        ("sou haitiano, mandei 600 real pra minha familia pelo western union", {"finance", "relationships"}),
        ("hoy hice 95 mil en Rappi", {"finance"}),
        ("hoy hice 12 mil pasos", {"health"}),
        ("fui no atacadão e deixei 487,90 lá", {"finance"}),
        ("levei o pequeno no pediatra, deu 350 a consulta", {"finance", "relationships"}),
        ("to devendo uma visita pra minha tia faz meses", {"relationships"}),
        ("to devendo 3 mil no cartão", {"finance"}),
        ("Me indica um filme de assalto a banco tipo La Casa de Papel", {"general"}),
        # Work: hours driving for an app, turning programmer, maternity leave, a shop selling little,
        # a charge nurse; a close one going back to work is theirs.
        ("12 horas rodando no uber hoje, minhas costas tão me matando", {"health", "professional"}),
        ("tenho 41 anos e quero largar a contabilidade pra virar programador", {"professional"}),
        ("minha licença maternidade acaba mês q vem", {"professional"}),
        ("a loja tá vendendo pouco", {"professional"}),
        ("My charge nurse yelled at me", {"professional"}),
        ("meu marido volta a trabalhar segunda", {"relationships"}),
        # From the round's second pair: what a close one may take, asked before naming them; a
        # son by his age; "Ave Maria" said in surprise; sleepless over a debt (Spanish).
        ("meu marido ta com dor nas costas, que remédio ele pode tomar?", {"relationships"}),
        ("what medicine can she take for the cough?", {"general"}),
        ("que remédio eu posso tomar pra dor de cabeça?", {"health"}),
        ("my 14-year-old son barely talks to me anymore", {"relationships"}),
        ("Ave maria, deixei 380 conto no atacadão", {"finance"}),
        ("tengo una deuda con la tarjeta y no duermo", {"counselor", "finance", "health"}),
        ("dei 180 num perfume pro meu boy de aniversario", {"finance", "relationships"}),
        ("Eu e minha esposa estamos juntando pra dar entrada no apê", {"finance", "relationships"}),
        ("a rescisão deve cair sexta, uns 9 mil", {"finance", "professional"}),
        # A thing dear at so much a month is money (the opinion read it so until its last retraining).
        ("tô com diabetes e a insulina ta cara demais, 300 por mes", {"finance", "health"}),
        # Feelings said loosely; a run closed; a spiritist's prayer before sleeping is no sleep.
        ("mano que dia zicado", {"counselor"}),
        ("620?? mds isso me deixa pior ainda", {"counselor"}),
        ("Still miss her a lot", {"counselor"}),
        ("ô meu rei, fechei 10km hj na orla de Itapuã", {"health"}),
        ("comecei a fazer a prece e a meditação antes de dormir, como ensinam no centro", {"spiritual"}),
        # Pay received from a job is payday's; a child's allowance raised is no raise; working from
        # home, a team lead and a code review are work.
        ("caiu o salário do estágio hoje, 1.450", {"finance"}),
        ("Got paid from my part-time job at the campus bookstore today, $640", {"finance"}),
        ("meu filho de 15 pediu aumento da mesada kkkk", {"finance", "relationships"}),
        ("Working from home is killing me, I just can't switch off", {"counselor", "professional"}),
        ("My team lead rewrote my whole code review in front of everyone", {"professional"}),
        # From the third pair: retiring is a career's end, but "desde que me aposentei" a time of
        # life; a transfer, a salon's takings, a place at university, an offered salary, a farmer.
        ("Uai, me aposentei sexta-feira depois de 35 anos de Cemig", {"professional"}),
        ("Desde que me aposentei, tenho me sentido muito só.", {"counselor"}),
        ("Fui transferido pra filial de Curitiba, começo dia 3", {"professional"}),
        ("O salão faturou 9.800 esse mês, meu melhor mês desde que abri!", {"finance", "professional"}),
        ("passei em medicina na UFMG!!!", {"professional"}),
        ("O salário lá vai ser 7 mil, bem mais do que eu ganho aqui", {"professional"}),
        ("Soy agricultor y la sequía me arruinó la cosecha", {"professional"}),
        # Weeks of a pregnancy and a baby moving in the womb are the mother's body; a layette and
        # a separation are the people's; kept up by a husband's snoring is the user's sleep.
        ("e to de 36 semanas, o bebe mexeu mt pouco hj", {"health"}),
        ("Quero começar a guardar dinheiro pro enxoval do bebê", {"finance", "relationships"}),
        ("desde a separação tô sem apetite, emagreci 6 kg e choro todo dia", {"counselor", "health", "relationships"}),
        ("My husband's snoring keeps me up every night", {"health", "relationships"}),
        # A close one who won't follow a diet is still spoken of; a doctor wanting a weight reached
        # charges nothing.
        ("meu pai tem diabetes e não quer saber de dieta", {"relationships"}),
        ("minha mãe tá doente e não consigo dormir", {"health", "relationships"}),
        ("Subi na balança hoje: 98 kg. O médico quer que eu chegue em 85", {"health"}),
        # Idioms: broke ("sem um puto"), bummed ("de bode", "com a macaca"), a trade's price.
        ("mermão, tô sem um puto, o patrão atrasou o pagamento de novo", {"finance", "professional"}),
        ("tô de bode hoje", {"counselor"}),
        ("to com a macaca hoje, qualquer coisa me irrita", {"counselor"}),
        ("The Yankees are really paying the price for that trade, huh", {"general"}),
        ("Primeira vez morando sozinha, me ajuda a montar um orçamento com 1800 por mês?", {"finance"}),
        # Where a word or a name comes from, quoted or not, is a question about the world.
        ('De onde vem a palavra "salário"?', {"general"}),
        ("aliás, de onde veio esse nome boleto?", {"general"}),
        # From the fourth pair: sleepless over debts said as it goes on; tacos "de pastor"; a
        # pressure reading asked about; an animal's family; a close one's pain; a day trade; the
        # one who left; a user's own name and the grandchild who installed the app.
        ("nao to conseguindo dormir pensando nas dividas", {"counselor", "finance", "health"}),
        ("y en la comida me comí unos tacos de pastor, como 5", {"health"}),
        ("Minha pressão deu 14 por 9 hoje de manhã, é preocupante?", {"health"}),
        ("O leão é de qual família de animais?", {"general"}),
        ("meu marido ta com pedra no rim, tem alguma coisa que alivia a dor dele?", {"relationships"}),
        ("fiz uma operação de day trade e perdi 300", {"finance"}),
        ("I'm heartbroken, she left me last night", {"counselor", "relationships"}),
        ("ele visualiza e não responde, o que isso significa?", {"relationships"}),
        ("quanto costuma custar um buffet infantil pra 40 pessoas?", {"finance"}),
        ("Bom dia. Meu nome é Maria das Graças, tenho 68 anos e minha neta instalou este aplicativo para mim.",
         {"general"}),
    ],
)
def test_the_fortieth_rounds_words(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("messages", "expected"),
    [
        # "how much did I make" is a look-up: the money alone, the feeling left behind.
        (("rough day, feeling pretty low", "how much did I make this week?"), [{"counselor"}, {"finance"}]),
        # "for it" refers back: the money spent joins the church's drive.
        (("Our church is running a food drive Saturday", "I spent $85 of my own money on boxes and tape for it"),
         [{"spiritual"}, {"finance", "spiritual"}]),
        # A career change, then the fear of it: the feeling joins the work.
        (("tenho 41 anos e quero largar a contabilidade pra virar programador", "mas morro de medo de ser tarde demais"),
         [{"professional"}, {"counselor", "professional"}]),
        # A look-up of a debt's total ("tenho de" is no "have to" before a noun) and of when a
        # thing was last done ask their own domain alone; "tenho de aguentar" is still a "have to".
        (("to desesperada", "e meu nome foi pro serasa", "quanto eu tenho de dívida no total?"),
         [{"counselor"}, {"counselor", "finance"}, {"finance"}]),
        (("to desesperada", "e meu nome foi pro serasa", "quanto eu tenho de aguentar?"),
         [{"counselor"}, {"counselor", "finance"}, {"counselor", "finance"}]),
        (("tô muito triste hoje", "quando foi minha última corrida?"), [{"counselor"}, {"health"}]),
        # A question about the world after "por curiosidade" starts afresh.
        (("Confesso que estou envergonhado com essas dívidas.", "Por curiosidade, quem inventou o cartão de crédito?"),
         [{"counselor", "finance"}, {"general"}]),
        # Which bills are still open is a look-up; going back to a subject named, then a comma,
        # leaves the digression behind.
        (("I'm overwhelmed", "The water bill is $84, due on the 20th", "What bills do I still have left this month?"),
         [{"counselor"}, {"counselor", "finance"}, {"finance"}]),
        (("Voltei pra igreja depois de 15 anos, entrei no grupo de oração",
          "Mudando de assunto, minha pressão deu 15 por 9 no posto hoje",
          "Voltando ao grupo de oração, como faço pra não morrer de vergonha de orar em voz alta?"),
         [{"spiritual"}, {"health"}, {"counselor", "spiritual"}]),
        (("tô com dor de cabeça", "voltando pra casa, passei no mercado e gastei 80"),
         [{"health"}, {"finance"}]),
        # Not knowing if one can handle both is a feeling: it joins the work and the wife.
        (("my manager wants me to lead the new project",
          "but my wife is due in two months and I don't know if I can handle both"),
         [{"professional"}, {"counselor", "professional", "relationships"}]),
    ],
)
def test_round_forty_s_conversations(messages, expected):
    assert follow(*messages) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Round 42: a bus driver's double shift and a trucker's freight are work (a freight with
        # its sum is money too); a delivery broken down midway, a graduate programme, a pupil.
        ("hj fiz dobra no onibus, 14h de volante", {"professional"}),
        ("fechei um frete pra cuiaba, 6.500", {"finance", "professional"}),
        ("tenho q fechar 4 fretes essa semana", {"professional"}),
        ("a moto quebrou no meio da entrega, perdi o dia todo", {"professional"}),
        ("I've been invited to coordinate the graduate program", {"professional"}),
        ("una alumna se ha desmayado en mi clase de hoy", {"professional"}),
        # Keeping away from betting is a feeling's work.
        ("47 dias sem apostar hj, to orgulhoso de mim", {"counselor"}),
        ("went to my first GA meeting tonight", {"counselor"}),
        # A crush in the youth group; a pastor's wife is who the user is, no close one; the
        # grandchild who installed the app, or the daughter who says one may type here, no topic.
        ("to gostando de uma menina do grupo de jovens", {"relationships"}),
        ("Às vezes sinto culpa por me sentir assim, sendo esposa de pastor", {"counselor", "spiritual"}),
        ("minha neta que instalou isso aqui pra mim, pra que serve?", {"general"}),
        ("hello. my daughter says I can type here. is this working?", {"general"}),
        # Hot flashes are the body; the weather's "calorão" is not.
        ("My hot flashes are way worse at night", {"health"}),
        ("bom diaaa que calorão hj hein", {"general"}),
        # Medicines given to a close one, a close one who won't see a doctor: theirs.
        ("Tô cuidando dela em casa, dando os remédios nos horários certinhos", {"relationships"}),
        ("mi vieja tiene tos hace dos semanas y no quiere ir al médico", {"relationships"}),
        ("a Marta ainda nao consegue levantar sozinha, tenho q ajudar ela no banho", {"relationships"}),
        # Waking up every night thinking of a debt; a prayer asked for a close one; a sum spent
        # at the pharmacy looked up in Spanish is money.
        ("acordo 4h da manha pensando no cartao estourado", {"counselor", "finance", "health"}),
        ("to com mt medo da cirurgia da minha esposa amanha, ora por ela comigo?",
         {"counselor", "relationships", "spiritual"}),
        ("¿cuánto llevo gastado en farmacia este mes?", {"finance"}),
    ],
)
def test_the_forty_second_rounds_words(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("messages", "expected"),
    [
        # A sum looked up while the work it was earned from is kept is the ledger's alone.
        (("peguei uma encomenda de 30 vestidos de daminha", "e o cliente ja pagou 50% de sinal, 2.250",
          "quanto recebi de costura no mes passado?"),
         [{"professional"}, {"finance", "professional"}, {"finance"}]),
        # What one drank looked up, and what is left to pay on a card, are look-ups too.
        (("dei 6 aulas de spinning hj, pedalei junto em todas", "quanta agua eu tomei hj?"),
         [{"health", "professional"}, {"health"}]),
        (("o pior é q ainda devo 9 mil no cartao e to mal com isso", "quanto falta pagar do cartao?"),
         [{"counselor", "finance"}, {"finance"}]),
        # What the euro is worth today is a question about the world.
        (("consegui o visto de trabalho, vou me mudar pra portugal em março!",
          "mas to mt ansiosa, nunca morei longe da minha familia", "quanto ta o euro hj?"),
         [{"professional"}, {"counselor", "professional", "relationships"}, {"general"}]),
    ],
)
def test_round_forty_two_s_conversations(messages, expected):
    assert follow(*messages) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Round 43: a sunburn, and a run told by its distance, are the body.
        ("me quemé toda la espalda en la playa, me arde un montón", {"health"}),
        ("got a bad sunburn at the beach", {"health"}),
        ("fiz 15km no longão hj, pace 5:40", {"health"}),
        ("fiz 21k domingo em 2h05, meu melhor tempo!!", {"health"}),
        # A protective order, an adoption in process: close ones. Aloe vera is no Vera.
        ("to com medo dele aparecer aqui, como eu peço medida protetiva?", {"counselor", "relationships"}),
        ("quanto custa mais ou menos um processo de adocao com advogado?", {"finance", "relationships"}),
        ("sirve el aloe vera?", {"general"}),
        ("a Vera me ligou chorando", {"counselor", "relationships"}),
        # A licence to trade is work, a release from prison is not; a degree validated abroad, a
        # course dropped, a police shift, selling online, pricing a service.
        ("a prefeitura ta exigindo alvara pra eu continuar vendendo acaraje na praça, como tira isso?", {"professional"}),
        ("saiu o alvara de soltura do meu primo", {"relationships"}),
        ("como faço pra validar meu diploma aqui em portugal?", {"professional"}),
        ("to pensando em trancar engenharia e ir pra ADS", {"professional"}),
        ("tirei serviço de 24h ontem", {"professional"}),
        ("queria começar a vender pelo instagram, vale a pena?", {"professional"}),
        ("quanto devo cobrar por 4h de violino e voz?", {"professional"}),
        # A seminary's years are faith; months of savings are money.
        ("to no segundo ano do seminario", {"spiritual"}),
        ("vale a pena pedir demissao sem ter outra vaga? tenho uns 8 meses de reserva", {"finance", "professional"}),
        # Feeling an outsider, missing one's family as typed, a scene that will not leave.
        ("Been in São Paulo 3 months now, still feel like an outsider", {"counselor"}),
        ("sinto mta falta da minha familia, natal longe de casa é foda", {"counselor", "relationships"}),
        ("nao consigo tirar a cena da cabeça, toda hora volta", {"counselor"}),
        # How a phrase is said in another language is a question about the world.
        ("How do I say 'can I get the bill' in Portuguese?", {"general"}),
    ],
)
def test_the_forty_third_rounds_words(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("messages", "expected"),
    [
        # The forecast asked after money is small talk of the world: inertia keeps nothing for it.
        (("gastei 200 no mercado", "vai ter vento forte essa semana em Porto Seguro?", "massa, brigado visse"),
         [{"finance"}, {"general"}, {"general"}]),
        (("gastei 200 no mercado", "qual a previsão do tempo pra amanhã?"), [{"finance"}, {"general"}]),
        # A topic named in the same message still answers: a close one beside the forecast.
        (("gastei 200 no mercado", "vai ter vento forte no sabado, minha filha vai velejar"),
         [{"finance"}, {"relationships"}]),
    ],
)
def test_round_forty_three_s_conversations(messages, expected):
    assert follow(*messages) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Round 44: days counted without a drink, IVF, a tingling hand, a scraped foot are the body.
        ("hoje faz 30 dias que nao bebo", {"health"}),
        ("6 meses sem beber hj 🙏", {"health"}),
        ("a gente ta na segunda FIV, a clinica pediu mais exames", {"health"}),
        ("my hands keep tingling at night", {"health"}),
        ("ralei o joelho no futsal e ta sangrando", {"health"}),
        # A tyre's pressure is not the body's; grammar's clauses are no prayer; a garden bench no bank.
        ("qual a pressao certa do pneu do carro?", {"general"}),
        ("me explica oracao subordinada substantiva", {"general"}),
        ("como envernizar um banco de jardim?", {"general"}),
        # A living streamed, a startup's partner and round, a practice, the army, a doctorate, a
        # residency, a harvest, a street permit, paid by the piece, a contract renewed.
        ("bati 200 subs na twitch essa semana", {"professional"}),
        ("meu cofounder quer sair da empresa", {"professional"}),
        ("abri meu consultorio mes passado e ta devagar", {"professional"}),
        ("vou sair do exercito no fim do ano", {"professional"}),
        ("my PhD advisor wants the full chapter by Monday", {"professional"}),
        ("PGY-1 here, first night alone on call", {"professional"}),
        ("la helada se llevó la mitad de mi cosecha", {"professional"}),
        ("como saco el permiso municipal para vender empanadas?", {"professional"}),
        # Wishing to vanish unnoticed, usefulness lost, a loss that destroys: feelings.
        ("as vezes acho que se eu sumisse ninguem ia notar", {"counselor"}),
        ("desde que me aposentei me sinto inutil", {"counselor"}),
    ],
)
def test_the_forty_fourth_rounds_words(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Money lost betting, a leveraged trade: money.
        ("perdi 300 na bet ontem", {"finance"}),
        ("joguei 200 no tigrinho e perdi tudo", {"finance"}),
        ("lost 2k on a leveraged trade", {"finance"}),
        # Parkinson's and its tremor; a fall from a motorbike, an arm scraped; black lung.
        ("a tremedeira da minha mao piorou essa semana", {"health"}),
        ("ralei o braco todo no asfalto", {"health"}),
        ("the doctor thinks it's black lung", {"health"}),
        # The rosary prayed and the orixás are faith; a third of a salary is not.
        ("vamos rezar o terco hoje a noite?", {"spiritual"}),
        ("quero entender mais sobre os orixas da umbanda", {"spiritual"}),
        ("um terco do salario vai pro aluguel", {"finance"}),
        # A community health agent, no one hiring, a foreman, weddings played: work, not the body
        # or a family's wedding.
        ("sou agente comunitaria de saude faz 6 anos", {"professional"}),
        ("ninguem me contrata por causa da minha ficha", {"professional"}),
        ("sabado tenho 2 casamentos pra tocar", {"professional"}),
        # Self-hatred, an absent father's guilt, faith lost: feelings.
        ("fiz besteira de novo e me odeio", {"counselor"}),
        ("me sinto um pai ausente", {"counselor", "relationships"}),
        ("perdi minha fe depois do acidente", {"counselor", "spiritual"}),
        # "amiga" as a greeting names no one.
        ("oi amiga tudo bem?", {"general"}),
    ],
)
def test_the_forty_fifth_rounds_words(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Push-ups, skin burnt by the sun, a voice lost, a nodule, a heat pack: the body.
        ("fiz 50 flexoes hoje", {"health"}),
        ("to com a pele toda queimada do sol", {"health"}),
        ("acordei rouca e to sem voz", {"health"}),
        ("o medico achou um nodulo na tireoide", {"health"}),
        # Forgotten by God, an impostor: feelings.
        ("as vezes sinto que deus me esqueceu", {"counselor", "spiritual"}),
        ("I feel like a fraud at my new job", {"counselor", "professional"}),
        # A procession is faith; Patrocínio is a town, no sponsor.
        ("amanha tem procissao de Corpus Christi", {"spiritual"}),
        ("vai chover em Patrocinio essa semana?", {"general"}),
        # An LLC, a sponsor, walking dogs, a pet-grooming shop: work.
        ("do I need an LLC to sell my cakes?", {"professional"}),
        ("consegui um patrocinador pro meu time de futsal", {"professional"}),
        ("sou passeador de caes e quero mais clientes", {"professional"}),
    ],
)
def test_the_forty_sixth_rounds_words(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A tendinitis, athlete's foot, a swollen foot, a sting, a statin, hearing aids: the body.
        ("to com tendinite no ombro de tanto lavar roupa", {"health"}),
        ("to com uma frieira no pé q não sara", {"health"}),
        ("desci do avião com o pé inchado", {"health"}),
        ("got stung by a wasp on my eyelid", {"health"}),
        ("o médico trocou a sinvastatina por outra", {"health"}),
        ("el PAMI no me cubre los audífonos", {"health"}),
        # Takings, the animal game, a utility's bill named by its company: money. The company
        # as an employer is not a bill.
        ("hj faturei 1.900 na feira", {"finance"}),
        ("ganhei 300 no jogo do bicho ontem", {"finance"}),
        ("a conta da equatorial veio 412", {"finance"}),
        ("me aposentei depois de 35 anos de Cemig", {"professional"}),
        # A sign-language interpreter, a funeral director, a tour guide: work, not grief.
        ("sou intérprete de libras numa faculdade", {"professional"}),
        ("I'm a funeral director in Bristol", {"professional"}),
        ("soy guía de turismo en Cusco", {"professional"}),
        # A votive candle, a gurdwara, a mother of saint: faith, and no parent.
        ("le prendí una veladora a San Judas Tadeo", {"spiritual"}),
        ("went to the gurdwara and did seva in the langar", {"spiritual"}),
        ("minha mãe de santo disse q preciso fazer minha feitura", {"spiritual"}),
        # A patron saint asked about is trivia (holdout-104), no faith of the user's.
        ("qual santo é o padroeiro dos cozinheiros?", {"general"}),
    ],
)
def test_the_forty_seventh_rounds_words(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A pimple, a mouth ulcer, quitting smoking, wrists gone numb: the body, not a feeling.
        ("nasceu uma espinha gigante na testa", {"health"}),
        ("to com uma afta enorme embaixo da lingua", {"health"}),
        ("quit smoking 3 weeks ago and can't stop snacking", {"health"}),
        ("my wrists go numb at night", {"health"}),
        ("I just go numb when he yells at me", {"counselor"}),
        # A scratch card, a tithe paid, a clinic's quote, a card declined: money.
        ("ganhei 500 na raspadinha", {"finance"}),
        ("dizimei 250 hj no culto", {"finance", "spiritual"}),
        ("my fuel card got declined at the gas station", {"finance"}),
        # A night watchman, a sugarcane cutter, a trucker's dispatcher: work.
        ("sou vigia noturno num galpão", {"professional"}),
        ("sou cortador de cana em Sertãozinho", {"professional"}),
        ("my dispatcher wants me to skip my reset", {"professional"}),
        # A Jehovah's Witness, a convert to Islam, Saints Cosmas and Damian: faith.
        ("sou Testemunha de Jeová", {"spiritual"}),
        ("me reverti ao islã faz 1 ano", {"spiritual"}),
        ("amanhã é dia de Cosme e Damião, vou distribuir doce", {"spiritual"}),
        # Chilean children are one's own; a puppy ("filhote") is no child.
        ("mis cabros chicos no me hacen caso", {"relationships"}),
        ("adotei um filhote de vira-lata ontem", {"general"}),
    ],
)
def test_the_forty_eighth_rounds_words(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Psoriasis, dialysis, gout, a kidney stone, endometriosis, a medicine by name: the body.
        ("minha psoríase atacou de novo no cotovelo", {"health"}),
        ("faço hemodiálise 3x por semana", {"health"}),
        ("y'all my gout's flarin' up again", {"health"}),
        ("me salió una piedra en el riñón de 4 milímetros", {"health"}),
        ("having an endo flare again today", {"health"}),
        ("to com uma rouquidão q não passa faz 3 semanas", {"health"}),
        # A nurse's job in Spanish is work, not a sickness ("enfermo").
        ("hoy empecé de enfermero en Río Piedras", {"professional"}),
        # A loan shark, a card machine's fee: money.
        ("peguei 2 mil com um agiota e agora ele ta me ameaçando", {"finance"}),
        ("qual maquininha cobra menos taxa?", {"finance"}),
        # A school cook, gold panning, a foreman, sheep shearing: work.
        ("sou merendeira numa escola estadual", {"professional"}),
        ("trabalho no garimpo faz 10 anos", {"professional"}),
        ("el capataz me grita delante de todos", {"professional"}),
        ("shearing season's kicked off down in Southland", {"professional"}),
        # Buddhism, Shabbat, a catechist, the prodigal son (a parable, no son): faith.
        ("pratico meditação budista faz 2 anos", {"spiritual"}),
        ("sexta vou fazer meu primeiro jantar de Shabat", {"spiritual"}),
        ("me ajuda a explicar a parábola do filho pródigo?", {"spiritual"}),
        # Nothing gives pleasure any more: a feeling.
        ("nada mais me dá prazer, nem o futebol de domingo", {"counselor"}),
    ],
)
def test_the_forty_ninth_rounds_words(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Lunchboxes or sweets sold by the dozen are a small business; the takings are money.
        ("vendi 30 marmitas essa semana, entrou 450", {"finance", "professional"}),
        ("tô vendendo brigadeiro na porta da escola", {"professional"}),
        # A year without a drink is the body's.
        ("hj fiz 1 ano sem beber", {"health"}),
        # A home sold is money; what a thing cost, asked again, is the ledger's, not the body's.
        ("a gente vai ter q vender o apê", {"finance"}),
        ("quanto foi mesmo o dentista?", {"finance"}),
        ("quanto foi o jogo ontem?", {"general"}),
        # A salary expectation in Spanish is the career's, not money received.
        ("¿qué respondo si me preguntan mi pretensión salarial?", {"professional"}),
        # Not knowing what to do any more, as typed; strength asked for to bear a job.
        ("meu filho tirou nota baixa de novo e eu nao sei mais o q fazer", {"counselor", "relationships"}),
        ("peço a deus q me dê forças pra aguentar esse emprego", {"counselor", "professional", "spiritual"}),
        # A purpose lost is faith's question too.
        ("perdi meu propósito de vida", {"spiritual"}),
        # A medicine bought for him is his, not the user's body.
        ("bought him cough syrup, $12", {"finance"}),
    ],
)
def test_the_fiftieth_rounds_words(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A weight lost said with its kilos glued on ("4kg desde"): "kg de" (a purchase) is a whole word.
        ("perdi 4kg desde janeiro", {"health"}),
        ("comprei 2kg de carne", {"finance"}),
        # An offering given at church is money too.
        ("queria dar uma oferta maior no culto esse mês", {"finance", "spiritual"}),
        # More work without a raise is the career's complaint, not money received.
        ("mi jefa me quiere dar más responsabilidades sin subirme el sueldo", {"professional"}),
        # Uncomfortable, said as a feeling.
        ("it's making me really uncomfortable", {"counselor"}),
        # The kids as the North-East says it.
        ("tinha marcado de levar os menino na praia", {"relationships"}),
        # A colleague who took one's project is work.
        ("a colega do setor pegou meu projeto e apresentou como se fosse dela", {"professional"}),
    ],
)
def test_the_fifty_first_rounds_words(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Not coping, said plainly; tired of being the one everyone leans on.
        ("as vezes sinto q nao vou dar conta", {"counselor"}),
        ("I'm tired of being the one who fixes everything", {"counselor"}),
        # A blessing said as thanks in English is courtesy; the divine felt in meditation is faith.
        ("thank you, God bless", {"general"}),
        ("meditei hj e me senti conectada com o divino", {"spiritual"}),
        # A party quoted at a sum, a cost carried, are money.
        ("o churrasco ta orçado em 2 mil", {"finance"}),
        ("to bancando a reforma do banheiro", {"finance"}),
        # A ward sister is the nurse in charge, not a sister.
        ("the ward sister changed my shift again", {"professional"}),
        # Medicine wanted as a course is the career's; no appetite is the body's.
        ("quero medicina na federal", {"professional"}),
        ("nao tenho fome desde ontem", {"health"}),
        ("to com enxaqueca e tenho prova da faculdade amanha", {"health", "professional"}),
        # Nightmares that come back; whether a pet goes to heaven; goods sold at a market; a herd.
        ("tenho pesadelos toda noite desde o assalto", {"counselor"}),
        ("será q o gato vai pro céu?", {"spiritual"}),
        ("I sell phone cases at the market on weekends", {"professional"}),
        ("we might have to sell the herd", {"professional"}),
    ],
)
def test_the_fifty_second_rounds_words(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Burnt out, as Spain says it.
        ("estoy quemadísima con el curro", {"counselor", "professional"}),
        # A parable asked about is faith's, the prodigal son's too.
        ("o q significa a parábola do filho pródigo?", {"spiritual"}),
        # An instalment weighed, a thing too dear, the off-season allowance, a savings circle: money.
        ("to pensando se parcelo o sofá", {"finance"}),
        ("a dieta ta cara demais", {"finance", "health"}),
        ("so to recebendo o seguro defeso", {"finance", "professional"}),
        ("entré a una tanda de 500 semanales", {"finance"}),
    ],
)
def test_the_fifty_third_rounds_words(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # February in Spanish is no fever.
        ("¿y cuánto gasté en febrero?", {"finance"}),
        # Mass gone to and a tithe given are faith's; a youth group led at church is no job.
        ("mass was beautiful today", {"spiritual"}),
        ("tithed $150 this Sunday", {"finance", "spiritual"}),
        ("sou lider de jovens na igreja", {"spiritual"}),
        # A salary being negotiated is the career's, not money received.
        ("negotiating my salary on Friday", {"professional"}),
        # A day worked, cosmetics resold, sales looked up: work, and the sum the ledger's.
        ("trampei 14h hj", {"professional"}),
        ("vendo avon aqui no bairro", {"professional"}),
        ("quanto recebi de vendas no mes passado?", {"finance"}),
        # The ICU worked in is a workplace; a break-up weighed; a party too dear; feeling like rubbish.
        ("mais um plantao na uti hoje", {"professional"}),
        ("to pensando em terminar com ele", {"relationships"}),
        ("a festa ta mt cara", {"finance"}),
        ("feel like absolute rubbish today", {"counselor"}),
    ],
)
def test_the_fifty_fourth_rounds_words(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A head that will not stop, everything that could go wrong, feeling trapped: feelings.
        ("minha cabeça nao para", {"counselor"}),
        ("fico pensando em tudo q pode dar errado", {"counselor"}),
        ("to me sentindo presa nesse casamento", {"counselor", "relationships"}),
        # A rheumatologist's dose and being dizzy are the body's.
        ("minha reumato aumentou a dose", {"health"}),
        # A social worker, a gym instructor, a ride-hailing side job, food sold on weekends: work.
        ("sou assistente social no CRAS", {"professional"}),
        ("a assistente social vem fazer a visita", {"general"}),
        ("sou instrutor de autoescola", {"professional"}),
        ("i started selling shawarma on weekends", {"professional"}),
        # Vibrations asked for someone are the spiritist's prayer; a repair's cost; naira counted.
        ("quero pedir vibraçoes pra minha tia", {"relationships", "spiritual"}),
        ("o conserto vai sair 2.300", {"finance"}),
        ("made 45k naira this weekend", {"finance"}),
    ],
)
def test_the_fifty_fifth_rounds_words(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # The 13th salary drawn early, a price in reales, tickets priced, giving to a church weighed.
        ("vale a pena antecipar o 13?", {"finance"}),
        ("hoy le mandé 300 reales a mi mamá", {"finance", "relationships"}),
        ("as passagens pra ir ver ele tao 5 mil", {"finance"}),
        ("a igreja ta pedindo doacao pra reforma, sera q devo dar?", {"finance", "spiritual"}),
        # The salary of a job offered is the career's.
        ("¿cómo negocio mi salario en la oferta?", {"professional"}),
        # Feeling fat, a first marathon, coeliac disease, an appointment gone to, a fall off a bike.
        ("to gorda e me odeio", {"counselor", "health"}),
        ("training for my first marathon in october", {"health"}),
        ("descobri q sou celiaca", {"health"}),
        ("gastei 60 de uber pra ir na consulta", {"finance", "health"}),
        ("me caí de la bici haciendo un reparto", {"health"}),
        # A technical course, university, a degree revalidated, delivering for iFood: work.
        ("vale a pena fazer tecnico em enfermagem?", {"professional"}),
        ("to pensando em largar o caminhao e fazer faculdade", {"professional"}),
        ("soy venezolano y necesito revalidar mi título de ingeniero aquí", {"professional"}),
        ("to rodando de ifood desde as 7 da manha", {"professional"}),
        # A colleague at work is the work's; a single mother is a family.
        ("meus colega de trabalho n colaboram com nada", {"professional"}),
        ("soy madre soltera de dos niños", {"relationships"}),
        # What gets one down, bothers or infuriates, and hating oneself: feelings.
        ("me afastei de Deus e isso me deixa mal", {"counselor", "spiritual"}),
        ("perdi 800 na bet ontem e to me odiando", {"counselor", "finance"}),
        ("o pastor ta me cobrando dizimo e isso me incomoda", {"counselor", "finance", "spiritual"}),
        ("meu colega de trabalho leva credito pelas minhas ideias e isso me deixa puta", {"counselor", "professional"}),
    ],
)
def test_the_fifty_sixth_rounds_words(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Islam's words and unbelief told are faith; a prayer before sleep is no sleep.
        ("I just took my shahada last month, how do I prepare for my first Ramadan?", {"spiritual"}),
        ("I'm an atheist and my mother-in-law keeps pushing us to baptize our daughter", {"relationships", "spiritual"}),
        ("me ensina uma oracao pra antes de dormir", {"spiritual"}),
        # A vegan's vitamin and a glucose test are the body's; a gym owned is a business.
        ("sou vegano, preciso tomar b12?", {"health"}),
        ("hace 3 meses que soy vegana", {"health"}),
        ("y yo también me hice el examen de glucosa", {"health"}),
        ("tengo un gimnasio pequeño en Valencia", {"professional"}),
        # Shaking after a row and losing sleep over it are feelings.
        ("fiquei tremendo depois", {"counselor"}),
        ("to perdendo o sono com isso", {"counselor", "health"}),
        # A severance paid and what one gave looked up are money.
        ("e a rescisao cai semana q vem", {"finance", "professional"}),
        ("quanto eu ja dei pra igreja esse ano?", {"finance", "spiritual"}),
        # "irmão" said to the listener is a way of speaking.
        ("obrigado por ouvir, irmao", {"general"}),
    ],
)
def test_the_fifty_seventh_rounds_words(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # One's own chemotherapy, a headache in Spanish, an operation on oneself; a close one's chemo is theirs.
        ("recen por mi, empiezo la quimio el lunes", {"health", "spiritual"}),
        ("my mom starts chemo next week", {"relationships"}),
        ("la altura me esta dando dolores de cabeza", {"health"}),
        ("pero me operaron de la rodilla en agosto", {"health"}),
        # Judaism's days and Zen practice are faith.
        ("amanha comeca yom kippur, esse ano vou jejuar direito", {"spiritual"}),
        ("comecei a meditar 20 min toda manha, pratica zen", {"spiritual"}),
        # A thing too hard, a thing driving one mad, being bullied: feelings.
        ("minha esposa ta em outro estado e a gente so se ve de 2 em 2 meses, ta dificil demais", {"counselor", "relationships"}),
        ("meu orientador nao responde e isso ta me deixando louco", {"counselor"}),
        ("os moleque da sala ficam me zoando pq sou gordo", {"counselor"}),
        # A contribution paid, an account emptied, keeping the house alone: money.
        ("o centro espirita pediu contribuicao de 50, registra ai", {"finance", "spiritual"}),
        ("to no 3 mes de desemprego e a conta ta zerada, to mt mal", {"counselor", "finance", "professional"}),
        # A job refused, pay docked, training to become a pastor, a craftswoman, a tailor, a final exam: work.
        ("minha esposa quer q eu recuse a vaga em sp", {"professional", "relationships"}),
        ("o dono da loterica descontou 200 do meu salario pq o caixa nao bateu", {"finance", "professional"}),
        ("paguei 2 mil no curso de teologia pra virar pastor", {"finance", "professional", "spiritual"}),
        ("sou artesa quilombola e vendo cesto de palha na feira", {"professional"}),
        ("I'm a tailor in Aba, I sew agbada and kaftans", {"professional"}),
        ("manana rindo el final de anatomia y no estudie nada", {"professional"}),
    ],
)
def test_the_fifty_eighth_rounds_words(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Books of the Bible and umbanda's gira are faith; "a paz, irmã" greets a sister in faith.
        ("li filipenses 4 hj, o q significa tudo posso naquele que me fortalece?", {"spiritual"}),
        ("ontem fui na gira e o preto velho me disse pra ter paciencia", {"spiritual"}),
        ("a paz irma, domingo vou cantar no coral da igreja pela primeira vez", {"spiritual"}),
        # An offering put in, a session's price, a profit in Spanish: money.
        ("put R50 in the offering at church today", {"finance", "spiritual"}),
        ("a fisio nova cobra 120 a sessao", {"finance", "health"}),
        ("me quedaron como 150 mil de ganancia", {"finance"}),
        # A knee done in, the harvest worked: the body, the work.
        ("mate, did my knee in on site today", {"health"}),
        ("to na colheita de cafe desde as 5, sol de rachar", {"professional"}),
        # At the end of one's tether, alone in a new city, a God who seems not to listen: feelings.
        ("to com vontade de chutar o balde, serio", {"counselor"}),
        ("moved to Manchester last month and I don't know a soul", {"counselor"}),
        ("I've been praying but I feel like God's not listening", {"counselor", "spiritual"}),
    ],
)
def test_the_fifty_ninth_rounds_words(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Moved by a message, dying of sorrow, not able to say no, hurt: feelings.
        ("tô mexida, não sei se respondo", {"counselor"}),
        ("Mi mamá está hospitalizada en Cochabamba y yo acá sin poder ir, me muero de pena", {"counselor", "relationships"}),
        ("Meu cunhado me pediu 2 mil emprestado de novo e eu não sei dizer não", {"counselor", "finance", "relationships"}),
        ("I'm kind of hurt tbh", {"counselor"}),
        ("perdi minha vó semana passada e to destruída", {"counselor", "relationships"}),
        # What to cook for him is no plea for advice.
        ("o que eu faço de janta pra ele que seja saudável?", {"general"}),
        # Teaching, leave from work, an offer received, a course, hectares, rides, a run of nights: work.
        ("não aguento mais dar aula, juro", {"counselor", "professional"}),
        ("será que eu peço afastamento?", {"professional"}),
        ("Recebi a proposta da outra escola, pagam 800 a mais", {"professional"}),
        ("mas eu quero fazer engenharia", {"professional"}),
        ("vou ter que replantar 200 hectares de soja", {"professional"}),
        ("hoy hice 22 carreras en la moto", {"professional"}),
        ("just finished a run of four nights", {"professional"}),
        # ... a job that pays badly is the job's; volunteering at the parish is faith, not a job.
        ("o dono da rede onde trabalho paga mal demais", {"professional"}),
        ("pensei em fazer trabalho voluntário na paróquia", {"spiritual"}),
        # An internship's grant, a bus fare, a Colombian bonus, an offering, sales so far, saving up: money.
        ("recebi a bolsa do estágio hoje 🤑", {"finance"}),
        ("anota aí: 4,40 de passagem de ônibus", {"finance"}),
        ("parce, me llegó la prima de diciembre", {"finance"}),
        ("e dei 200 de oferta de gratidão", {"finance", "spiritual"}),
        ("cuánto llevo vendido esta semana?", {"finance"}),
        ("quantos meses eu preciso guardar?", {"finance"}),
        # A miscarriage, a sunburn, a bad back in Spain: the body; 'bub' is a baby.
        ("Can't stop crying since the miscarriage", {"counselor", "health"}),
        ("to com o ombro todo queimado de sol", {"health"}),
        ("llevo una semana fatal de la espalda", {"health"}),
        ("Our bub is 3 weeks old and I'm running on 3 hours sleep", {"health", "relationships"}),
        # A Zen hall, an elder on mission, Lakshmi, the Gita, a seminarian's vocation: faith.
        ("Sat for 45 minutes this morning at the zendo", {"spiritual"}),
        ("Sou élder, tô em missão em Manaus faz 4 meses", {"spiritual"}),
        ("I want to do a proper Lakshmi puja at home", {"spiritual"}),
        ("what does the Bhagavad Gita say about doing your duty?", {"spiritual"}),
        ("to no seminário e às vezes duvido da minha vocação", {"spiritual"}),
    ],
)
def test_the_sixtieth_rounds_words(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A meal, a fare or fuel noted down, or looked up, is money.
        ("anota 32 de almoço", {"finance"}),
        ("quanto foi de combustível em setembro?", {"finance"}),
        # ... while the weight one had, a back that hurt all shift, are the body's.
        ("quanto eu tava pesando mês passado?", {"health"}),
        ("y encima hoy me dolió la espalda todo el turno", {"health", "professional"}),
        # A series to binge is leisure; "uma saudade" of one's mother, a feeling.
        ("recommend me a thriller series to binge", {"general"}),
        ("égua, tô com uma saudade da minha mãe, ela mora lá em Santarém", {"counselor", "relationships"}),
    ],
)
def test_the_sixty_first_rounds_words(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # One's trade told with no other topic is a lasting fact about one's work, in the three
        # languages, with or without a greeting before it or a qualifier after it.
        ("sou enfermeira", {"professional"}),
        ("oi, só pra vc saber: sou enfermeira", {"professional"}),
        ("I'm a registered nurse", {"professional"}),
        ("I work as a cashier", {"professional"}),
        ("soy electricista", {"professional"}),
        # ... and the trade's words are the job, not the user's body or feelings.
        ("sou médica", {"professional"}),
        ("sou psicóloga", {"professional"}),
        ("I'm a dentist", {"professional"}),
        ("sou nutri e abri meu consultório faz 6 meses", {"professional"}),
        # Told as a preface to another topic, or in passing to make a point, it adds nothing.
        ("I'm a nurse and I miss my kids so much", {"counselor", "relationships"}),
        ("sou estudante e tô sem grana pro aluguel", {"finance"}),
        # A diet told is the body's; disappointment is a feeling; a salary negotiated is work.
        ("just so you know, I'm vegetarian", {"health"}),
        ("soy vegetariano", {"health"}),
        ("I'm lactose intolerant", {"health"}),
        ("kinda disappointed tbh", {"counselor"}),
        ("I want to negotiate my salary", {"professional"}),
    ],
)
def test_the_sixty_second_rounds_words(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("messages", "expected"),
    [
        # A curious fact asked for is a pause about the world: the feeling is not kept, nor
        # while the pause goes on.
        (
            ("to me sentindo muito sozinha esses dias", "me conta uma curiosidade qualquer", "kkk q doido"),
            [{"counselor"}, {"general"}, {"general"}],
        ),
        (("I'm so stressed lately", "tell me a fun fact", "haha nice"), [{"counselor"}, {"general"}, {"general"}]),
        # A look-up asked again for another category is the same look-up, food or not.
        (("quanto gastei este mês?", "e só de comida?", "nossa ta alto"), [{"finance"}, {"finance"}, {"finance"}]),
        (("how much did I spend this week?", "and on groceries?"), [{"finance"}, {"finance"}]),
        # A trade said in passing while speaking of someone adds no work.
        (
            ("mi mamá es re terca", "ya le dije mil veces, y eso que soy farmacéutica jaja"),
            [{"relationships"}, {"relationships"}],
        ),
    ],
)
def test_round_sixty_two_s_conversations(messages, expected):
    assert follow(*messages) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Sleep lost over money, told in the past, is the worry's too (the specification's §6.2).
        ("nao consegui dormir pensando na fatura do cartao", {"counselor", "finance", "health"}),
        # A racing mind, what leaves one low, not knowing how to pay: feelings.
        ("my mind won't stop racing about my thesis defense", {"counselor", "professional"}),
        ("meu namorado quer comprar carro antes do ape e isso ta me deixando mal", {"counselor", "finance", "relationships"}),
        # A sum given to note down at a place is an expense, the place its category.
        ("log 45 at the pharmacy", {"finance"}),
        ("registra 45 na farmácia", {"finance"}),
        ("log 8 hours of sleep", {"health"}),
        # Water in litres, a final exam, a prayer asked for someone with "ora".
        ("log 2L of water", {"health"}),
        ("I have my organic chemistry final on Monday", {"professional"}),
        ("ora pelo meu marido", {"relationships", "spiritual"}),
        # A child's grade is the child's.
        ("minha filha tirou 10 na prova de ciencias!!", {"relationships"}),
    ],
)
def test_the_sixty_third_rounds_words(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("messages", "expected"),
    [
        # A good film asked for is leisure: the topics before it are not kept.
        (("I weigh 82kg today", "and I paid 60 for the gym this month", "what's a good movie tonight?"),
         [{"health"}, {"finance", "health"}, {"general"}]),
        (("o prazo do relatório é amanhã", "algum filme bom pra hoje?"), [{"professional"}, {"general"}]),
        # Instalments left or what falls due, asked, are the records' own.
        (("nao consegui dormir pensando na fatura do cartao", "quais parcelas ainda faltam?"),
         [{"counselor", "finance", "health"}, {"finance"}]),
        # A sum noted, then corrected and confirmed, stays the expense.
        (("log 45 at the pharmacy", "no, 40 not 45", "yes"), [{"finance"}, {"finance"}, {"finance"}]),
    ],
)
def test_round_sixty_three_s_conversations(messages, expected):
    assert follow(*messages) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A shift at the pharmacy, driving the bus, a higher salary asked for: work.
        ("fiz plantao de 12h na farmacia hj", {"professional"}),
        ("as costas tao me matando de tanto dirigir o onibus", {"health", "professional"}),
        ("no sé si pedir más sueldo", {"counselor", "professional"}),
        # Days without smoking and a pregnancy's scan by its week: the body.
        ("day 12 without a cigarette", {"health"}),
        ("had my 20 week scan today", {"health"}),
        # The first of a thing of the world is trivia.
        ("qual foi o primeiro cartao de credito do mundo?", {"general"}),
    ],
)
def test_the_sixty_fourth_rounds_words(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A small trade of one's own, told: work.
        ("faço consertos de roupa em casa", {"professional"}),
        ("Vendo empanadas los fines de semana", {"professional"}),
        ("recebi uma encomenda de 50 salgados pra festa de sabado", {"professional"}),
        # A pension come in is money; a grandchild is family; a lunch with a friend is no meeting.
        ("Social security came in today", {"finance"}),
        ("Hoy cobré la jubilación", {"finance"}),
        ("Spent $320 on flights to go see the grandkids", {"finance", "relationships"}),
        ("He lives two hours away, we're meeting for lunch Sunday", {"general"}),
        # A cataract operated is the body; the godmother's illness is hers; the age a queen died is trivia.
        ("vou operar catarata semana q vem", {"health"}),
        ("minha comadre ta mt doente", {"relationships"}),
        ("vc sabe com quantos anos a rainha elizabeth morreu", {"general"}),
    ],
)
def test_the_sixty_fifth_rounds_words(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("messages", "expected"),
    [
        # Money made or spent while one's own work is spoken of is the work's too (rule i) ...
        (("comecei a vender brigadeiro na facul", "vendi 40 hj, a 3 reais cada"),
         [{"professional"}, {"finance", "professional"}]),
        (("a prefeitura deu prazo ate sexta pra renovar o alvará", "paguei 280 da taxa hj"),
         [{"professional"}, {"finance", "professional"}]),
        # ... but one's pay come in is the ledger's alone, and so is a sum looked up.
        (("tive reunião com meu chefe hoje", "o salário caiu hoje, 3.200"), [{"professional"}, {"finance"}]),
        (("comecei a vender brigadeiro na facul", "quanto eu gastei de ingredientes esse mes?"),
         [{"professional"}, {"finance"}]),
    ],
)
def test_round_sixty_five_s_conversations(messages, expected):
    assert follow(*messages) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # The children named as a group, a child by age: family.
        ("Compré los útiles escolares de los dos niños, 180 mil pesos", {"finance", "relationships"}),
        ("My 13 year old is on his phone till 2am every night", {"relationships"}),
        # A renovation's cost, the dog's food with its price, money sent home, a tip: money.
        ("a reforma da cozinha ja passou de 20 mil", {"finance"}),
        ("ração do cachorro: 230", {"finance"}),
        ("meu gato ta sem comer ração faz 2 dias", {"general"}),
        ("mandei 300 pra minha mae no nordeste", {"finance", "relationships"}),
        # The body after a shift is the body's; rostered all week, nursing studied: work.
        ("minhas costas tao me matando depois do plantao", {"health"}),
        ("can you pray with me before my shift", {"spiritual"}),
        ("estoy pensando en estudiar enfermeria", {"professional"}),
        # A pet's vaccine is the pet's; the children asleep are no one's sleep.
        ("paguei 210 na vacina do gato", {"finance"}),
        ("e chego em casa com as crianças ja dormindo", {"relationships"}),
        # A cold coming, an ankle twisted; unseen, humiliated; a city of the world.
        ("I think I'm coming down with a cold", {"health"}),
        ("twisted my ankle on the site this morning", {"health"}),
        ("I feel like nobody sees me", {"counselor"}),
        ("onde fica a cidade de barreiras?", {"general"}),
    ],
)
def test_the_sixty_sixth_rounds_words(text, expected):
    assert route(text, CHRISTIAN) == expected


@pytest.mark.parametrize(
    ("messages", "expected"),
    [
        # What is in one's own account, what "we" spent, what I spent last month: the records' own.
        (("meu filho ta com febre", "quanto tem na minha poupanca?"), [{"relationships"}, {"finance"}]),
        (("My wife and I want to cut $500 from our monthly spending", "what did I spend on takeout last month?"),
         [{"finance", "relationships"}, {"finance"}]),
        (("to feliz mas com medo pq a grana ja ta curta", "quanto a gente gastou de fralda no ultimo mes?"),
         [{"counselor", "finance"}, {"finance"}]),
    ],
)
def test_round_sixty_six_s_conversations(messages, expected):
    assert follow(*messages) == expected
