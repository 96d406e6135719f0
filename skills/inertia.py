"""Which skills are active for a message: triggers first, then inertia, then fallback.

The decision for each user message, in order:

1. Skills whose ``requires_user_preference`` is not on in the user's preferences are
   never active, by any route below. Disabled or unknown skills are ignored.
2. ``explicit`` (a skill forced with ``/name``) is active together with the skills whose
   triggers fired; reason ``explicit``. This counts as a detection.
3. Otherwise, if triggers fired, those skills are active. If skills of an earlier
   detection are still under inertia (see 4) and the message goes on with their topic
   (see "Combination" below), the fired skills JOIN them, reason ``combined``; else
   they REPLACE them, reason ``trigger``. Either way the inertia count restarts; a skill
   kept along without firing goes on counting its own messages (see "Lapse").
4. Otherwise the skills of the previous detection stay active while fewer than
   ``inertia_messages`` messages have passed without a detection, and each of them fired
   within the last ``inertia_messages`` messages; reason ``inertia``.
5. Otherwise ``routed`` (a skill chosen by an LLM router), reason ``router``; or the
   fallback skill ``general``, reason ``fallback``. Neither counts as a detection: the
   state keeps only ``general``, so the next quiet message asks again.

What "inertia of 5 messages" means: message 1 triggers finance; messages 2, 3, 4, 5
and 6 fire nothing and keep finance (``messages_since_detection`` goes 1..5); message
7 fires nothing and falls back to ``general``. ``inertia_messages=0`` disables inertia.

Lapse (docs/routing-labelling.md: "after about 5 messages without the topic coming back, an
old topic no longer holds"): each active skill counts the messages since it last fired
(:attr:`InertiaState.quiet_for`), and one that has gone ``inertia_messages`` messages without
firing is no longer kept, even while the others it was combined with go on firing. "to meio pra
baixo hj" then six messages of bills that go on with "e…" keep the counselor for five of them;
the sixth is finance alone. A feeling said again starts its count afresh.

Combination (docs/specification.md, skills architecture §5.3 "substitui ou combina", §6.2)
------------------------------------------------------------------------------------------
The topics co-occur, and the fired skills join the ones still under inertia, when
the message looks up no figure in the user's records (a look-up asks its own domain
alone: "how much did I spend on groceries in May?" after a feeling about the rent is
finance, and so is "quanto tenho na conta corrente agora?" after the shame of asking the
landlord for more time), and

a. fires again at least one skill still active: the topic goes on and another joins
   ("as parcelas estão me tirando o sono" while finance is active: finance, health);
b. refers back to what was said (:data:`REFERS_BACK`, e.g. "isso", "disso",
   "também", "além disso", "this", "that", "also", "too", "eso", "además") or opens
   with a conjunction (:data:`CONTINUES`: "e…", "mas…", "and…", "but…", "y…", "pero…"):
   "e por causa disso não durmo" while finance is active: finance, health; or
c. fires a companion skill (:data:`~skills.domain.COMPANION_SKILLS`, the counselor):
   a feeling is about the topic at hand, also when the message names a symptom of
   its own ("estou desesperada" while finance is active: counselor, finance; "to
   desesperada, nem durmo direito": counselor, finance, health); or
d. fires a domain while a companion skill is still active: the feeling stays with
   the topic that follows it, most plainly when the message goes on from the last
   one ("estou muito ansiosa" then "e as parcelas do cartão estão todas atrasadas":
   counselor, finance; "I feel so alone" then "but my husband doesn't notice":
   counselor, relationships). A message looking up a figure in the user's own records
   (:data:`LOOKS_UP`: "quanto eu gastei…", "how much did I spend…", "¿cuánto pagué…?")
   is a plain question, not the topic of the feeling: "tenho reunião com o diretor e tô
   nervoso" then "quanto eu gastei de gasolina essa semana?" is finance alone, unless it
   opens with a conjunction or refers back (b) ("e quanto gastei com isso?"). A look-up
   that fires nothing keeps the domains kept without the feeling ("tô ansiosa", "as
   parcelas tão atrasadas", then "quanto q eu devo no total?" is finance), and without a
   close one ("minha esposa quer mexer no tesouro" then "quanto rendeu?" is finance). A sum
   looked up is the ledger's, not the work it was earned from (:data:`EARNED_FROM`: "quanto
   eu recebi de freela esse ano?" is finance); or
e. speaks of someone already spoken of by a pronoun (:data:`REFERS_TO_SOMEONE`: "ele",
   "dela", "she", "ella") while a people skill is kept
   (:data:`~skills.domain.PEOPLE_SKILLS`): "minha vó opera amanhã" then "queria fazer uma
   oração por ela" is relationships and spiritual; or, firing money alone as "ours" or as an
   amount with no word of the user's own, spends it with or for a close one kept ("minha irmã
   vai casar em maio" then "o vestido custou 600 reais" is finance and relationships; "paguei a
   luz" is the user's own bill); or
h. with no cue either way, is still about a topic kept in the learned opinion's reading
   (:data:`~skills.opinion.LEAN_AT`, a weak lean, not the certainty it needs to add a skill);
   the kept skills then join the fired ones, as in a to e:
   "sou motoboy e machuquei o joelho ontem" then "sem entrega sem dinheiro né, o aluguel vence
   semana que vem" reads the work in it and is finance, health and professional; "gastei 50 no
   mercado" then "corri 5 km hoje" reads nothing of money and is health alone (below).
   Without the opinion (``SKILLS_LEARNED_OPINION=false``) this rule is off; or
i. fires money alone while the user's own work is kept (:data:`~skills.domain.EARNED_FROM`):
   money made or spent while the work is spoken of is the work's too ("comecei a vender
   brigadeiro na facul" then "vendi 40 hj, a 3 reais cada" is finance and professional),
   except one's own pay named (``Cue.ONES_PAY``: "o salário caiu hoje, 3.200" is finance).

The weather, or last night's game, is small talk (``_SMALL_TALK``): naming no one and firing
nothing, it keeps nothing, like a question about the world ("paguei o condomínio" then "nossa,
que calor hoje" is general).

A skill only the learned opinion suggests (:data:`~skills.opinion.LEARNED`: no pattern fired)
counts as a trigger when nothing is kept. While skills are kept it joins them only when the
message refers back (b), or when it is the counselor, a feeling that stays with the topic (c)
in words no pattern names ("meu namorado terminou comigo" then "tô destruído" is counselor and
relationships); otherwise the conversation goes on with them ("corri 5 km" then "log it" is
health, though "log it" alone reads as a ledger's word).

News of a close one (rule g) told by a pronoun, with no word of the user's own, while a
people skill is kept, is theirs: "minha mãe vai operar a vesícula" then "ela tá tranquila, o
médico disse q é simples" is relationships alone; the body and the work it names are hers, as
in the same message (skills.matching, "a close one's"). "ela disse que eu preciso ir ao
médico" speaks of the user and goes by the rules above.

A bare answer (rule f: one word, or one after an article or a preposition: "alimentação",
"de comida") answers the assistant's question, most often an expense's category: while
only domains are kept, a different domain it fires does not replace them ("gastei 87 no
mercado" then "alimentação" is finance). After a feeling it names the cause (c, d), and a
message with a verb ("dormi mal") is a topic of its own.

A message that sets aside a topic still kept ("não quero falar de dinheiro agora" while
finance is active, :data:`~skills.matching.SETS_ASIDE`) leaves that skill behind; the
others stay ("mas não quero falar do meu namorado" after a feeling keeps the counselor),
except a feeling when the message brings a new topic of its own: the feeling went with the topic
set aside ("tô estressado com o trabalho", then "não quero falar de trabalho agora, só queria
dormir melhor" is health alone).

A message that announces a new subject (:data:`CHANGES_TOPIC`, e.g. "mudando de
assunto", "by the way", "cambiando de tema", or one OPENING with "outra coisa:",
:data:`OPENS_NEW_TOPIC`) always replaces, even after a feeling,
and so does any other message that none of a to h joins: "gastei 50 no mercado" then "corri 5 km hoje" is
health alone. When such a message fires nothing, inertia keeps nothing either: "by
the way, any tips?" leaves finance behind. So does a question about the world, asked
with no word of the user's own (:class:`Cue` ``ABOUT_THE_WORLD``: "quantos ossos tem o
corpo humano?" after a feeling is general; "e quantas calorias tem um pão de queijo?"
after work is health alone), and so does asking for a film, a book or a song ("me indica
uma série boa" after venting about work is general).
"""

import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from enum import Enum

from lifeassistant.text import normalize
from skills.domain import (
    COMPANION_SKILLS,
    EARNED_FROM,
    FALLBACK_SKILL,
    LEDGER_SKILLS,
    OWN_LIFE_SKILLS,
    PEOPLE_SKILLS,
    SkillDefinition,
)
from skills.matching import LEDGER_AMOUNT, opens_about_the_world, puts_off
from skills.opinion import LEARNED

DEFAULT_INERTIA_MESSAGES = 5
# What a look-up that fires nothing leaves behind: the feeling and the close one (rule d).
_NOT_LOOKED_UP: frozenset[str] = COMPANION_SKILLS | PEOPLE_SKILLS

# Whole words or phrases (normalized: no accents, lowercase) by which a message ties
# itself to what was said before (Portuguese, English, Spanish). Demonstratives that
# usually start a new time frame ("essa semana", "this morning" would be "this") are
# left out in Portuguese; in English "this"/"that" stay, since a plain "that" most often
# points back, but "this" opening a time frame does not (:data:`THIS_TIME_FRAME`).
REFERS_BACK: tuple[str, ...] = (
    "isso", "disso", "nisso", "com isso", "por isso", "isto", "disto", "aquilo",
    "daquilo", "tambem", "tb", "tbm", "alem disso", "ainda por cima", "e ainda", "fora isso",
    "ao mesmo tempo", "junto com", "piorou",
    "this", "that", "also", "too", "as well", "on top of", "besides",
    "because of it", "at the same time", "for it",
    "eso", "por eso", "esto", "tambien", "tmb", "ademas", "encima", "a la vez", "al mismo tiempo",
)
# Pronouns of someone already spoken of ("minha vó opera amanhã" then "queria fazer uma
# oração por ela"; "my husband..." then "he spent it all at the bar"): they tie the message
# to the people skills still kept (rule e), not to every kept topic ("I went to church"
# then "my grandma was so happy, she's been asking me forever" is no faith of hers).
# Spanish "él" is left out: normalized it is the article "el".
REFERS_TO_SOMEONE: tuple[str, ...] = (
    "ele", "ela", "eles", "elas", "dele", "dela", "deles", "delas", "nele", "nela",
    "he", "she", "him", "her", "ella", "ellas", "ellos",
    # Spanish's "le" of what the user got them ("le compré las pastillas", "le traje la sopa").
    "le compre", "le traje", "le lleve", "les compre",
)
# Phrases announcing a new subject: the message replaces the skills kept by inertia.
CHANGES_TOPIC: tuple[str, ...] = (
    "mudando de assunto", "mudando um pouco de assunto", "trocando de assunto",
    "mudar de assunto", "outro assunto", "nada a ver", "changing the subject",
    "change of subject", "on another note", "unrelated", "by the way", "btw", "anyway",
    "falando em outra coisa", "falando de outra coisa", "cambiando de tema", "otro tema",
    "por cierto", "cambiando de asunto", "hablando de otra cosa",
    "on a different note", "switching gears", "off topic", "random question",
    "pergunta aleatoria", "sem relacao", "alias", "chega disso", "chega desse assunto",
    "enough about that", "enough of that", "basta de eso", "ya no quiero hablar de eso",
    # "Never mind" drops what was being said.
    "deixa pra la", "deixa quieto", "never mind", "nevermind", "olvidalo", "no importa",
    "switching topics", "switching subjects", "changing topics", "new topic", "different topic",
    "mudando o assunto", "trocando o assunto", "cambiando el tema", "otro asunto",
    # Asking to talk of something else ("bora falar de outra coisa: quem ganhou a copa?").
    "falar de outra coisa", "falar sobre outra coisa", "talk about something else",
    "hablar de otra cosa", "hablemos de otra cosa",
)


def _phrases_regex(phrases: Iterable[str]) -> re.Pattern[str]:
    """Return a regex finding any of ``phrases`` as whole words in normalized text."""
    alternatives = sorted((re.escape(phrase) for phrase in phrases), key=len, reverse=True)
    return re.compile(r"(?<!\w)(?:" + "|".join(alternatives) + r")(?!\w)")


# Questions looking up a figure in the user's own records ("quanto eu gastei de gasolina
# essa semana?"): a feeling still kept does not follow such a plain question (rule d).
LOOKS_UP: tuple[str, ...] = (
    "quanto eu gastei", "quanto gastei", "quanto eu paguei", "quanto paguei", "quanto eu recebi",
    "quanto recebi", "quanto ja gastei", "quanto eu ja gastei", "quanto eu bebi", "quanto bebi",
    "quanto eu dormi", "quanto dormi", "quanto eu corri", "quanto corri",
    "how much did i spend", "how much have i spent", "how much did i pay", "how much have i paid",
    "how much did i put on", "how much did i withdraw", "how much did i drink", "how much did i sleep",
    "how much did i run", "how far did i run",
    "cuanto gaste", "cuanto he gastado", "cuanto pague", "cuanto he pagado", "cuanto dormi",
    "cuanto corri", "cuanto bebi",
    # A total or a balance asked for ("quanto foi de mercado esse mês?", "what's my balance?").
    "quanto foi", "quanto deu", "quanto saiu", "quanto tenho na", "quanto tenho no",
    "quanto eu tenho na", "quanto eu tenho no", "qual o meu saldo", "qual meu saldo", "qual e meu saldo",
    "what's my", "whats my", "what is my", "how much do i have", "how much is in my", "how much is left in my",
    "cual es mi saldo", "cuanto tengo en", "cuanto me queda", "cuanto llevo gastado", "quanto me resta",
    # What is in an account of one's own ("quanto tem na minha poupança?"), and what was spent,
    # asked as "we" or in the past ("quanto a gente gastou de fralda?", "what did I spend on takeout?").
    "quanto tem na minha", "quanto tem no meu", "cuanto hay en mi", "quanto a gente gastou", "quanto a gente gasta",
    "what did i spend", "what have i spent",
    # A sum, a balance, a weight or hours of sleep looked up, as people type them ("qto eu
    # torrei de delivery em abril?", "quanto eu pesava em janeiro?", "qtas horas eu dormi?").
    "quanto tenho de saldo", "quanto eu tenho de saldo", "cuanto tengo de saldo", "qual o saldo", "qual e o saldo",
    "cuanta plata tengo", "cuanto dinero tengo", "quanto ficou", "qnto ficou", "quanto torrei", "quanto eu torrei",
    "qto eu torrei", "qto torrei", "quanto ja mandei", "quanto eu ja mandei", "quanto mandei", "qnt eu gastei",
    "qnto eu gastei", "qto eu gastei", "quais contas faltam", "que cuentas me faltan", "which bills are still unpaid",
    "which bills are due", "quais foram minhas ultimas",
    # Instalments left or bills due asked for ("quais parcelas ainda faltam?", "e o que vence essa semana?").
    "quais parcelas", "que parcelas", "o que vence", "oq vence", "o que ainda vence", "what's due", "whats due",
    "what is due", "que cuotas me faltan", "which instalments", "which installments",
    "quanto eu pesava", "quanto pesava", "how much did i weigh", "cuanto pesaba", "quanto eu pesei", "qto eu pesei",
    "quanto pesei", "what was my weight", "qual era meu peso", "qual era o meu peso", "cual era mi peso",
    "qual era meu colesterol", "qual era minha pressao",
    "how many hours did i", "how many steps did i", "how many miles did i", "cuantas horas dormi",
    "quantas horas eu dormi", "quantas horas dormi", "qnts horas dormi", "qntas horas dormi", "qnts horas eu dormi",
    "qtas horas eu dormi", "qtas horas dormi",
    "quanto sobrou", "qnto sobrou", "qnt gastei", "qnto gastei", "qto gastei", "quanto caiu", "qnto caiu",
    # Where the money went, what is left ("¿en qué gasté más este mes?", "what's left in my budget?").
    "en que gaste", "en que mas gaste", "en que he gastado", "com o que eu mais gastei", "com o que mais gastei",
    "com o que eu gastei", "com o que gastei", "onde eu mais gastei", "onde mais gastei", "what did i spend the most on",
    "what did i spend most on", "what's left in my", "whats left in my", "what is left in my", "how much is left",
    "cuanto me sobra",
    # A total and a streak looked up ("qual o total das minhas dívidas?", "quantos dias fiquei
    # sem fumar da última vez?").
    "qual o total", "qual e o total", "what's the total", "whats the total", "cual es el total", "cual es mi total",
    "quantos dias fiquei", "quantos dias eu fiquei", "qtos dias fiquei", "how many days did i", "how many days was i",
    "cuantos dias estuve", "cuantos dias llevo",
    # What one owes, the value of a bill of one's own ("quanto tô devendo no total?", "qual o valor
    # do IPTU?").
    "quanto ainda falta pra quitar", "quanto ainda falta pagar", "quanto falta pagar", "quanto falta pra pagar",
    "quanto me falta pagar", "cuanto me falta pagar", "cuanto falta pagar", "how much is left to pay",
    "quanto falta pra quitar", "quanto to devendo",
    "quanto eu to devendo", "quanto estou devendo", "quanto eu devo no", "quanto devo no", "quanto devo de",
    "quanto devo ao", "how much do i owe", "cuanto debo", "cuanto le debo", "qual o valor da minha",
    "qual o valor do meu",
    # What an investment yielded, what bills are due ("quanto rendeu meu tesouro?").
    "quanto rendeu", "quanto rende", "quanto tem aplicado", "quanto tenho aplicado", "cuanto rindio",
    "cuanto rinde", "quais outras contas", "quais contas vencem", "que cuentas vencen", "what bills are due",
    "quanto ta a fatura", "quanto esta a fatura", "quanto veio a fatura", "quanto ta minha fatura",
)


# Conjunctions by which a message OPENING with them goes on from the last one ("e as
# parcelas...", "but my boss...", "y encima..."); mid-sentence they say nothing.
CONTINUES: tuple[str, ...] = ("e", "mas", "porem", "so que", "and", "but", "plus", "y", "pero")

# English "this" opening a time frame ("this weekend", "this morning") points ahead to a
# new plan, not back to what was said; it is read before looking for a back-reference.
THIS_TIME_FRAME: tuple[str, ...] = tuple(
    f"this {when}"
    for when in (
        "morning", "afternoon", "evening", "weekend", "week", "month", "year", "summer",
        "winter", "spring", "fall", "semester", "monday", "tuesday", "wednesday",
        "thursday", "friday", "saturday", "sunday", "quarter", "fortnight", "term",
    )
)
# English "that" joining a clause to a verb ("remind me that Jake's birthday is on the
# 20th", "I think that...") introduces what follows, not what was said.
THAT_INTRODUCES: tuple[str, ...] = (
    "remind me that", "remember that", "note that", "know that", "think that", "said that",
    "says that", "so that", "now that", "make sure that", "hope that", "wish that",
)
# Phrases that, OPENING a message and followed by a colon or dash, announce a new subject
# ("outra coisa: treinar em jejum emagrece?"); mid-sentence or with a comma they often add
# to the same one ("e outra coisa que me preocupa...").
OPENS_NEW_TOPIC: tuple[str, ...] = ("outra coisa", "otra cosa", "another thing", "uma outra coisa")

_REFERS_BACK = _phrases_regex(REFERS_BACK)
_REFERS_TO_SOMEONE = _phrases_regex(REFERS_TO_SOMEONE)
# Spanish "he" before a participle is "I have" ("¿cuánto he gastado?"), not English "he".
_SPANISH_HE = re.compile(r"(?<!\w)he\s+(?=[a-z]+(?:ado|ido)(?!\w))")
_THIS_TIME_FRAME = _phrases_regex(THIS_TIME_FRAME)
_THAT_INTRODUCES = _phrases_regex(THAT_INTRODUCES)
_OPENS_NEW_TOPIC = re.compile(
    r"^\W*(?:" + "|".join(re.escape(phrase) for phrase in OPENS_NEW_TOPIC) + r")\s*[:,\-\u2013\u2014]"
)
_CONTINUES = re.compile(
    r"^\W*(?:(?:ah|ah sim|ok|tipo)\W+)?(?:" + "|".join(re.escape(word) for word in CONTINUES) + r")(?!\w)"
)
# Thanks for listening closes a vent: what comes after it in the same message is a new
# subject ("obrigada por ouvir. agora me ajuda a montar um treino?"); said alone, it is
# still the vent's last word, and inertia keeps the vent's skills.
CLOSES_A_VENT: tuple[str, ...] = (
    "thanks for listening", "thank you for listening", "obrigado por ouvir", "obrigada por ouvir",
    "obg por ouvir", "valeu por ouvir", "vlw por ouvir", "gracias por escucharme", "gracias por escuchar",
)
_CHANGES_TOPIC = _phrases_regex(CHANGES_TOPIC)
# Going back to an earlier subject is announced the same way ("enfim, voltando pro trabalho: meu
# gestor marcou um 1:1", "anyway, back to my boss", "bueno, volviendo al tema"): what was asked
# in between (a look-up, a digression) is left behind. Only after a word that closes the aside,
# back to "the subject" itself, or to a thing named and followed by a comma: "voltando pra casa
# agora" and "back to work tomorrow" go home and to work.
_RETURNS_TO = re.compile(
    r"^\W*(?:(?:(?:enfim|anyway|bom|bem|entao|mas|but|pero|bueno|ok|so|well|enfin)\W+)+"
    r"(?:voltando|voltando agora|volviendo|volvamos|back|going back|getting back|coming back)\s+"
    r"(?:pro|pra|ao|aos|a|as|para o|para a|al|a la|a lo|to)(?!\w)"
    r"|(?:voltando|volviendo|going back|getting back|back)\s+(?:ao|pro|al|to the)\s+(?:assunto|tema|topic|subject)(?!\w)"
    # ... or opening the message with what it goes back to, then a comma ("Voltando ao grupo de
    # oração, como faço...", "volviendo a lo del trabajo: ..."); going home is no subject.
    r"|(?:voltando|volviendo)\s+(?:ao|a|as|aos|pro|pra|al|a la|a lo)\s+(?!casa\W|home\W)[^,.:;!?]{1,40}[,:]"
    # ... or the return said bare, after an opening word ("enfim, voltando, meu supervisor...").
    r"|(?:(?:enfim|bom|bem|entao|mas|ok|pero|bueno|ya|so|anyway)\W+)+(?:voltando|volviendo)\s*[,:])"
)
_CLOSES_A_VENT = re.compile(_phrases_regex(CLOSES_A_VENT).pattern + r"\W+\w+\W+\w+")
# Dropping the subject just spoken of, then going on to another in the same message ("não
# quero mais falar disso. quanto gastei de uber?"); said alone, it is still that subject's last word.
DROPS_THE_SUBJECT: tuple[str, ...] = (
    "nao quero mais falar disso", "n quero mais falar disso", "nao quero falar mais disso", "chega de falar disso",
    "i don't want to talk about it anymore", "i dont want to talk about it anymore", "let's drop it", "lets drop it",
    "no quiero hablar mas de eso", "no quiero hablar mas del tema",
)
# The phrase ends its sentence ("let's drop it to 3 days a week" lowers a number), and what
# follows names no one spoken of ("não quero mais falar disso, ela nunca vai mudar" goes on).
_DROPS_THE_SUBJECT = re.compile(_phrases_regex(DROPS_THE_SUBJECT).pattern + r"\s*[.!;,]+\s*(\w+\W+\w+.*)")
# The shape most look-ups share, however they are spelled: a question OPENING with "how much"
# or "how many" whose first words name the user ("quanto q eu devo no total?", "how much do we
# have in savings?", "¿cuánto tengo ahorrado?"), or asking what one of the user's figures was
# ("qual foi minha média de sono?", "what was my average?"). The phrases above catch the rest.
_LOOKS_UP_SHAPE = re.compile(
    r"^\W*(?:(?:ok|e ai|entao|so|bueno|oye|hey|ah)\W+)?"
    r"(?:(?:quanto|quanta|quantos|quantas|qto|qnto|qnt|qtos|qtas|cuanto|cuanta|cuantos|cuantas|how much|how many)"
    # A figure of the records, not a while to bear ("quanto tempo eu vou aguentar?", "how many
    # nights do I have to lie awake?", "¿cuánto más tengo que aguantar?").
    r"\W+(?:(?!(?:tempo|time|tiempo|mais|more|mas|longer|dias|days|noites|nights|noches|vezes|times|veces)\W)[\w']+\W+){0,3}?"
    r"(?:devo|tenho|temos|gastei|gastamos|paguei|recebi|ganhei|guardei|juntei|economizei|gastando|pagando|devendo|"
    r"ganhando|recebendo|owe|have|spent|paid|earned|spending|made|fiz|faturei|fizemos|hice|"
    # ... or what a thing costs the user now ("quanto eu gasto de aluguel aqui?", "quanto pago de luz?").
    r"gasto|pago|ganho|recebo|gano|"
    # ... or what came in, was left or was given ("quanto entrou de salário?", "quanto eu dei de oferta?").
    r"entrou|caiu|sobrou|rendeu|dei|doei|"
    r"saved|tengo|tenemos|debo|llevo|gaste|pague|gane|ahorre|ahorrado|"
    # ... or what the body did, recorded ("quantos passos eu andei hoje?", "¿cuántos pasos caminé?").
    r"andei|caminhei|corri|dormi|bebi|tomei|comi|nadei|pedalei|walked|ran|slept|drank|ate|swam|camine|dormi|corri|bebi|tome|nade|"
    # ... asked with "did I" in English ("how many km did I run last week?").
    r"run|walk|sleep|drink|swim|spend|pay|earn|make|save|lose|gain|lost|gained|weigh)"
    # ... and not one to bear or a "should" ("how much do I have to take?", "quantas horas eu devo
    # dormir?"), unless what follows is paid or saved ("quanto tenho q guardar por mês?").
    r"(?!\W+(?:(?:to|que|q)\W+|de\W+(?=[a-z]+(?:ar|er|ir)(?!\w))|(?=[a-z]+(?:ar|er|ir)(?!\w)))"
    r"(?!(?:pagar|guardar|juntar|economizar|poupar|pay|save|ahorrar)(?!\w)))"
    # What one of the user's figures was ("qual foi minha média de sono?", "what was my total?").
    r"|(?:qual|quais|what|cual|cuales)\W+(?:foi|foram|era|eram|was|were|fue|fueron)\W+(?:o\W+|a\W+)?"
    r"(?:meu|minha|meus|minhas|my|mi|mis)\W+(?:media|total|saldo|peso|gasto|gastos|average|balance|weight|"
    r"spending|promedio)"
    # Which bills are still open ("quais contas eu ainda tenho pendentes?", "what bills do I still have left?").
    r"|(?:quais|que|what|which|cuales)\W+(?:contas|boletos|parcelas|bills|payments|cuentas|facturas)\W+"
    r"(?:[\w']+\W+){0,3}?(?:tenho|have|tengo|devo|owe|debo)"
    # When the user last did a thing recorded ("quando foi minha última consulta?", "when was my last run?").
    r"|(?:quando|when|cuando)\W+(?:foi|was|fue)\W+(?:a\W+|o\W+|la\W+|el\W+)?(?:minha|meu|my|mi)\W+"
    r"(?:ultima|ultimo|last))(?!\w)"
)
_LOOKS_UP = re.compile(_phrases_regex(LOOKS_UP).pattern + "|" + _LOOKS_UP_SHAPE.pattern)
# Asking for a film, a series, a book or a song to enjoy ("can you suggest a good movie?",
# "me indica uma série"): leisure asked for starts afresh, like a question about the world.
_ASKS_FOR_LEISURE = re.compile(
    r"(?<!\w)(?:suggest|recommend|recomenda|recomende|indica|indique|sugere|sugira|recomienda|recomiendame|"
    r"recomiendas|recomendas|sugiere|sugiereme|sugieres)(?!\w)(?:\W+[\w'-]+){0,4}?\W+(?:movie|movies|film|films|filme|filmes|serie|series|"
    r"show|shows|book|books|livro|livros|musica|musicas|song|songs|podcast|pelicula|peliculas|libro|libros|"
    r"game|games|jogo|jogos|anime|novela|novelas)(?!\w)"
)
# The same asked noun first ("any good sci-fi movie recommendations?", "indicação de filme?").
_LEISURE_SUGGESTIONS = re.compile(
    r"(?<!\w)(?:movie|film|book|series|show|song|podcast|game|anime)s?\W+(?:[\w'-]+\W+){0,1}?"
    r"(?:recommendations?|suggestions?|recs|ideas?)(?!\w)"
    # ... or asked by one liked ("any sci-fi books like Project Hail Mary?", "filmes parecidos com").
    r"|(?<!\w)(?:movies|films|books|shows|series|songs|podcasts|games|filmes|livros|musicas|jogos|peliculas|"
    r"libros|canciones)\W+(?:like|parecidos?\W+com|tipo|como)(?!\w)"
    r"|(?<!\w)(?:indicacao|indicacoes|sugestao|sugestoes|dica|dicas|recomendacao|recomendacoes|recomendacion|"
    r"recomendaciones|sugerencia|sugerencias)\W+(?:de|para)\W+(?:um\W+|uma\W+|un\W+|una\W+)?(?:filme|filmes|"
    r"serie|series|livro|livros|musica|musicas|podcast|pelicula|peliculas|libro|libros|anime|novela|novelas|jogo|jogos)(?!\w)"
    # ... or a good one asked for ("what's a good movie tonight?", "algum filme bom pra hoje?", "¿una buena
    # película para ver?").
    r"|^\W*(?:(?:and|e|y|ok|so|entao)\W+)?(?:what's|whats|what is|any|qual|qual e|qual o|algum|alguma|um|uma"
    r"|cual es|alguna|alguno|una|un)\W+(?:a\W+|um\W+|uma\W+|una\W+|un\W+)?(?:(?:good|great|bom|boa|buen|buena)\W+)?"
    r"(?:movie|film|book|series|show|podcast|filme|livro|serie|pelicula|libro)s?\W+"
    r"(?:(?:bom|boa|buena|bueno)\W+)?(?:to watch|to read|tonight|for tonight|pra hoje|para hoje|pra ver|para ver|pra ler"
    r"|para leer|para hoy|para esta noche|hoje|hoy)(?!\w)"
    r"|(?<!\w)(?:good|great)\s+(?:movie|film|book|series|show|podcast)s?\s+(?:to watch|to read|tonight|for tonight)(?!\w)"
)
# A recipe asked for starts afresh like leisure ("me passa uma receita de brigadeiro?", "what's a
# good apple pie recipe?"), not a prescription ("receita de remédio", "receta de lentes") nor
# revenue ("receita de 5 mil", "receita de vendas").
_ASKS_FOR_A_RECIPE = re.compile(
    r"(?<!\w)recipes?(?!\s+for\s+(?:disaster|success|trouble))(?!\w)"
    # Asked for ("me passa uma receita de...", "¿me pasas una receta de...?"), not an idiom ("não
    # existe receita de bolo") nor a figure ("a receita de março foi 8 mil").
    r"|(?<!\w)(?:me passa|passa|me manda|manda|tem|sabe|conhece|me da|me de|me ensina|ensina|quero|queria|pasame|"
    r"me pasas|dame|tienes|sabes|me ensenas|quiero|queria)\s+(?:uma\s+|alguma\s+|una\s+|alguna\s+|a\s+)?"
    r"(?:receita|receitinha|receta|recetita)\s+(?:de|pra|para|com|con)\s+"
    r"(?!(?:\d|remedio|remedios|oculos|lente|lentes|medicamento|medicamentos|antibiotico|controle|controlado|controlada|"
    r"renovar|comprar|venda|vendas|ventas|servico|servicos|mais)(?!\w))"
)
# The weather, small talk of the world ("que calor que tá fazendo hoje", "vc acha que chove no
# fds?", "is it going to rain tomorrow?"), naming no one: when it fires nothing, inertia keeps
# nothing for it. A topic fired in the same message answers as ever ("que calor, não aguento
# mais"), and "vai chover no dia que ela chega" goes on about her ("frio na barriga", "chover no
# molhado" are idioms of other things).
_SMALL_TALK = re.compile(
    _phrases_regex((
        "que calor", "que frio", "calor de rachar", "frio de rachar", "vai chover", "chove no", "chove hoje",
        "chove amanha", "chover no", "chover hoje", "chover amanha", "will it rain", "is it going to rain",
        "gonna rain", "so hot today", "so cold today", "va a llover", "que calor hace", "que frio hace",
        "hace un calor", "hace un frio", "llueve manana",
        # As typed ("aff q calor hj"), and fair weather ("qué buen clima hace hoy").
        "q calor", "q frio", "que calorao", "que buen clima", "buen clima hace", "hace buen tiempo", "nice weather",
        # The forecast ("qual a previsão do tempo pra amanhã?", "vai ter vento forte essa semana?").
        "previsao do tempo", "vai ter vento", "vai ventar", "weather forecast", "what's the weather",
        "whats the weather", "pronostico del tiempo", "pronostico para manana",
        # Last night's game ("vc viu o jogo do corinthians ontem?").
        "viu o jogo", "assistiu o jogo", "did you see the game", "did you watch the game", "viste el partido",
    )).pattern
    + r"(?!\s+(?:na barriga|no molhado|en la panza|na espinha))"
)
# The user and someone together ("el piso cuesta 950 y lo pagamos a medias", "we split the
# rent", "a gente divide"). "nossa" is left out (an exclamation), "nos" (also "in the"), "vamos"
# ("let's") and "-imos" adjectives ("últimos", "próximos").
_SPEAKS_OF_US = re.compile(
    r"(?<!\w)(?:a gente|we|we're|we've|weve|we'll|we'd|our|nosso|nossos|nosotros|nosotras|nuestro|nuestra|"
    r"nuestros|nuestras|(?!(?:vamos|gramos|tramos|ramos|extremos|supremos)(?!\w))[a-z]{2,}(?:amos|emos))(?!\w)"
)
# A joke or a riddle asked for ("me conta uma piada?", "tell me a dad joke", "cuéntame un
# chiste"): the "me" of the request is no word of the user's own life.
_ASKS_FOR_A_JOKE = re.compile(
    r"^\W*(?:(?:ah|ok|entao|so|then|bueno|pues|agora|now|ahora)\W+)?(?:me\W+)?(?:conta|conte|contar|tell|cuenta|"
    r"cuentame|contame|manda|mande|sabe|know|dime|fala|solta)(?:\W+me)?(?:\W+[\w'-]+){0,3}?\W+"
    r"(?:piada|piadas|piadinha|joke|jokes|chiste|chistes|charada|riddle|trocadilho|pun|puns"
    # ... or a curious fact, as a pause from what was said ("me conta uma curiosidade qualquer",
    # "tell me a fun fact", "cuéntame un dato curioso").
    r"|curiosidade|curiosidades|fun fact|fun facts|random fact|dato curioso|datos curiosos|curiosidad)(?!\w)"
)
# Words by which a message speaks of the user (or of "us"): a question holding one is
# about the user's own life, never trivia ("quantos dias eu tenho de férias?").
_OF_ONESELF = _phrases_regex((
    "eu", "meu", "minha", "meus", "minhas", "me", "mim", "comigo", "a gente", "nosso", "nossa",
    "i", "i'm", "im", "my", "mine", "myself", "we", "our", "us",
    "yo", "mi", "mis", "conmigo", "nuestro", "nuestra",
))


# "Nossa!" is an exclamation before a question, not "our" ("nossa, quantos ossos tem o corpo humano?").
_EXCLAIMED = re.compile(r"^\W*nossa\W+")
# Verbs that say "I" with no pronoun, as Portuguese and Spanish do ("fui ao médico com ela",
# "queria rezar por ela", "tengo que llevarla"): news told with one is the user's too. "tô"
# is left out: folded, it is English "to".
_I_DO = _phrases_regex((
    "tou", "estou", "tava", "estava", "fui", "fiz", "tenho", "tive", "vou", "queria", "quero", "preciso",
    "acho", "sinto", "senti", "estoy", "estaba", "tengo", "tuve", "voy", "quiero", "necesito", "hice",
    "siento", "soy", "sou",
))


# Beside a Portuguese pronoun, "tô" (folded "to") and the first person of the past ("comecei",
# "fiquei", "dormi", "pedi") say "I" too: "ela disse que tô magra", "depois da briga com ela
# não dormi nada".
_PORTUGUESE_PRONOUN = _phrases_regex(("ele", "ela", "eles", "elas", "dele", "dela", "deles", "delas", "nele", "nela"))
_I_DID_PT = re.compile(
    r"(?<!\w)(?:to|\w+ei|dormi|comi|bebi|corri|pedi|perdi|consegui|vi|ouvi|sai|cai|fugi|menti|sofri)(?!\w)"
)


# An amount stated ("custou 600", "$280", "950 al mes").
_AN_AMOUNT = re.compile(r"\d")
# One's own pay, named ("o salário caiu", "payday", "hoy cobré la jubilación"): the ledger's
# alone, even while the work it is earned from is spoken of (docs/routing-labelling.md: "payday
# / a salary received is finance").
_ONES_PAY = _phrases_regex((
    "salario", "salarios", "sueldo", "pagamento", "holerite", "contracheque", "proventos", "aposentadoria",
    "13o", "decimo terceiro", "paycheck", "payday", "salary", "wages", "pension", "jubilacion", "aguinaldo",
    "quincena",
))
# Spanish money verbs in the first person of the past, which fold into other words' shape
# ("pagué la luz", "gasté 200").
_I_PAID_ES = _phrases_regex(("pague", "gaste", "compre", "recibi", "cobre", "transferi", "deposite", "saque", "ahorre"))


def _of_the_user(normalized: str) -> bool:
    """Whether ``normalized`` holds a word or a verb by which it speaks of the user ("meu",
    "I", "paguei", "tengo")."""
    return bool(
        _OF_ONESELF.search(normalized)
        or _I_DO.search(normalized)
        or _I_DID_PT.search(normalized)
        or _I_PAID_ES.search(normalized)
    )


def _is_their_news(normalized: str) -> bool:
    """Whether ``normalized``, speaking of a close one, holds no word or verb of the user's
    own (rule g)."""
    if _OF_ONESELF.search(normalized) or _I_DO.search(normalized):
        return False
    return not (_PORTUGUESE_PRONOUN.search(normalized) and _I_DID_PT.search(normalized))


def _drops_the_subject(normalized: str) -> bool:
    """Whether ``normalized`` drops the subject and goes on to another (:data:`DROPS_THE_SUBJECT`)."""
    found = _DROPS_THE_SUBJECT.search(normalized)
    return found is not None and not _REFERS_TO_SOMEONE.search(found.group(1))


class Cue(Enum):
    """What a message says about the conversation's topic, read from its wording."""

    NONE = "none"
    REFERS_BACK = "refers_back"
    CHANGES_TOPIC = "changes_topic"
    ABOUT_THE_WORLD = "about_the_world"
    LOOKS_UP = "looks_up"
    REFERS_TO_SOMEONE = "refers_to_someone"
    THEIR_NEWS = "their_news"
    SMALL_TALK = "small_talk"
    SHARED_COST = "shared_cost"
    BARE_ANSWER = "bare_answer"
    ONES_PAY = "ones_pay"


def topic_cue(text: str) -> Cue:
    """Tell whether ``text`` announces a new subject, asks about the world, refers back
    (or opens with a conjunction, which ties it to the last message the same way), looks
    up a figure in the user's records (:data:`LOOKS_UP`), or none of these.

    An announced change wins over a back-reference ("mudando de assunto, isso..."), and
    a back-reference over a look-up ("e quanto gastei com isso?"). A question about the
    world (:func:`~skills.matching.opens_about_the_world`) counts only with no word of
    the user's own and none referring back: "ah, e quantos ml tem uma xícara?" is trivia,
    "e quantos dias eu tenho de férias?" and "quantos reais tem nisso?" are not. Asking
    for a film, a book or a song to enjoy counts the same ("can you suggest a good movie?").
    The weather, naming no one, is small talk; an amount stated as "ours", or with no word of
    the user's own ("o vestido custou 600"), may be a close one's cost (``SHARED_COST``), and one's
    own pay named ("o salário caiu") is the ledger's alone (``ONES_PAY``).
    """
    normalized = normalize(text)
    if (
        _CHANGES_TOPIC.search(normalized)
        or _OPENS_NEW_TOPIC.search(normalized)
        or _RETURNS_TO.search(normalized)
        or _CLOSES_A_VENT.search(normalized)
        or _drops_the_subject(normalized)
        or puts_off(normalized) is not None
    ):
        return Cue.CHANGES_TOPIC
    refers_back = bool(_REFERS_BACK.search(_THAT_INTRODUCES.sub(" ", _THIS_TIME_FRAME.sub(" ", normalized))))
    speaks_of_someone = bool(_REFERS_TO_SOMEONE.search(_SPANISH_HE.sub(" ", normalized)))
    if not refers_back and (
        (opens_about_the_world(normalized) and not _OF_ONESELF.search(_EXCLAIMED.sub("", normalized)))
        or _ASKS_FOR_LEISURE.search(normalized)
        or _LEISURE_SUGGESTIONS.search(normalized)
        or _ASKS_FOR_A_JOKE.search(normalized)
        # A recipe for someone spoken of goes on about them ("uma receita sem sal pra ele").
        or (_ASKS_FOR_A_RECIPE.search(normalized) and not speaks_of_someone)
    ):
        return Cue.ABOUT_THE_WORLD
    if refers_back or _CONTINUES.search(normalized):
        return Cue.REFERS_BACK
    if speaks_of_someone:
        return Cue.THEIR_NEWS if _is_their_news(normalized) else Cue.REFERS_TO_SOMEONE
    if _LOOKS_UP.search(normalized):
        return Cue.LOOKS_UP
    if _SMALL_TALK.search(normalized) and not _OF_ONESELF.search(_EXCLAIMED.sub("", normalized)):
        return Cue.SMALL_TALK
    if _is_bare_answer(normalized):
        return Cue.BARE_ANSWER
    if _ONES_PAY.search(normalized) and not _SPEAKS_OF_US.search(normalized):
        return Cue.ONES_PAY
    if _SPEAKS_OF_US.search(normalized) or (_AN_AMOUNT.search(normalized) and not _of_the_user(normalized)):
        return Cue.SHARED_COST
    return Cue.NONE


# A word that may come before a bare answer's noun ("de comida", "no mercado", "for food").
_BEFORE_AN_ANSWER = frozenset({
    "a", "o", "as", "os", "de", "da", "do", "na", "no", "em", "com", "pra", "para", "um", "uma",
    "the", "for", "on", "in", "el", "la", "los", "las", "en", "con", "un", "una",
})


# A category given as an order ("sí, ponlo en comida", "coloca em alimentação", "file it under food").
_FILES_UNDER = re.compile(
    r"^\W*(?:(?:sim|si|yes|ok|okay|isso|claro|pode|sure|yeah|yep|dale)\W+)*(?:ponlo|ponla|pon|poe|coloca|coloque|"
    r"bota|put it|file it|lanca|lanza|anota|registra)\W+(?:en|em|na|no|in|under|como|as)\W+"
)


def _is_bare_answer(normalized: str) -> bool:
    """One word, or one after an article or a preposition ("alimentação", "de comida"), maybe
    filed as an order ("ponlo en comida"): the answer to the assistant's question (an
    expense's category), not a topic of its own."""
    words = re.findall(r"[\w'-]+", _FILES_UNDER.sub("", normalized))
    return len(words) == 1 or (len(words) == 2 and words[0] in _BEFORE_AN_ANSWER)


@dataclass(frozen=True)
class InertiaState:
    """What a conversation remembers between messages about its active skills."""

    active_skills: tuple[str, ...]
    last_detected_at: datetime | None
    messages_since_detection: int
    # Per active skill, in order, the messages since it last fired; empty when every one fired
    # at the last detection. A skill carried along by combinations lapses by it ("Lapse").
    quiet_for: tuple[int, ...] = ()

    def quiet(self) -> dict[str, int]:
        """The messages since each active skill last fired, by name; 0 for one without a count
        (every skill fired at the last detection, or a state written before the counts were)."""
        counts = self.quiet_for
        return {name: counts[index] if index < len(counts) else 0 for index, name in enumerate(self.active_skills)}


EMPTY_STATE = InertiaState(active_skills=(), last_detected_at=None, messages_since_detection=0)


@dataclass(frozen=True)
class Decision:
    """The active skills for one message, why they are active, and the state to keep.

    ``matched`` holds every trigger that fired, including those of skills the user's
    preferences then excluded, so logs can tell why a skill stayed off.
    """

    active: tuple[SkillDefinition, ...]
    reason: str
    matched: dict[str, tuple[str, ...]]
    state: InertiaState


def is_allowed(skill: SkillDefinition, preferences: Mapping[str, bool], disabled: Collection[str] = ()) -> bool:
    """Tell whether ``skill`` is enabled, not turned off by the user (``disabled``; the
    fallback skill cannot be), and its required preference, if any, is on."""
    if not skill.enabled or (skill.name in disabled and skill.name != FALLBACK_SKILL):
        return False
    required = skill.requires_user_preference
    return required is None or bool(preferences.get(required))


def by_priority(skills: Iterable[SkillDefinition]) -> tuple[SkillDefinition, ...]:
    """Return ``skills`` ordered by priority (lowest number first), then by name."""
    return tuple(sorted(skills, key=lambda skill: (skill.priority, skill.name)))


def decide(
    skills: Sequence[SkillDefinition],
    matches: Mapping[str, Sequence[str]],
    state: InertiaState,
    *,
    now: datetime,
    preferences: Mapping[str, bool] | None = None,
    inertia_messages: int = DEFAULT_INERTIA_MESSAGES,
    explicit: str | None = None,
    routed: str | None = None,
    cue: Cue = Cue.NONE,
    set_aside: Collection[str] = (),
    leaning: Collection[str] = (),
) -> Decision:
    """Decide the active skills for one message (see the module docstring for the rules).

    ``cue`` is :func:`topic_cue` of the message; it only matters for combination.
    ``set_aside`` names the skills whose topic the message sets aside
    (:meth:`~skills.matching.TriggerMatcher.set_aside`): inertia does not keep them.
    ``leaning``: the skills the learned opinion leans to (:meth:`~skills.matching.TriggerMatcher.reading`):
    a kept one among them is a topic the message goes on with (rule h).
    """
    allowed = {
        skill.name: skill for skill in skills if is_allowed(skill, preferences or {})
    }
    matched = {name: tuple(patterns) for name, patterns in matches.items() if patterns}
    triggered = [allowed[name] for name in matched if name in allowed]

    if explicit is not None and explicit in allowed:
        forced = {allowed[explicit], *triggered}
        return _detection(by_priority(forced), "explicit", matched, now)
    kept = (
        ()
        if cue in (Cue.CHANGES_TOPIC, Cue.ABOUT_THE_WORLD) or (cue is Cue.SMALL_TALK and not triggered)
        else _kept_by_inertia(state, allowed, inertia_messages, set_aside)
    )
    if kept and triggered and cue is not Cue.REFERS_BACK and _only_learned(matched) and not _only_companions(triggered):
        # The learned opinion does not interrupt a conversation (see the module's docstring);
        # a feeling it reads joins the topic kept (rule c).
        triggered = []
    if (
        triggered
        and set(set_aside) & set(state.active_skills)
        and not any(skill.name in state.active_skills for skill in triggered)
    ):
        # The feeling goes with the topic set aside: "tô estressado com o trabalho", then
        # "não quero falar de trabalho agora, só queria dormir melhor" is health alone.
        kept = tuple(skill for skill in kept if skill.name not in COMPANION_SKILLS)
    if triggered and kept and cue is Cue.BARE_ANSWER and _answers_within(triggered, kept):
        triggered = []  # rule f: the answer names no topic of its own
    if kept and _only_an_amount(matched) and not any(skill.name in LEDGER_SKILLS for skill in kept):
        triggered = []  # an amount with no sign goes on with the topic kept ("me pesei", "deu 72,45")
    if triggered and kept and cue is Cue.THEIR_NEWS and _told_of_them(triggered, kept):
        triggered = []  # rule g: the body or the work named is the close one's
    if cue is Cue.LOOKS_UP and any(skill.name in LEDGER_SKILLS for skill in triggered):
        # A sum looked up is the ledger's, not the work it was earned from ("quanto eu recebi de
        # freela esse ano?" is finance); what it was spent on is the ledger's category, read by no
        # skill of the body (skills.matching: "quanto gastei na academia?" is finance).
        triggered = [skill for skill in triggered if skill.name not in EARNED_FROM]
    if triggered:
        if kept and _topics_co_occur(triggered, kept, cue, leaning):
            return _combination(kept, triggered, state, matched, now)
        return _detection(by_priority(triggered), "trigger", matched, now)

    if kept and cue is Cue.LOOKS_UP and any(skill.name not in _NOT_LOOKED_UP for skill in kept):
        # A figure looked up is the records' own, not the feeling's nor a close one's, even in
        # words no pattern knows ("tô ansiosa", "as parcelas tão atrasadas", then "quanto q eu
        # devo no total?"; "minha esposa quer mexer no tesouro", then "quanto rendeu?").
        kept = tuple(skill for skill in kept if skill.name not in _NOT_LOOKED_UP)
        if any(skill.name in LEDGER_SKILLS for skill in kept):
            # ... nor the work that earned it ("peguei uma encomenda de 30 vestidos", "o cliente
            # pagou 2.250 de sinal", then "quanto recebi de costura no mês passado?" is finance).
            kept = tuple(skill for skill in kept if skill.name not in EARNED_FROM)
    if kept:
        return Decision(
            active=kept,
            reason="inertia",
            matched=matched,
            state=InertiaState(
                active_skills=tuple(skill.name for skill in kept),
                last_detected_at=state.last_detected_at,
                messages_since_detection=state.messages_since_detection + 1,
                quiet_for=tuple(state.quiet().get(skill.name, 0) + 1 for skill in kept),
            ),
        )

    routed_skill = allowed.get(routed) if routed is not None else None
    return Decision(
        active=_fallback(allowed) if routed_skill is None else (routed_skill,),
        reason="fallback" if routed_skill is None else "router",
        matched=matched,
        state=InertiaState(
            active_skills=(FALLBACK_SKILL,),
            last_detected_at=state.last_detected_at,
            messages_since_detection=state.messages_since_detection + 1,
        ),
    )


def _only_companions(triggered: Sequence[SkillDefinition]) -> bool:
    """Whether every skill fired is a companion (the counselor), which joins a topic kept."""
    return all(skill.name in COMPANION_SKILLS for skill in triggered)


def _only_learned(matched: Mapping[str, Sequence[str]]) -> bool:
    """Whether no pattern fired: every skill matched was suggested by the learned opinion."""
    return all(tuple(patterns) == (LEARNED,) for patterns in matched.values())


def _detection(
    active: tuple[SkillDefinition, ...],
    reason: str,
    matched: dict[str, tuple[str, ...]],
    now: datetime,
) -> Decision:
    """Return a decision for freshly detected skills, restarting the inertia count."""
    return Decision(
        active=active,
        reason=reason,
        matched=matched,
        state=InertiaState(
            active_skills=tuple(skill.name for skill in active),
            last_detected_at=now,
            messages_since_detection=0,
        ),
    )


def _combination(
    kept: Sequence[SkillDefinition],
    triggered: Sequence[SkillDefinition],
    state: InertiaState,
    matched: dict[str, tuple[str, ...]],
    now: datetime,
) -> Decision:
    """The fired skills joined to the kept ones: a detection whose kept skills go on counting
    the messages since they last fired (see "Lapse")."""
    fired = {skill.name for skill in triggered}
    quiet = state.quiet()
    decision = _detection(by_priority({*kept, *triggered}), "combined", matched, now)
    quiet_for = tuple(0 if name in fired else quiet.get(name, 0) + 1 for name in decision.state.active_skills)
    return replace(decision, state=replace(decision.state, quiet_for=quiet_for if any(quiet_for) else ()))


def _topics_co_occur(
    triggered: Sequence[SkillDefinition], kept: Sequence[SkillDefinition], cue: Cue, leaning: Collection[str] = ()
) -> bool:
    """Tell whether the fired skills join the kept ones (rules a to i of the docstring);
    a look-up asks its own domain alone, and after an announced new subject nothing is
    kept, so this is not asked."""
    if cue is Cue.LOOKS_UP:
        return False
    fired = {skill.name for skill in triggered}
    return (
        bool(fired & {skill.name for skill in kept})
        or cue is Cue.REFERS_BACK
        or not fired.isdisjoint(COMPANION_SKILLS)
        or any(skill.name in COMPANION_SKILLS for skill in kept)
        or (
            cue in (Cue.REFERS_TO_SOMEONE, Cue.THEIR_NEWS)
            and any(skill.name in PEOPLE_SKILLS for skill in kept)
        )
        # An amount spent while a close one is spoken of, as "ours" or with no word of the user's
        # own, is spent with or for them ("mi novio y yo nos vamos a vivir juntos", then "el piso cuesta
        # 950 y lo pagamos a medias"; "my sister is getting married", then "the dress alone is
        # $280"); "paguei a luz" is the user's own bill.
        or (
            cue is Cue.SHARED_COST
            and fired <= LEDGER_SKILLS
            and any(skill.name in PEOPLE_SKILLS for skill in kept)
        )
        # Rule h: the learned opinion still reads a kept topic in the message.
        or (cue is Cue.NONE and any(skill.name in leaning for skill in kept))
        # Rule i: money made or spent while the work is spoken of is the work's too ("comecei a
        # vender brigadeiro na facul", then "vendi 40 hj, a 3 reais cada"; "a prefeitura deu prazo
        # pra renovar o alvará", then "paguei 280 da taxa"), except one's own pay.
        or (
            cue is not Cue.ONES_PAY
            and fired <= LEDGER_SKILLS
            and any(skill.name in EARNED_FROM for skill in kept)
        )
    )


def _answers_within(triggered: Sequence[SkillDefinition], kept: Sequence[SkillDefinition]) -> bool:
    """Whether a bare answer stays within the domains kept (rule f): only domains are
    kept and fired, none of them the same. After a feeling, "trabalho" names its cause."""
    fired = {skill.name for skill in triggered}
    names = {skill.name for skill in kept}
    return fired.isdisjoint(names) and fired.isdisjoint(COMPANION_SKILLS) and names.isdisjoint(COMPANION_SKILLS)


def _only_an_amount(matched: Mapping[str, Sequence[str]]) -> bool:
    """Whether all that fired is an amount with cents and no currency sign
    (:data:`~skills.matching.LEDGER_AMOUNT`)."""
    return bool(matched) and all(tuple(patterns) == (LEDGER_AMOUNT,) for patterns in matched.values())


def _told_of_them(triggered: Sequence[SkillDefinition], kept: Sequence[SkillDefinition]) -> bool:
    """Whether news of a close one stays theirs (rule g): a people skill is kept and only
    skills of the user's own life fired."""
    return any(skill.name in PEOPLE_SKILLS for skill in kept) and all(
        skill.name in OWN_LIFE_SKILLS for skill in triggered
    )


def _kept_by_inertia(
    state: InertiaState,
    allowed: Mapping[str, SkillDefinition],
    inertia_messages: int,
    set_aside: Collection[str] = (),
) -> tuple[SkillDefinition, ...]:
    """Return the previously active skills that inertia still keeps, if any: not those
    whose topic the message sets aside."""
    if state.messages_since_detection >= inertia_messages:
        return ()
    if set(state.active_skills) <= {FALLBACK_SKILL}:
        return ()
    quiet = state.quiet()
    return by_priority(
        allowed[name]
        for name in state.active_skills
        # A skill carried along by combinations lapses as one kept alone would ("Lapse").
        if name in allowed and name not in set_aside and quiet[name] < inertia_messages
    )


def _fallback(allowed: Mapping[str, SkillDefinition]) -> tuple[SkillDefinition, ...]:
    """Return the fallback skill, or nothing when it is missing or disabled."""
    general = allowed.get(FALLBACK_SKILL)
    return (general,) if general is not None else ()
