"""Trigger matching: which skills does a user message mention?

Pattern syntax
--------------
Matching ignores case and accents, in the pattern and in the message alike:
``divida`` matches "Dívidas", ``coração`` matches "CORACAO".

``gast``
    A plain pattern matches at the START of a word: it fires on "gastei" and
    "gastos", never inside a word (``briga`` does not fire on "obrigado"). A number
    glued to a word is read as two words: ``=kg`` fires on "perder 5kg".
``=fé``
    A pattern starting with ``=`` matches only a WHOLE word: ``=pai`` fires on
    "meu pai" but not on "paisagem"; ``=mae`` fires on "mãe" but not on "maestro".
``não sei o que fazer``
    A pattern with spaces is a phrase: its words must follow each other in the
    message (any run of spaces, tabs or line breaks counts as one space). The phrase
    starts at the start of a word, and its last word is a prefix again unless the
    pattern starts with ``=``: ``=me sinto só`` does not fire on "me sinto sozinho".
``!na promoção``
    A pattern starting with ``!`` is an EXCLUSION: where it matches, the skill's
    other patterns that match any of the same text do not fire there. With
    ``=promoção`` and ``!na promoção``, "ganhei uma promoção" fires and "comprei na
    promoção" does not; with ``=um aumento`` and ``!aumento de peso``, "tive um aumento
    de peso" does not fire either, since the two overlap.
    An exclusion never fires the skill by itself; after the ``!`` comes any plain,
    ``=`` or phrase pattern.
``insônia | =sono & por causa | because & @finance``
    A COMPOUND pattern: parts joined by `` & `` must all be found in the message, in
    any order; a part lists alternatives joined by `` | ``, one of which is enough.
    An alternative is a pattern as above, or ``@skill``, which is found when that
    skill's own plain patterns fired on the message. So the example, in the counselor
    skill, fires the counselor for "insônia por causa das dívidas" (health and
    finance fire by their own patterns) but not for "insônia" or "dívidas" alone.
    Compound patterns do not chain: ``@skill`` never counts another compound.

A pet's body is not the user's: up to eight words after a pet ("meu cachorro está
vomitando", "my cat isn't eating": :data:`PETS`) are not read by the skills of the user's
own body (``OWN_BODY_SKILLS``, health). Nor is a close one's, told in the third person
("meu pai foi internado com pneumonia", "a cirurgia da minha mãe": :data:`RELATIVES`), and
a close one's work is not the user's either: those words are not read by the skills of the
user's own life (``OWN_LIFE_SKILLS``, health and professional: "meu marido foi demitido").
How a close one feels, told the same way, is theirs too: the companion skills (the counselor)
do not hear it ("meu irmão tá com depressão"; :func:`close_one_spans`), but the user's feeling
about them ("raiva do meu cunhado") and a close one's death, the user's grief, they do.
Food paid for is an expense's category, not the diet: in "gasté 450 pesos en la comida" the
skills of the body do not hear "comida" (:func:`food_paid_for_spans`).
One's trade told is the job's: in "sou médica" or "I'm a registered nurse" only the skills of
work (``TRADE_SKILLS``) hear the trade, and a trade told with no other topic fires them
(:func:`trade_spans`, :data:`TRADE_TOLD`).

A topic the user sets aside fires nothing: in "não quero falar de trabalho hoje" or
"I don't want to talk about money", up to three words after the phrase (:data:`SETS_ASIDE`),
up to a punctuation mark, are skipped by every skill, whatever its patterns. A second topic
joined to the first is set aside too ("no quiero hablar de plata ni de trabajo", "money or
work": :data:`SET_ASIDE_JOINS`), and a feeling after the comma is heard ("não quero falar
de trabalho, tô me sentindo um lixo"). So are a question about history or public figures and up
to eight words after it (:data:`ABOUT_THE_WORLD`: "quem inventou o cartão de crédito?", "who
came up with credit scores?"), and a subject put off as the message opens ("esquece a proposta
por enquanto, ...", "deixa as contas pra lá, ...", "never mind the budget, ...").

A ledger line, a purchase noted as in a notebook, a few words and an amount with its cents
or its currency sign ("mercado 187,40", "uber R$ 23", "coffee $4.75", "farmácia 45,90"), is an
expense: the skills that keep the user's accounts (``LEDGER_SKILLS``, finance) hear it, and
its words are the expense's category, so no other skill does, but a person it was for
("presente da minha mãe 89,90": relationships too). A whole number is left out ("dormi 7",
"treino 2" count other things), and so are an amount with a unit ("72,40 kg"), a measure, a
grade, a rate or an hour ("peso 72,40", "nota 9,50", "dólar 5,40", "at 7.30": see
``_NOT_A_PURCHASE``). An amount with cents and no sign (:data:`LEDGER_AMOUNT`) is weaker than
one with a sign (:data:`LEDGER_LINE`): after another topic, inertia keeps it ("me pesei" then
"deu 72,45", skills.inertia).

Punctuation is kept: ``não sei o que fazer`` does not fire on "não sei, o que fazer".
A pattern needs at least one letter or digit, at most 100 characters (a compound
pattern 300) and a single line.

How it is fast
--------------
All patterns of all skills (exclusions and the pieces of compound patterns included)
are compiled into one regular expression shaped as a character trie, tried once at
every word start of the normalized message. The expression returns the longest pattern
text found there; every shorter pattern that fires at the same place is a prefix of
that text, so a table precomputed per pattern text lists them all. Exclusions and
compound patterns are then settled on the handful of hits, so the cost of a match
grows with the message length, not with the number of skills or patterns. Set-aside and
exclusion spans are sorted once and each hit is tested against them by bisection, so a
hostile message of thousands of both stays near-linear (``manage.py benchmark``, the
"hostile" line of detection).
"""

import re
from bisect import bisect_left
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import NamedTuple

from lifeassistant.text import normalize
from skills.domain import (
    COMPANION_SKILLS,
    EARNED_FROM,
    LEDGER_SKILLS,
    OWN_BODY_SKILLS,
    OWN_LIFE_SKILLS,
    PEOPLE_SKILLS,
    TRADE_SKILLS,
    SkillDefinition,
)
from skills.opinion import LearnedOpinion

MAX_PATTERN_LENGTH = 100
MAX_COMPOUND_LENGTH = 300
WHOLE_WORD_PREFIX = "="
EXCLUSION_PREFIX = "!"
SKILL_REFERENCE_PREFIX = "@"
ALL_OF = "&"
ANY_OF = "|"

_SKILL_NAME = re.compile(r"[a-z0-9_-]+")


def _phrases(openings: Iterable[str], joins: Iterable[str]) -> tuple[str, ...]:
    """Every opening followed by every join word."""
    return tuple(f"{opening} {join}" for opening in openings for join in joins)


# Phrases (normalized) by which a message sets a topic aside: the words right after one
# name what the user does NOT want to discuss. "nem me fala de dinheiro" is left out: it
# usually goes on about that very worry.
SETS_ASIDE: tuple[str, ...] = (
    *_phrases(
        ("nao quero falar", "nao quero falar nada", "nao vamos falar", "nao precisamos falar", "sem falar",
         "chega de falar", "nao to perguntando", "nao estou perguntando", "nao quero papo", "sem papo",
         "nao quero saber", "nao me pergunta", "nao me pergunte", "para de perguntar", "para de falar"),
        ("de", "do", "da", "dos", "das", "sobre", "em", "no", "na"),
    ),
    *_phrases(
        ("don't want to talk", "dont want to talk", "do not want to talk", "don't wanna talk", "dont wanna talk",
         "let's not talk", "lets not talk", "i'm not talking", "im not talking", "i am not talking", "not asking", "i'm not asking", "im not asking", "don't ask me",
         "dont ask me", "stop asking me", "stop talking"),
        ("about",),
    ),
    "stop bringing up", "stop mentioning", "don't mention", "dont mention", "not looking for",
    *_phrases(("esquece", "esqueca", "deixa pra la", "forget"), ("o", "a", "os", "as", "about", "the")),
    "not in the mood to talk about", "not in the mood for", "no quiero consejos",
    # Abbreviated, and "num" as "não" is said in Minas and the Northeast.
    *_phrases(
        ("n quero falar", "nao qro falar", "n qro falar", "n quero saber", "n quero papo", "num quero falar",
         "num quero saber", "num quero papo", "num vamo falar"),
        ("de", "do", "da", "sobre"),
    ),
    *_phrases(("nao to", "nao estou", "n to"), ("preocupado com", "preocupada com")),
    *_phrases(("nem quero saber", "nem quero falar"), ("de", "do", "da", "dos", "das", "sobre")),
    # What a trouble is not about ("it's not about the money", "o problema não é o dinheiro").
    "not about the", "not about my", "isn't about the", "isn't about my",
    "nao e sobre", "no es sobre", "o problema nao e o", "o problema nao e a", "el problema no es el",
    "el problema no es la",
    *_phrases(("no quiero hablar", "no hablemos", "dejemos el tema"), ("de", "del", "sobre")),
    *_phrases(("let's park", "lets park"), ("the",)),
    *_phrases(("dejemos de lado lo", "dejando de lado lo"), ("de", "del")),
    "nao quero falar nem", "no quiero hablar ni", "don't want to talk about either",
    # Not wanting to think of it, or rather not talking about it. The dread idioms "não quero
    # nem pensar", "no quiero ni pensar", "don't even want to think" and "no me hables de"
    # usually go on about that very worry, like "nem me fala de", so they are left out.
    *_phrases(
        ("nao quero pensar", "nem quero pensar", "n quero pensar", "nem qro pensar", "num quero pensar", "prefiro nao falar",
         "nao quero mais falar", "n quero mais falar", "nao quero mais pensar", "n quero mais pensar",
         "prefiro nao pensar", "melhor nao falar", "bora nao falar", "vamos nao falar"),
        ("em", "no", "na", "nos", "nas", "de", "do", "da", "sobre"),
    ),
    *_phrases(
        ("can we not talk", "could we not talk", "i'd rather not talk", "id rather not talk",
         "rather not talk", "don't want to think", "dont want to think", "i'd rather not think",
         "rather not think"),
        ("about",),
    ),
    *_phrases(
        ("no quiero pensar", "prefiero no hablar", "prefiero no pensar", "mejor no hablemos"),
        ("de", "del", "en", "sobre"),
    ),
)
SET_ASIDE_WORDS = 3

# Words by which a set-aside goes on to a second topic ("de plata ni de trabajo", "money
# or work"): after one, up to SET_ASIDE_WORDS more words are skipped. "nem", "ni", "nor",
# "or" and "ou" always join; "e", "and", "y" and "o" (Spanish "or", Portuguese "the") only
# before a preposition ("e de trabalho", "y del trabajo"), since they usually open a new
# clause ("no quiero hablar de plata y estoy triste").
SET_ASIDE_JOINS: frozenset[str] = frozenset({"nem", "ni", "nor", "or", "ou"})
SET_ASIDE_JOINS_BEFORE_PREPOSITION: frozenset[str] = frozenset({"e", "and", "y", "o"})
# A list of topics set aside is short; the cap keeps a hostile chain of joins linear.
MAX_SET_ASIDE_JOINS = 3
SET_ASIDE_PREPOSITIONS: frozenset[str] = frozenset(
    {"de", "do", "da", "dos", "das", "del", "sobre", "about", "em", "no", "na", "con", "com", "with"}
)

# Phrases (normalized) opening a question about history or public figures: "quem inventou
# o cartão de crédito?" asks about the world, not the user's money, and "quem foi a irmã
# Dulce?" about no one's sister. The words after one, up to a punctuation mark, are skipped
# like a topic set aside. "quem foi que me emprestou..." is about the user, so it is left out.
ABOUT_THE_WORLD: tuple[str, ...] = (
    "quem inventou", "quem criou", "quem fundou", "quem descobriu", "quem foi o", "quem foi a",
    "quem foram os", "who invented", "who founded", "who discovered", "who was the", "who were the",
    "quien invento", "quien fundo", "quien fue el", "quien fue la",
    # Who led a team or a country then ("¿quién dirigía la selección en el 78?").
    "quien dirigia", "who coached",
    # When something first appeared ("when was the first ATM installed?").
    "when was the first", "when were the first", "when did the first", "quando surgiu o",
    "quando surgiu a", "quando inventaram", "quando foi inventado", "quando foi inventada",
    "cuando se invento", "cuando fue el primer", "cuando fue la primera", "cuando surgio el",
    "cuando surgio la",
    # When an institution was founded, and where a saying comes from ("em que ano foi fundado
    # o Banco do Brasil?", "de onde vem a expressão 'pagar o pato'?").
    "quando foi fundado", "quando foi fundada",
    "in what year was", "what year was", "cuando se fundo", "cuando fue fundado",
    "cuando fue fundada", "de onde vem a expressao", "de onde vem o ditado", "o que significa a expressao",
    "where does the expression", "where does the saying", "where does the phrase",
    "what does the expression", "de donde viene la expresion", "que significa la expresion",
    # Where a word or a custom comes from, how a phrase is said in another language, which
    # country has the most of something ("what's the origin of the word 'salary'?", "how do
    # you say 'I'm tired' in Japanese?", "¿qué país tiene más médicos por habitante?").
    "origin of the word", "origem da palavra", "de onde vem a palavra", "origen de la palabra",
    "de onde veio esse nome", "de onde vem esse nome", "de onde veio o nome", "de onde vem o nome",
    "where does the name", "where did the name", "de donde viene el nombre",
    "qual a origem", "qual e a origem", "what's the origin", "whats the origin", "cual es el origen",
    "etimologia de", "etymology of", "how do you say", "como se diz", "como se fala", "como se dice",
    "how do i say", "how would i say", "how would you say",
    "que pais", "qual pais", "qual o pais", "em que pais", "em qual pais", "which country",
    "what country", "en que pais",
    # Who wrote a book or sang a song; a joke asked for ("tell me a joke about doctors").
    "quem escreveu", "who wrote", "quien escribio", "quem cantou", "who sang", "quien canta",
    "tell me a joke", "me conta uma piada", "cuentame un chiste", "conta uma piada", "conte uma piada",
    # A word's synonym, a text translated, a year asked (more below, with the years).
    "sinonimo de", "sinonimo para", "synonym for", "antonimo de", "translate", "traduz", "traduza",
    "traduce", "what year did",
    # Sizes, winners and songs of the world ("how tall is Mount Everest?", "quem ganhou a
    # Copa de 2002?", "me explica a letra de 'Pais e Filhos'").
    "how tall is", "how high is", "how big is", "how far is", "how fast does a",
    "how fast can a", "how fast is the speed", "how fast is light", "how fast is sound",
    "speed of light", "velocidade da luz", "velocidad de la luz", "qual a velocidade do", "qual a velocidade da", "qual a altura do", "qual a altura da",
    "quem ganhou", "who won", "quien gano", "a letra de", "letra da musica", "lyrics of", "lyrics to",
    # A poem or a story asked for ("write a limerick about a sleepy cat").
    "write a poem about", "write a limerick about", "write a story about", "write a haiku about",
    "write a song about", "escreve um poema sobre", "escreva um poema sobre", "faz um poema sobre",
    "escribe un poema sobre", "escreve uma historia sobre", "escribe una historia sobre",
    # Records of the world ("who holds the marathon world record?"), a singer asked.
    "who holds the", "world record", "recorde mundial", "record mundial", "quem canta",
    # The history of a thing ("what's the history behind the dollar sign?").
    "history behind", "story behind", "the history of", "historia por tras", "a historia do",
    "a historia da", "la historia de", "la historia del", "historia detras",
    # Why a thing of the world bears its name ("why do they call it a bull market?").
    "why do they call", "why is it called", "por que chamam de", "pq chamam de", "por que se chama",
    "por que se llama", "por que le dicen",
    # A country's currency asked ("qual é a moeda do Chile?").
    "qual a moeda", "qual e a moeda", "what currency", "whats the currency", "what's the currency",
    "cual es la moneda", "que moneda",
    # ... and what it is worth today ("quanto tá o euro hj?", "¿a cuánto está el dólar?").
    "quanto ta o dolar", "quanto ta o euro", "quanto esta o dolar", "quanto esta o euro", "cotacao do dolar",
    "cotacao do euro", "a cuanto esta el dolar", "a cuanto esta el euro", "how much is the dollar",
    "how much is the euro", "dollar exchange rate", "euro exchange rate",
    # Who a banknote or a coin shows ("who was on the first US dollar bill?").
    "who was on the", "who is on the", "whose face is on", "quem esta na nota", "quem aparece na nota",
    # A year asked, abbreviated as people type it ("vc sabe em q ano foi criado o INSS?").
    "em q ano", "em qual ano",
    # The year of a thing of the world ("em que ano inauguraram o Cristo Redentor?"), a distance
    # between places, the sea's temperature, a word's meaning, a term heard in the news ("o que
    # é essa tal de taxa Selic?"). A bare "em que ano" or "qual a distância" is left out: "em
    # que ano eu tomei a vacina?", "qual a distância ideal pra eu correr?" are the user's own.
    "em que ano foi", "em que ano o", "em que ano a", "en que ano fue", "en que ano se", "en que ano llego",
    "em que ano inauguraram", "em que ano construiram", "em que ano ficou", "em que ano acabou", "em que ano comecou",
    "quantos km da de", "qual a distancia entre", "qual e a distancia entre", "qual a distancia de uma",
    "qual e a distancia de uma", "how many miles from", "how many miles is it from", "cuantos kilometros hay",
    "qual a temperatura da agua", "qual a temperatura media", "what does the word", "o que e essa tal de",
    "oq e essa tal de",
    # Who is counted the father of a thing, who painted it, a curious fact ("quem é
    # considerado o pai da aviação?", "¿me contás un dato curioso de los pingüinos?").
    # When a thing appeared, who thought of it, the hour elsewhere ("em que ano surgiu o Pix?",
    # "who came up with credit scores?", "que horas são em Lisboa?").
    "em que ano surgiu", "em que ano surgiram", "em q ano surgiu", "who came up with", "quem teve a ideia de",
    "que horas sao em",
    "q horas sao em", "what time is it in", "que hora es en",
    "quem e considerado o", "quem e considerado a", "who is considered the", "quien es considerado el",
    "quien es considerada la", "who painted", "quem pintou", "quien pinto", "dato curioso", "fun fact about",
    # The first of a thing of the world, and when it was created ("qual foi o primeiro cartão de crédito
    # do mundo?", "e o pix, foi criado quando?").
    "qual foi o primeiro", "qual foi a primeira", "what was the first", "cual fue el primer", "cual fue la primera",
    "foi criado quando", "foi criada quando", "foi inventado quando", "foi inventada quando", "was created when",
    # How long a race or a thing of the world is ("how long is a marathon in miles?").
    "how long is a", "how many miles is a", "how many km is a",
    "uma curiosidade sobre",
    # The age at which someone of the world did a thing ("vc sabe com quantos anos a rainha elizabeth
    # morreu?"); "com quantos anos eu..." speaks of the user.
    "com quantos anos", "how old was", "a que edad murio", "con cuantos anos",
    # Where a place of the world lies ("onde fica a cidade de barreiras?").
    "onde fica a cidade", "where is the city of", "donde queda la ciudad",
)
# Enough words for "quem foi o primeiro médico a usar anestesia numa cirurgia?".
ABOUT_THE_WORLD_WORDS = 8


# Words of the user's own, where a span about the world stops ("quem construiu o muro aqui de
# casa me cobrou 3 mil").
_OWN_WORD = r"(?:meu|minha|meus|minhas|my|me|mi|mis|mim)(?!\w)"


def _opening_regex(phrases: Iterable[str], words: int, *, stop_at_own: bool = False) -> re.Pattern[str]:
    """Any of ``phrases`` as whole words, capturing the next 1 to ``words`` words (up to a
    word of the user's own, with ``stop_at_own``)."""
    # A word may open a quotation ('de onde vem a palavra "salário"?').
    word = r"\s+[\"\u201c\u00ab]?(?!" + _OWN_WORD + r")[\w'-]+" if stop_at_own else r"\s+[\"\u201c\u00ab]?[\w'-]+"
    return re.compile(
        r"(?<!\w)(?:" + "|".join(sorted(map(re.escape, phrases), key=len, reverse=True)) + r")(?!\w)"
        r"((?:" + word + r"){1," + str(words) + r"})"
    )


_SETS_ASIDE = _opening_regex(SETS_ASIDE, SET_ASIDE_WORDS)
# What a trouble is not ("não é nada de saúde, é meu chefe", "no es nada del trabajo"): the topic
# named next is set aside, but not a quality of the trouble ("não é nada de mais", "nada de grave",
# "não é nada de especial só dor de cabeça", "no es nada de nuevo"), which goes on about it.
NOTHING_OF_QUALITIES: tuple[str, ...] = (
    "mais", "demais", "grave", "graves", "novo", "nova", "especial", "serio", "seria", "outro", "outra",
    "importante", "mal", "ruim", "estranho", "estranha", "anormal", "incomum", "nuevo", "nueva", "raro",
    "rara", "malo", "mala", "otro", "otra", "extrano", "extrana",
)
_NOTHING_OF = re.compile(
    r"(?<!\w)(?:nao e|nao eh|n e|no es) nada (?:de|do|da|del)"
    r"(?!\s+(?:" + "|".join(NOTHING_OF_QUALITIES) + r")(?!\w))"
    r"((?:\s+[\w'-]+){1," + str(SET_ASIDE_WORDS) + r"})"
)
# A message that opens by naming what it is not about ("Not about money this time, ...", "not
# talking about work today."): the topic named next is set aside. Only as the message opens:
# within it, "we're not talking about money enough" is the trouble itself, and "not about to"
# means "won't".
_NOT_ABOUT_OPENING = re.compile(
    r"^\W*(?:(?:ok|so|well|look|honestly|and)\W+)?(?:(?:it's|its|it is|this is)\s+)?(?:not|isn't|isnt)\s+"
    r"(?:talking\s+|asking\s+)?about(?!\s+to(?!\w))((?:\s+[\w'-]+){1," + str(SET_ASIDE_WORDS) + r"})"
)
_ABOUT_THE_WORLD = _opening_regex(ABOUT_THE_WORLD, ABOUT_THE_WORLD_WORDS)
# Who designed or built a thing of the world ("quem projetou a Catedral de Brasília?"); the
# words skipped stop at the user's own ("quem construiu o muro aqui de casa me cobrou 3 mil").
BUILT_BY: tuple[str, ...] = (
    "quem projetou", "quem construiu", "quem desenhou", "who designed", "who built", "quien diseno", "quien construyo",
)
_BUILT_BY = _opening_regex(BUILT_BY, ABOUT_THE_WORLD_WORDS, stop_at_own=True)
# When a thing of the world came to be, asked after naming it ("o pix foi lançado em que ano?",
# "o real foi criado quando?", "when was Pix launched?", "¿cuándo se lanzó el euro?"): the thing
# named is the world's, up to a word of the user's own ("quando meu cartão foi criado?").
_CAME_TO_BE = (
    r"(?:lancad[oa]s?|criad[oa]s?|inventad[oa]s?|fundad[oa]s?|inaugurad[oa]s?|lanzad[oa]s?|cread[oa]s?"
    r"|launched|created|invented|founded|introduced)"
)
_THING_OF_THE_WORLD = r"((?:\s*(?!" + _OWN_WORD + r")[\w'-]+){1,5}?)"
_CAME_TO_BE_WHEN = re.compile(
    r"(?:^\W*|(?<!\w)(?:o|a|os|as|the|el|la|los|las)\s+)" + _THING_OF_THE_WORLD + r"\s+(?:foi|foram|was|were|fue|fueron)\s+"
    + _CAME_TO_BE + r"\s+(?:em que ano|em q ano|em qual ano|quando|in what year|in which year|when|en que ano|cuando)(?!\w)"
    r"|(?<!\w)(?:when|quando|cuando)\s+(?:was|were|foi|fue)" + _THING_OF_THE_WORLD + r"\s+" + _CAME_TO_BE + r"(?!\w)"
    r"|(?<!\w)(?:quando foi|cuando se|cuando fue)\s+" + _CAME_TO_BE + r"((?:\s+(?!" + _OWN_WORD + r")[\w'-]+){1,5})"
)
# Words that may come before a question's opening ("ah, e quem inventou...?", "enfim,
# sabe quantos ossos tem o corpo humano?", "oye, ¿cuál es el planeta más grande?").
_LEAD_IN = (
    r"^\W*(?:(?:ah|e|and|y|ok|so|mas|but|pero|enfim|anyway|sabe|voce sabe|vc sabe|tu sabe|tu sabes|do you know|sabes|kk+|(?:ha)+|rs+"
    r"|oye|oi|ei|o|uai|hey|hi|ola|hola|olha|mira|bom|bueno|well|entao|by the way|btw|alias|a proposito|por sinal"
    r"|por cierto|random q|random question|just curious|out of curiosity|so curiosidade|curiosidade|por curiosidade|por curiosidad|pregunta random|tche|bah"
    r"|oh|random|quick q|quick question|rapidinho|rapidao|pergunta rapida|uma pergunta|una pregunta|pregunta rapida"
    r"|totally random|off topic|nada a ver|che|mano|cara|vei|po|mermao|wey|guey|bro|dude|mate|pergunta aleatoria"
    r"|pregunta aleatoria|uma duvida|una duda|oof|uff|ufa|eita|vish|nossa|caramba|wow|huh|hmm|hm)\W+)*"
)
# Counting things of the world: "quantos ossos tem o corpo humano?", "¿cuántos habitantes
# tiene México?", "how many calories does a banana have?".
_COUNTS_THINGS = re.compile(
    _LEAD_IN + r"(?:quantos|quantas|cuantos|cuantas|how many)\s+(?:[\w'-]+\s+){1,3}?"
    r"(?:tem|tinha|tiene|tienen|has|have|does|do|existem|existen|hay|are there|is there|cabem|caben)(?!\w)"
)
# What is counted: "quantos metros tem o Cristo Redentor?" asks of a monument, not a faith.
# Only a thing named with its article, none of it the user's: "quantos dias tem que ficar de
# repouso?", "how many hours do I need to sleep?", "quantas parcelas tem o meu carro?" are
# the user's own.
_COUNTS_THINGS_OF = re.compile(
    _COUNTS_THINGS.pattern + r"(\s+(?:o|a|os|as|um|uma|the|an|el|la|los|las|un|una)"
    r"(?!\s+(?:meu|minha|meus|minhas|my|mi|mis)(?!\w))(?:\s+[\w'-]+){1," + str(ABOUT_THE_WORLD_WORDS - 1) + r"})"
)
_OPENS_ABOUT_THE_WORLD = re.compile(
    _LEAD_IN + r"(?:" + "|".join(sorted(map(re.escape, ABOUT_THE_WORLD + BUILT_BY), key=len, reverse=True)) + r")(?!\w)"
)
# The tallest, the biggest, a capital: "what's the tallest mountain in Africa?", "qual a
# capital da Austrália?", "¿cuál es el río más largo?".
_ASKS_A_SUPERLATIVE = re.compile(
    _LEAD_IN + r"(?:qual|quais|whats|what|which|cual|cuales)(?:'s|\s+(?:e|eh|foi|es|fue|is|was|are))?"
    r"\s+(?:o|a|os|as|the|el|la|los|las)\s+(?:[\w'-]+\s+)?(?:maior|menor|mais|tallest|biggest|largest|longest|"
    r"highest|smallest|oldest|deepest|fastest|most|mas|capital)(?!\w)"
)


def opens_about_the_world(normalized: str) -> bool:
    """Tell whether ``normalized`` opens as a question about the world: an
    :data:`ABOUT_THE_WORLD` phrase, counting things ("quantos ossos tem o corpo humano?"),
    or a superlative or a capital ("what's the tallest mountain in Africa?")."""
    return bool(
        _OPENS_ABOUT_THE_WORLD.search(normalized)
        or _COUNTS_THINGS.search(normalized)
        or _ASKS_A_SUPERLATIVE.search(normalized)
    )


_NEXT_WORD = re.compile(r"\s+([\w'-]+)")

# What a ledger line's skills show as the pattern that fired (see the module's docstring):
# with a currency sign, and with cents alone.
LEDGER_LINE = "(a ledger line)"
LEDGER_AMOUNT = "(an amount noted)"
_CURRENCY = r"(?:r\$|us\$|\$|€|£)"
_UNITS = (
    r"(?:kg|kgs|kilos?|quilos?|g|gramas?|lbs?|pounds|km|kms|k|mi|miles?|milhas?|m|metros?|cm|h|hrs?|horas?"
    r"|hours?|min|mins|minutos?|minutes?|ml|l|litros?|mg|passos|steps|pasos|x|vezes|times|veces|%|graus|degrees)"
)
_NUMBER = r"(?:\d{1,3}(?:[.,]\d{3})+|\d+)"
_AMOUNT = (
    rf"(?:{_CURRENCY}\s?{_NUMBER}(?:[.,]\d{{1,2}})?(?!\d)|{_NUMBER}[.,]\d{{2}}(?![.,]?\d)(?!\s?{_UNITS}(?!\w)))"
)
_LEDGER_WORDS = r"[^\W\d_][\w'-]*(?:\s+[^\W\d_][\w'-]*){0,2}"
# ... or what, in a word or two, and where ("almoço hj 29,90 no self service", "café 7,50 na padaria").
_LEDGER_PLACE = rf"\s+(?:no|na|em|do|da|at|in|en|el|la|pelo|pela)\s+{_LEDGER_WORDS}"
_LEDGER_ITEM = (
    rf"(?:{_LEDGER_WORDS}[\s:=,-]+{_AMOUNT}|[^\W\d_][\w'-]*(?:\s+[^\W\d_][\w'-]*)?\s+{_AMOUNT}{_LEDGER_PLACE}"
    rf"|{_AMOUNT}[\s:,-]+{_LEDGER_WORDS})"
)
# More purchases on the same line, a whole number allowed after the first ("coffee 4.50, parking 12").
_LEDGER_MORE = rf"(?:\s*[,;+/]\s*|\s+(?:e|and|y)\s+)(?:{_LEDGER_ITEM}|{_LEDGER_WORDS}\s+\d+)"
_LEDGER_LINE = re.compile(rf"^\W*{_LEDGER_ITEM}(?:{_LEDGER_MORE}){{0,5}}[\s.!]*$")
# ... or a sum given to note down, with the place it was spent at ("log 45 at the pharmacy",
# "registra 45 na farmácia", "anota 32 no mercado"): a whole number is a sum here, the place
# its category.
_NOTED_AT = re.compile(
    rf"^\W*(?:log|anota|anote|anota ai|registra|registre|lanca|apunta|apuntame)\s+(?:{_CURRENCY}\s?)?{_NUMBER}"
    rf"(?:[.,]\d{{1,2}})?\s+(?:(?:reais|dollars|bucks|pesos|conto|contos)\s+)?(?:at|no|na|em|en)\s+"
    rf"(?:(?:the|a|o|la|el)\s+)?{_LEDGER_WORDS}[\s.!]*$"
)


_SIGNED = re.compile(_CURRENCY)
_WORD = re.compile(r"[^\W\d_][\w'-]*")
# Words by which a line with a number notes no purchase: a measure, a grade, a rate, a score,
# an hour or a day ("peso 72,40", "nota 9,50", "dólar hoje 5,40", "bus at 7.45", "dia 12.05").
_NOT_A_PURCHASE: frozenset[str] = frozenset({
    "peso", "pesei", "pesando", "pesava", "weight", "weigh", "weighed", "altura", "height", "mido", "tall",
    "nota", "notas", "media", "grade", "grades", "score", "placar", "versao", "version", "v", "dolar", "euro",
    "cotacao", "cambio", "odd", "odds", "tempo", "time", "pace", "ritmo", "febre", "fever", "fiebre",
    "temperatura", "glicose", "glicemia", "pressao", "imc", "bmi", "at", "by", "as", "a", "las", "dia",
    "day", "on", "until", "hasta", "ate", "hora", "horas", "hour", "hours", "km", "kg",
})


def ledger_line(normalized: str) -> str | None:
    """:data:`LEDGER_LINE` or :data:`LEDGER_AMOUNT` when ``normalized`` is only a purchase
    and its amount ("uber R$ 23", "mercado 187,40"), else None."""
    if _NOTED_AT.match(normalized):
        return LEDGER_LINE
    if not _LEDGER_LINE.match(normalized) or not _NOT_A_PURCHASE.isdisjoint(_WORD.findall(normalized)):
        return None
    return LEDGER_LINE if _SIGNED.search(normalized) else LEDGER_AMOUNT


def _set_aside_end(normalized: str, start: int) -> int:
    """Where a topic set aside from ``start`` (right after the phrase) ends: after
    :data:`SET_ASIDE_WORDS` words, counted again after each join word
    (:data:`SET_ASIDE_JOINS`), or at the first punctuation mark."""
    end = position = start
    left, joins = SET_ASIDE_WORDS, 0
    while left > 0 and (found := _NEXT_WORD.match(normalized, position)):
        word, position = found.group(1), found.end()
        following = _NEXT_WORD.match(normalized, position)
        before_preposition = following is not None and following.group(1) in SET_ASIDE_PREPOSITIONS
        joined = word in SET_ASIDE_JOINS or (word in SET_ASIDE_JOINS_BEFORE_PREPOSITION and before_preposition)
        if joined and joins < MAX_SET_ASIDE_JOINS:
            if before_preposition and following is not None:
                position = following.end()  # "ni de": the preposition is part of the join
            end, left, joins = position, SET_ASIDE_WORDS, joins + 1
            continue
        end, left = position, left - 1
    return end


# Pets: the words after one, up to PET_WORDS, a punctuation mark or a conjunction, speak of the animal's
# body, which the skills of the user's own body (OWN_BODY_SKILLS) do not read: "meu cachorro
# está vomitando desde ontem" and "my cat isn't eating" are no health of the user's.
PETS: tuple[str, ...] = (
    "cachorro", "cachorra", "cachorrinho", "cachorrinha", "gato", "gata", "gatinho", "gatinha", "cao",
    "cadela", "pet", "pets", "dog", "dogs", "puppy", "cat", "cats", "kitten", "perro", "perra", "perrito",
    "perrita", "gatito", "gatita", "papagaio", "calopsita", "coelho", "hamster", "parrot", "rabbit",
    "perico", "periquito", "loro", "conejo", "tortuga", "jabuti", "tartaruga",
)
PET_WORDS = 8
# The span ends at a conjunction too: "levei meu cachorro pra passear e corri 5 km". "my dog's
# surgery" is the dog's.
_PETS = re.compile(
    r"(?<!\w)(?:" + "|".join(map(re.escape, PETS)) + r")(?:'s)?(?!\w)"
    r"((?:\s+(?!(?:e|and|y|mas|but|pero)(?!\w))[\w'-]+){1," + str(PET_WORDS) + r"})"
)


def pet_spans(normalized: str) -> list[tuple[int, int]]:
    """The spans of ``normalized`` about a pet's body (see :data:`PETS`)."""
    return [found.span(1) for found in _PETS.finditer(normalized)]


# Someone close, told of in the third person: what their body goes through ("meu pai foi
# internado com pneumonia", "meu filho tá com febre de 39", "my dad is in surgery") and what
# happens in their work ("minha irmã foi demitida") are theirs, not the user's, so the skills
# of the user's own life (OWN_LIFE_SKILLS) do not read them, as a pet's body. The span starts
# at a verb in the third person right after the relative (or up to three words later: "meu
# filho de 3 anos tá com febre") and runs up to RELATIVE_WORDS words, a punctuation mark or a
# conjunction; "my dad's knee surgery" runs as far from the possessive; "the surgery of my
# mother" / "a cirurgia da minha mãe" covers the word before.
RELATIVES: tuple[str, ...] = (
    "pai", "mae", "filho", "filha", "filhos", "filhinho", "filhinha", "cacula", "bebe", "nene", "avo", "vo",
    "vovo", "irmao", "irma", "marido", "esposa", "esposo", "tio", "tia", "sogro", "sogra", "primo", "prima",
    "namorado", "namorada", "noivo", "noiva", "gemeos", "gemeas",
    "dad", "mom", "mum", "mother", "father", "son", "daughter", "kid", "baby", "grandma", "grandpa",
    "grandmother", "grandfather", "brother", "sister", "husband", "wife", "uncle", "aunt", "boyfriend",
    "girlfriend", "twins",
    "padre", "madre", "hijo", "hija", "abuelo", "abuela", "hermano", "hermana", "novio", "novia",
    "mama", "papa", "mami", "papi", "mamae", "papai", "cunhado", "cunhada", "sobrinho", "sobrinha", "neto", "neta",
    "enteado", "enteada", "cunado", "cunada", "sobrino", "sobrina", "nieto", "nieta", "gemelos", "gemelas",
    # Friends and housemates: their job or illness is theirs as well ("minha amiga foi
    # demitida", "my roommate just got laid off"); Northeastern "mainha", "painho".
    "amigo", "amiga", "friend", "roommate", "flatmate", "vizinho", "vizinha", "neighbor", "neighbour",
    "mainha", "painho", "ex", "abuelita", "abuelito", "buddy",
    # A mate in Peru, Mexico, Colombia, Venezuela ("mi pata Renzo consiguió chamba"); Brazilian
    # "mano" is left out, since "nossa, mano" is an exclamation.
    "pata", "compa", "parce", "pana",
    # Partners and friends as English speakers name them ("my hubby was made redundant", "my
    # best mate just got offered a job").
    "hubby", "wifey", "partner", "bf", "gf", "bestie", "bff", "mate",
    # River Plate "mi viejo", "mi vieja": one's father and mother.
    "viejo", "vieja",
    # A grandmother as the British and Australians name her ("my nan's in hospital").
    "nan", "nana", "nanna", "granny", "grandad", "granddad",
    # Godparents of one's child, close as family in Brazil ("minha comadre tá doente"); grandchildren.
    "comadre", "compadre", "grandson", "granddaughter", "grandkid", "grandkids", "grandchild", "grandchildren",
)
_THIRD_PERSON = (
    # What they found out or were told of themselves ("minha mãe descobriu que tá com diabetes",
    # "my dad was told he has"): the "que" does not end the span here. Listed first, so the
    # longer reading wins over "descobriu" alone.
    "descobriu que", "disse que", "falou que", "contou que", "acha que", "descubrio que", "dijo que",
    "found out", "was told", "said", "says",
    "ta", "esta", "estava", "foi", "vai", "fez", "teve", "tem", "anda", "ficou", "segue", "continua",
    "passou", "comecou", "precisa", "acordou", "quebrou", "machucou", "caiu", "ama", "adora", "gosta", "odeia",
    "entrou", "quer", "faz", "fara", "opera", "operou", "sente", "sentiu", "sofre", "sofreu", "toma", "tomou",
    "internou", "piorou", "melhorou", "pegou", "saiu", "sale", "salio", "salga", "recebeu", "recibio", "received",
    "amanheceu", "amanecio", "vomitou", "vomito", "tirou",
    # Going back to something ("meu marido volta a trabalhar segunda", "mi mamá volvió al hospital").
    "volta", "voltou", "vuelve", "volvio", "went back", "goes back",
    # What happens in their work ("meu primo arrumou emprego", "meu filho presta ENEM").
    "arrumou", "conseguiu", "perdeu", "descobriu", "presta", "trabalha", "comeca", "largou", "mudou",
    "is", "was", "has", "had", "got", "goes", "went", "needs", "broke", "fell", "keeps", "loves", "likes", "hates",
    "wants", "takes", "took", "feels", "felt", "suffers", "gets", "threw", "throws", "vomited",
    "just", "lost", "quit", "started", "works", "landed",
    "fue", "tiene", "tuvo", "va", "sigue", "necesita", "se", "odia", "quiere", "entro", "hace", "hizo",
    "tomo", "siente", "sufre",  # "toma" and "opera" are Portuguese's too, above
    "consiguio", "perdio", "trabaja", "empezo", "renuncio",
    # Spanish's clitic of what happens to them ("a mi mamá le diagnosticaron diabetes", "a mi
    # hermano lo corrieron"); "lo" alone is left out, since "le conté a mi mamá lo de mi despido"
    # is the user's own news.
    "le", "les", "lo corrieron", "lo echaron", "lo despidieron", "lo operaron", "lo internaron",
    "la operaron", "la internaron", "la despidieron", "la echaron", "la corrieron", "lo botaron", "la botaron",
)
# Someone already named, spoken of by a pronoun and a verb of being or having ("ele tem
# diabetes", "she's been in the ICU", "ella está internada"); other verbs ("ela passou uma
# pomada pra eu passar") may well tell of the user's own body.
_PRONOUNS_OF_SOMEONE = ("ele", "ela", "he", "she", "ella")
_BEING_OR_HAVING = (
    "tem", "ta", "esta", "foi", "tava", "estava", "is", "has", "was", "tiene", "fue", "ama", "adora", "gosta",
    "loves", "likes", "quer", "wants", "quiere",
    # What they may or must take or do ("meu irmão tá com dengue, o q ele pode tomar pra febre?",
    # "what can she take for the cough?"): still their body; "ela pode me ajudar a..." ends at "me".
    "pode", "deve", "precisa", "can", "should", "puede", "debe", "necesita",
)
RELATIVE_WORDS = 8
# A word of the user's own ends it too: "minha mãe disse que preciso ir ao médico", "my
# partner wants me to quit my job" are the user's body and work.
_ENDS_A_SPAN = (
    # "e não quer / and won't / y no quiere" goes on about them ("meu pai tem diabetes e não quer saber
    # de dieta", "minha mãe tá com pressão alta e não quer tomar remédio").
    r"(?:(?:e|and|y)(?!\s+(?:nao|n|no|not|never|nunca)\s+(?:quer|aceita|toma|come|faz|vai|larga|para|sai|segue"
    r"|quiere|acepta|toma|wants|takes|eats|goes)(?!\w))"
    r"|mas|but|pero|que|porque|pq|because|i|eu|yo|me|my|mi|mis|meu|minha|meus|minhas|mim|preciso"
    r"|tenho|devo|estou|tou|tengo|necesito|debo|deberia|estoy)"
)
# A few are named with the article alone, as a family speaks of them ("o vô foi internado",
# "o pequeno tá com febre"); "o pai" is left out ("o Pai" is God's name too).
_FAMILY_WITH_ARTICLE = ("vo", "vovo", "pequeno", "pequena", "menino", "menina", "bebe", "nene", "cacula")
_FAMILY_BARE = ("mainha", "painho")
_RELATIVE = (
    r"(?:(?:meu|minha|my|mi|nosso|nossa|our)\s+(?:(?:melhor|best|mejor|querido|querida|dear)\s+)?(?:"
    + "|".join(RELATIVES) + r")"
    r"|(?<!\w)(?:o|a)\s+(?:" + "|".join(_FAMILY_WITH_ARTICLE) + r")"
    # Said bare, as one's own: "painho tá desempregado".
    r"|(?<!\w)(?:" + "|".join(_FAMILY_BARE) + r"))"
)
# The next words of a span, up to ``count``: a conjunction or a punctuation mark ends it.
def _span_words(count: int) -> str:
    # A number's decimal mark is no punctuation: "acordou com 38,5 de febre" runs on.
    return r"(?:\s+(?!" + _ENDS_A_SPAN + r"(?!\w))[\w'-]+(?:[.,]\d+)*){0," + str(count) + "}"


_RELATIVES_BODY = re.compile(
    r"(?<!\w)" + _RELATIVE + r"'s\s+([\w'-]+" + _span_words(RELATIVE_WORDS - 1) + ")"
    r"|(?<!\w)" + _RELATIVE + r"(?:\s+(?!(?:i|eu|yo)(?!\w))[\w'-]+){0,3}?\s+((?:" + "|".join(_THIRD_PERSON) + r")(?!\w)"
    + _span_words(RELATIVE_WORDS) + ")"
    # ... also a noun with its complement ("o remédio de pressão da minha mãe"), and one of
    # "his" or "hers" fetched or paid for ("comprei o remédio dele"; "tomei o remédio dela" is
    # the user's body).
    r"|([\w'-]+(?:\s+de\s+[\w'-]+)?)\s+(?:d[ao]|of|de)\s+" + _RELATIVE + r"(?!\w)"
    r"|(?<!\w)(?:comprei|paguei|busquei|peguei|levei|comprar|pagar|buscar|pegar|levar)\s+(?:o|a|os|as)\s+"
    r"([\w'-]+)\s+(?:dele|dela|deles|delas)(?!\w)"
    # ... or bought for them ("comprei dipirona e um xarope pra ela", "bought cough syrup for him",
    # "I bought cough syrup for my mom", "compré las pastillas para la tensión de mi abuela").
    r"|(?<!\w)(?:comprei|busquei|peguei|bought|picked up|compre)\s+((?:[\w'-]+\s+){0,5}?[\w'-]+)\s+"
    r"(?:(?:pra|para|pro|for)\s+(?:ela|ele|elas|eles|her|him|them|ella|el)(?!\w)"
    r"|(?:pra|para|pro|for|de|d[ao]|of)\s+(?:(?:a|o|la|el)\s+)?" + _RELATIVE + r"(?!\w))"
    r"(?!.*(?:pra mim|para mim|for me|myself|tomei|took one|tome uno))"
    # ... or money spent or paid on them, what for up to the sentence's end ("gastei 120 na farmácia
    # com fralda e remédio de cólica pro meu bebê", "paguei a consulta do meu pai no cardiologista").
    r"|(?<!\w)((?:gastei|paguei|spent|paid|gaste|pague)(?!(?:\s+\S+){0,12}?\s+(?:pra mim|para mim|for me|for myself))"
    r"\s+(?:[\w'-]+(?:[.,]\d+)*\s+){0,12}?"
    r"(?:pra|para|pro|for|de|d[ao]|of)\s+(?:(?:a|o|la|el)\s+)?" + _RELATIVE + r"(?!\w)" + _span_words(4) + ")"
    r"(?!.*(?:pra mim|para mim|for me|myself|tomei|took one|tome uno))"
    # ... and in Spanish, what the user bought or brought them: "le" is for someone ("le compré los
    # remedios a mi abuela"; "le pagué al dentista" pays the dentist, for the user's own teeth).
    r"|(?<!\w)(?:le|les)\s+(?:compre|traje|lleve|consegui)\s+([\w'-]+" + _span_words(4) + ")"
    r"|(?<!\w)(?:le|les)\s+((?:duele|duelen|dolia|bajo|subio|dio|diagnosticaron|detectaron|operaron|sacaron)(?!\w)"
    + _span_words(RELATIVE_WORDS) + ")"
    r"|(?<!\w)(?:(?:" + "|".join(_PRONOUNS_OF_SOMEONE) + r")(?:\s+(?:ja|ainda|so|already|still|ya|todavia|nao|n|no|not))?\s+(?:"
    + "|".join(_BEING_OR_HAVING) + r")|(?:he|she)'s)(?!\w)"
    "(" + _span_words(RELATIVE_WORDS) + ")"
    # ... or what they may take, asked before naming them ("que remédio ele pode tomar?", "what
    # medicine can she take?"). Last, so the groups above keep their numbers.
    r"|(?<!\w)(?:que|qual|quais|what|which)\s+((?:[\w'-]+\s+){1,2}(?:(?:ele|ela|eles|elas|he|she|they)\s+"
    r"(?:pode|podem|deve|devem|can|should|puede|debe)|(?:can|should)\s+(?:he|she|they))(?!\w)"
    + _span_words(RELATIVE_WORDS) + ")"
    # ... or what the user got them, in English ("bought him tylenol and juice, $23"), as "le
    # compré" above. Last, so the groups above keep their numbers.
    r"|(?<!\w)(?:bought|got|picked up|grabbed)\s+(?:him|her|them)\s+([\w'-]+" + _span_words(4) + ")"
)


# The alternatives of _RELATIVES_BODY that tell how a close one is ("meu irmão tá com depressão",
# "ele tá meio pra baixo", "my girlfriend's grandma passed away"), by their group: what they
# feel is theirs too. A thing named with them is not ("raiva do meu cunhado", "saudade da minha
# vó": the user's feeling about them), nor a thing bought for them.
_TELLS_HOW_THEY_ARE = frozenset({1, 2, 8, 9})
# A close one's death, or leaving, is the user's loss, as the counselor's patterns hear it ("faz um
# ano que meu pai se foi", "desde que ela foi embora a casa ficou grande demais").
_DEATH = re.compile(
    r"(?<!\w)(?:se foi|foi embora|faleceu|morreu|passed away|passed|died|fallecio|murio|partiu|se fue|left me)(?!\w)"
)


def close_one_spans(normalized: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """The spans of ``normalized`` about a close one's body or work (see :data:`RELATIVES`), and
    among them those telling how a close one is, where a feeling is theirs: one scan for both."""
    about_them: list[tuple[int, int]] = []
    how_they_are: list[tuple[int, int]] = []
    for found in _RELATIVES_BODY.finditer(normalized):
        # Each alternative has one group, so the one that matched is the match's last group.
        span = found.span(found.lastindex or 0)
        about_them.append(span)
        if found.lastindex in _TELLS_HOW_THEY_ARE and not _DEATH.search(found.group()):
            how_they_are.append(span)
    return about_them, how_they_are


# What a spending look-up names is the ledger's category, not the user's body: "quanto gastei
# com academia no ano passado?", "how much did I spend on the pharmacy?", "¿cuánto gasté en el
# médico?", "e quanto foi mesmo o dentista?" ask the accounts alone (docs/skills.md, rounds 31
# and 50). A tithe looked up is not: two writers labelled it both ways, and the faith is kept. Up to three words after the
# category's preposition, so a feeling said later is still heard.
_LOOKED_UP_CATEGORY = re.compile(
    r"(?<!\w)(?:quanto|quanta|qnto|qto|qnt|how much|cuanto|cuanta)\s+(?:(?:eu|i|yo|ja|que|q|already)\s+)*"
    r"(?:gastei|gastamos|gasto|gaste|spent|spend|did i spend|have i spent|do i spend|he gastado|hemos gastado|paguei|pague"
    # ... what was given ("quanto já dei de dízimo?"), and what a thing cost, asked again ("e
    # quanto foi mesmo o dentista?", "quanto saiu a consulta?").
    r"|dei|doei|demos|did i give|have i given|di|he dado|foi|custou|saiu)(?:\s+mesmo)?"
    r"(?:\s+(?:esse|este|this|no|na|el|la|em|in)\s+(?:mes|ano|semana|month|year|week))?"
    r"\s+(?:com|de|em|no|na|nos|nas|on|in|for|at|en|con|el|la|the|o|a|os|as)\b"
    # Calories burned are the body's: "quanto gasto de caloria numa caminhada?".
    r"(?!\s+(?:de\s+)?(?:caloria|calorias|kcal|energia|calories|calorie|energy)(?!\w))"
    r"((?:\s+(?!(?:e|and|y|mas|but|pero)(?!\w))[\w'-]+){1,3})"
)


# Food paid for is an expense's category, not the user's diet ("gasté 450 pesos en la comida de
# hoy", "gastei 80 de almoço", "spent $60 on dinner"): a spending told with its amount, then what
# was eaten, up to six words on (round 38).
_FOOD_PAID_FOR = re.compile(
    r"(?<!\w)(?:gastei|gaste|gastamos|paguei|pague|pagamos|spent|paid)\s+(?:[\w$'-]+(?:[.,]\d+)*\s+){0,6}?"
    r"(?:em|en|de|do|da|no|na|com|con|on|for|in|el|la|o|a|the|pelo|pela|por)\s+(?:(?:o|a|el|la|the|um|uma)\s+)?"
    r"((?:comida|comidas|almoco|almocos|janta|jantar|lanche|lanches|marmita|marmitex|food|lunch|dinner|breakfast"
    r"|almuerzo|cena|desayuno|cafe da manha)(?!\w))"
)


def food_paid_for_spans(normalized: str) -> list[tuple[int, int]]:
    """The spans of ``normalized`` naming the food a spending told was for."""
    return [found.span(1) for found in _FOOD_PAID_FOR.finditer(normalized)]


# A look-up asked again for another category, the figure left unsaid ("e só de comida?", "and on
# groceries?", "¿y en comida?"): the category alone, after "e"/"and"/"y" and a preposition, is
# no topic of its own, so inertia keeps the look-up's skills (and a body's topic, if it was one).
_ASKED_AGAIN_FOR = re.compile(
    r"^\W*(?:e|and|y)\s+(?:(?:so|only|just|solo)\s+)?(?:de|com|em|no|na|nos|nas|on|for|in|en|con|da|do)\s+"
    r"((?:[\w'-]+\s*){1,3}?)\W*$"
)


def looked_up_category_spans(normalized: str) -> list[tuple[int, int]]:
    """The spans of ``normalized`` naming what a spending look-up asks about."""
    spans = [found.span(1) for found in _LOOKED_UP_CATEGORY.finditer(normalized)]
    again = _ASKED_AGAIN_FOR.match(normalized)
    return spans + [again.span(1)] if again else spans


# A day's takings from gig work, told with their figure, are the ledger's ("rodei 9h de uber hj e
# fiz 280 conto", "made $164 on DoorDash today", "hice 12 entregas en rappi y saqué 780 pesos"):
# the work they came from is only where the money was made (EARNED_FROM), as the sets label it.
# Without a figure of money ("tô rodando de uber faz 2 anos", "fiz 3 entrevistas") the work is the
# topic, and so it is when money is spent in the same message ("... e gastei 80 de uber").
_GIG = r"(?:uber|doordash|ifood|rappi|lyft|didi|cabify|instacart|grubhub|corrida|corridas|entregas|deliveries|no app|na 99|no 99|de 99)"
_TAKINGS = (
    r"(?:fiz|faturei|fechei|fechei o dia com|fechei a semana com|tirei|ganhei|made|earned|cleared|saque|hice|gane"
    r"|entrou|entraram)\s+"
    r"(?:uns\s+|umas\s+|like\s+|about\s+|around\s+|quase\s+|mais de\s+)?"
    r"(?:(?:r\$|\$)\s*\d|\d[\d.,]*\s*(?:k|mil|conto|contos|pila|pilas|reais|pesos|dolares|dollars|bucks|lucas|das corridas|de corrida|em corrida|no uber|no app)(?!\w))"
)
_GIG_WORD = re.compile(rf"(?<!\w){_GIG}(?!\w)")
_TAKINGS_TOLD = re.compile(rf"(?<!\w){_TAKINGS}")
_SPENDS = re.compile(r"(?<!\w)(?:gastei|gasto|gaste|spent|spend|paguei|pague|paid|pedindo|pedi)(?!\w)")


def gig_spans(normalized: str) -> list[tuple[int, int]]:
    """The gigs named in ``normalized`` when it tells their takings: the rides of "fiz 312 reais
    hoje nas corridas" are the work's, no run of the body's."""
    return [found.span() for found in _GIG_WORD.finditer(normalized)] if tells_gig_takings(normalized) else []


def tells_gig_takings(normalized: str) -> bool:
    """Whether ``normalized`` tells a day's takings from gig work (see ``_TAKINGS``): a gig named
    before or after the takings, and no money spent. Three linear scans, not one pattern with a
    gap on either side, which backtracks quadratically on a long message naming many gigs."""
    if _SPENDS.search(normalized):
        return False
    gigs = [found.span() for found in _GIG_WORD.finditer(normalized)]
    if not gigs:
        return False
    first_gig_end, last_gig_start = gigs[0][1], gigs[-1][0]
    return any(
        told.start() >= first_gig_end or told.end() <= last_gig_start for told in _TAKINGS_TOLD.finditer(normalized)
    )


# One's trade told ("sou enfermeira", "oi, só pra vc saber: sou técnica de enfermagem", "I'm a
# registered nurse", "I work as a cashier", "soy abogada"): the trade's words, with what follows
# "de"/"em"/"of"/"in" ("professora de educação física", "enfermeira no hospital"), are the job,
# so only the skills of work (``TRADE_SKILLS``) hear them: "sou médica" and "sou psicóloga" are
# no body and no feeling of the user's. A trade told with no other topic is a lasting fact about
# the user's work and fires those skills (:data:`TRADE_TOLD`); told as a preface to another topic
# ("sou caminhoneiro e minhas costas tão me matando", "I'm a nurse and I miss my kids") it adds
# nothing, as the labelled sets have it.
TRADE_TOLD = "(a trade told)"
_TRADES_PT = (
    r"enfermeir[oa]|medic[oa]|professor[a]?|advogad[oa]|engenheir[oa]|contador[a]?|vendedor[a]?|cozinheir[oa]"
    r"|garcom|garconete|caixa|faxineir[oa]|diarista|domestica|cabeleireir[oa]|manicure|pedreiro|eletricista"
    r"|encanador|mecanic[oa]|programador[a]?|desenvolvedor[a]?|dev|designer|jornalista|psicolog[oa]|terapeuta"
    r"|dentista|farmaceutic[oa]|fisioterapeuta|nutricionista|nutri|policial|bombeir[oa]|soldado|militar|vigilante"
    r"|vigia|porteir[oa]|recepcionista|secretari[oa]|atendente|motoboy|entregador[a]?|motorista|caminhoneir[oa]"
    r"|taxista|costureir[oa]|arquitet[oa]|veterinari[oa]|bancari[oa]|servidor[a]?|funcionari[oa]|autonom[oa]"
    r"|empresari[oa]|estagiari[oa]|estudante|gerente|analista|assistente|auxiliar|tecnic[oa]|operador[a]?"
    r"|agricultor[a]?|pescador[a]?|padeir[oa]|confeiteir[oa]|fotograf[oa]|consultor[a]?|corretor[a]?|pedagog[oa]"
    r"|cuidador[a]?|baba|biomedic[oa]|fonoaudiolog[oa]|jardineir[oa]|marceneir[oa]|pintor[a]?|zelador[a]?|carteiro"
    r"|tatuador[a]?|barbeir[oa]|esteticista|maquiador[a]?|feirante|economista|administrador[a]?|publicitari[oa]"
    r"|redator[a]?|tradutor[a]?|interprete|pesquisador[a]?|piloto|comissari[oa]|freelancer|frila|socorrista"
)
_TRADES_EN = (
    r"nurse|doctor|physician|surgeon|teacher|professor|lawyer|attorney|engineer|accountant|cashier|waiter|waitress"
    r"|server|bartender|barista|cook|chef|driver|trucker|mechanic|electrician|plumber|carpenter|programmer"
    r"|developer|dev|designer|journalist|dentist|pharmacist|physiotherapist|therapist|psychologist|nutritionist"
    r"|dietitian|cop|police officer|firefighter|soldier|receptionist|secretary|salesman|saleswoman|cleaner"
    r"|housekeeper|janitor|hairdresser|barber|architect|veterinarian|vet tech|banker|consultant|freelancer"
    r"|contractor|manager|analyst|assistant|technician|paramedic|caregiver|nanny|farmer|fisherman|baker"
    r"|photographer|student|intern|pilot|flight attendant|translator|interpreter|social worker|realtor|tailor"
    r"|welder|security guard|courier|scientist|researcher|librarian|midwife"
)
# Spanish words spelled otherwise than in Portuguese (both lists follow "sou" and "soy").
_TRADES_ES = (
    r"enfermer[oa]|maestr[oa]|profesor[a]?|abogad[oa]|ingenier[oa]|cajer[oa]|meser[oa]|camarer[oa]|cociner[oa]"
    r"|chofer|conductor[a]?|plomer[oa]|fontaner[oa]|desarrollador[a]?|disenador[a]?|policia|bomber[oa]"
    r"|peluquer[oa]|arquitect[oa]|costurer[oa]|albanil|carpinter[oa]|panader[oa]|estudiante|pasante|becari[oa]"
    r"|ninera|repartidor[a]?|camioner[oa]|asistente|obrer[oa]|emprendedor[a]?|traductor[a]?|electricista|periodista"
)
_TRADE_TOLD = re.compile(
    # Not a trade said in passing to make a point ("y eso que soy farmacéutica, es re terca").
    r"(?<!\w)(?<!que )(?:(?:(?:eu|yo)\s+)?(?:sou|soy)(?:\s+(?:um|uma|un|una))?"
    r"|(?:(?:eu|yo)\s+)?(?:trabalho|trabajo|atuo)\s+(?:como|de)(?:\s+(?:um|uma|un|una))?)\s+"
    rf"((?:{_TRADES_PT}|{_TRADES_ES})(?!\w)"
    r"(?:\s+(?:de|do|da|em|no|na|en|del)\s+[\w'-]+(?:\s+(?!e|y|mas|pero)[\w'-]+)?)?)"
    # ... in English with its article, and up to two words before the trade ("a registered nurse").
    r"|(?<!\w)(?:i'm|im|i am|i work as|work as)\s+(?:a|an)\s+"
    rf"((?:[\w'-]+\s+){{0,2}}?(?:{_TRADES_EN})(?!\w)(?:\s+(?:of|in|at)\s+[\w'-]+(?:\s+(?!and|but)[\w'-]+)?)?)"
)


def trade_spans(normalized: str) -> list[tuple[int, int]]:
    """The spans of ``normalized`` naming the user's own trade (see ``_TRADE_TOLD``)."""
    return _last_group_spans(_TRADE_TOLD, normalized)


def _last_group_spans(pattern: re.Pattern[str], normalized: str) -> list[tuple[int, int]]:
    """The span of the group that matched, for each match of ``pattern``, whose alternatives
    hold one group each (so the one that matched is the match's last group)."""
    return [found.span(found.lastindex or 0) for found in pattern.finditer(normalized)]


# Text quoted for a writing task ("traduz pra inglês: 'a reunião foi adiada'", "fix the grammar:
# \"their going to the gym\"") is the task's material, not the user's topic: no skill reads it;
# so is a word whose meaning is asked ("o que significa 'burnout'?").
_WRITING_TASK = re.compile(
    r"(?<!\w)(?:traduz\w*|translate|traduc\w*|corrig\w*|corrija|fix the grammar|fix this|proofread|revis[ae]\w*"
    r"|reescrev\w*|rewrite|reescrib\w*|significa|quer dizer|quiere decir)(?!\w)[^'\"“‘\n]{0,40}?['\"“‘]([^'\"”’\n]+)"
)


# A word of address, not a relative: Spain's "tío", "tía" opening or closing a clause on its
# own ("Tío, me han subido la hipoteca", "dormí fatal, tío"). "mi tío, que está internado" has
# its possessive, so it is the uncle.
_ADDRESSED = re.compile(
    r"(?:^\W*|,\s*)(tio|tia)(?=\s*(?:[^\w\s]|$))"
    # ... and, as older Brazilians thank anyone younger, "minha filha" closing a thanks ("obrigado
    # filha"). After a greeting it may be the user's own child ("Bom dia! Meu filho, 5 anos, está
    # com febre"), so only a closing thanks counts.
    r"|(?<!\w)(?:obrigado|obrigada|brigado|brigada|valeu|obg)\W+((?:minha\s+|meu\s+)?(?:filha|filho|fia|fio))\W*$"
    # ... and a friend's or a brother's name for anyone, closing a thanks ("obg amiga", "valeu
    # irmão, tmj", "gracias compa"): the listener, not a close one spoken of.
    r"|(?<!\w)(?:obrigado|obrigada|brigado|brigada|valeu|obg|vlw|thanks|thank you|gracias)\W+"
    r"((?:minha\s+|meu\s+|mi\s+)?(?:amiga|amigo|amigao|irmao|mano|mana|parceiro|compa|brother|bro|hermano|hermana))"
    r"(?:\W+(?:tmj|kkk+|rs+|haha+|jaja+))?\W*$"
)


def address_spans(normalized: str) -> list[tuple[int, int]]:
    """The spans of ``normalized`` that address the listener (see ``_ADDRESSED``)."""
    return _last_group_spans(_ADDRESSED, normalized)


def quoted_for_writing_spans(normalized: str) -> list[tuple[int, int]]:
    """The spans of ``normalized`` quoted for a writing task (see ``_WRITING_TASK``)."""
    return [found.span(1) for found in _WRITING_TASK.finditer(normalized)]


# A subject put off, opening the message: "esquece a proposta por enquanto, ...", "deixa as
# contas pra lá, ...", "never mind the budget stuff, ...". Its words are set aside, and the
# message announces a new subject (skills.inertia). Only as the opening: "não esquece de
# pagar o boleto" puts nothing off.
_PUTS_OFF = re.compile(
    r"^\W*(?:(?:ah|ok|bom|well|bueno|pues)\W+)?(?:"
    r"(?:esquece|esqueca|forget|olvida|olvidate de|deixa|deixe|dejemos|deja|leave|let's leave|lets leave)"
    r"(\W+(?:o|a|os|as|esse|essa|esses|essas|the|that|this|el|la|los|las|lo de)(?:\W+[\w'-]+){1,3}?)\W+"
    r"(?:por enquanto|por ora|pra la|de lado|for now|aside|por ahora|por el momento)(?!\w)"
    # "deixando a dieta de lado, ..." puts it off before a comma; without one it is neglect.
    r"|(?:deixando|dejando)(\W+(?:o|a|os|as|el|la|los|las|lo de)(?:\W+[\w'-]+){1,3}?)\W+de lado\s*,"
    r"|(?:never mind|nevermind|forget about|forget)((?:\W+(?:the|about|all|that|my))+(?:\W+[\w'-]+){1,3}?)\s*[,.;:!-]"
    r")"
)


def puts_off(normalized: str) -> tuple[int, int] | None:
    """The span of the subject ``normalized`` opens by putting off, if it does."""
    found = _PUTS_OFF.match(normalized)
    return None if found is None else found.span(found.lastindex or 0)


def set_aside_spans(normalized: str) -> list[tuple[int, int]]:
    """The spans of ``normalized`` (see :func:`lifeassistant.text.normalize`) no skill
    reads: the words after each :data:`SETS_ASIDE` phrase or a "não é nada de" that names no
    quality (:data:`NOTHING_OF_QUALITIES`) (a second topic joined by
    "ni", "nem", "or"... included), each :data:`ABOUT_THE_WORLD` phrase and the words after
    it, what a count of the world asks of ("quantos metros tem o Cristo Redentor?") and a
    subject put off at the opening ("esquece a proposta por enquanto, ...")."""
    openings = (
        *_SETS_ASIDE.finditer(normalized), *_NOT_ABOUT_OPENING.finditer(normalized), *_NOTHING_OF.finditer(normalized)
    )
    spans = [(found.start(1), _set_aside_end(normalized, found.start(1))) for found in openings]
    counted = _COUNTS_THINGS_OF.match(normalized)
    put_off = puts_off(normalized)
    return (
        spans
        + ([put_off] if put_off else [])
        # The opening itself too: "who came up with credit scores?" is about no score of the user's.
        + [
            (found.start(), found.end(1))
            for opening in (_ABOUT_THE_WORLD, _BUILT_BY)
            for found in opening.finditer(normalized)
        ]
        + ([counted.span(1)] if counted else [])
        + [(found.start(), found.end()) for found in _CAME_TO_BE_WHEN.finditer(normalized)]
    )


# What a compiled pattern does when it matches.
_TRIGGER = "trigger"  # fires its skill
_EXCLUSION = "exclusion"  # silences its skill's patterns inside the matched text
_PIECE = "piece"  # an alternative of a compound pattern; fires nothing by itself


def is_compound(pattern: str) -> bool:
    """Tell whether ``pattern`` is a compound pattern (it uses ``&``, ``|`` or ``@skill``)."""
    stripped = pattern.strip()
    return ALL_OF in stripped or ANY_OF in stripped or stripped.startswith(SKILL_REFERENCE_PREFIX)


def compound_parts(pattern: str) -> tuple[tuple[str, ...], ...]:
    """Split a compound pattern into its parts, each a tuple of stripped alternatives."""
    return tuple(
        tuple(alternative.strip() for alternative in part.split(ANY_OF))
        for part in pattern.strip().split(ALL_OF)
    )


def skill_references(pattern: str) -> tuple[str, ...]:
    """Return the skill names a compound pattern refers to with ``@name``, in order."""
    if not is_compound(pattern):
        return ()
    return tuple(
        alternative[len(SKILL_REFERENCE_PREFIX):]
        for part in compound_parts(pattern)
        for alternative in part
        if alternative.startswith(SKILL_REFERENCE_PREFIX)
    )


def validate_pattern(pattern: str) -> str | None:
    """Return why ``pattern`` is malformed, or None when it can be used."""
    if "\n" in pattern or "\r" in pattern:
        return "a pattern must fit on one line"
    stripped = pattern.strip()
    if not stripped:
        return "a pattern must not be empty"
    if is_compound(stripped):
        return _compound_error(stripped)
    if len(pattern) > MAX_PATTERN_LENGTH:
        return f"a pattern must be at most {MAX_PATTERN_LENGTH} characters long"
    if stripped.startswith(EXCLUSION_PREFIX):
        body = stripped[len(EXCLUSION_PREFIX):].strip()
        if not body:
            return "'!' must be followed by a pattern"
        return _plain_error(body)
    return _plain_error(stripped)


def _plain_error(stripped: str) -> str | None:
    """Return why a plain, whole-word or phrase pattern is malformed, or None."""
    if stripped == WHOLE_WORD_PREFIX:
        return "'=' must be followed by a word"
    if not any(character.isalnum() for character in normalize(stripped)):
        return "a pattern needs at least one letter or digit"
    return None


def _compound_error(stripped: str) -> str | None:
    """Return why a compound pattern is malformed, or None."""
    if len(stripped) > MAX_COMPOUND_LENGTH:
        return f"a compound pattern must be at most {MAX_COMPOUND_LENGTH} characters long"
    for part in compound_parts(stripped):
        for alternative in part:
            if not alternative:
                return "a compound pattern has an empty alternative next to '&' or '|'"
            if alternative.startswith(SKILL_REFERENCE_PREFIX):
                if not _SKILL_NAME.fullmatch(alternative[len(SKILL_REFERENCE_PREFIX):]):
                    return f"{alternative!r} must be '@' followed by a skill name"
                continue
            if alternative.startswith(EXCLUSION_PREFIX):
                return "an exclusion ('!') cannot be part of a compound pattern"
            if len(alternative) > MAX_PATTERN_LENGTH:
                return f"{alternative!r} is longer than {MAX_PATTERN_LENGTH} characters"
            problem = _plain_error(alternative)
            if problem is not None:
                return f"{alternative!r}: {problem}"
    return None


@dataclass(frozen=True)
class _CompiledPattern:
    """A pattern (or a piece of a compound one), with what the matcher needs to test it."""

    skill: str
    written: str
    key: str
    whole_word: bool
    role: str


@dataclass(frozen=True)
class _Compound:
    """A compound pattern: every part needs one alternative found (a piece or ``@skill``).

    Each part is kept as two sets, its pieces as written and the skills it names, so
    testing it is two set intersections rather than a loop over its alternatives.
    """

    skill: str
    written: str
    parts: tuple[tuple[frozenset[str], frozenset[str]], ...]
    # Whether some part names no skill, so only this skill's own pieces can satisfy it.
    needs_a_piece: bool

    @classmethod
    def parse(cls, skill: str, written: str) -> "_Compound":
        """Build the compound pattern ``written`` (already validated) of ``skill``."""
        parts = tuple(
            (
                frozenset(a for a in part if not a.startswith(SKILL_REFERENCE_PREFIX)),
                frozenset(
                    a[len(SKILL_REFERENCE_PREFIX):] for a in part if a.startswith(SKILL_REFERENCE_PREFIX)
                ),
            )
            for part in compound_parts(written)
        )
        return cls(skill, written, parts, any(not skills for _, skills in parts))

    def fires(self, triggered: Mapping[str, object], pieces: Mapping[str, set[str]]) -> bool:
        """Tell whether every part has an alternative that was found in the message."""
        if self.needs_a_piece and self.skill not in pieces:
            return False  # the usual case, settled without a set operation
        found = pieces.get(self.skill, set())
        return all(
            not texts.isdisjoint(found) or not skills.isdisjoint(triggered)
            for texts, skills in self.parts
        )


def _compile_pattern(skill: str, written: str, role: str) -> _CompiledPattern:
    """Split a valid non-compound pattern into its normalized text and its whole-word flag."""
    stripped = written.strip()
    if role == _EXCLUSION:
        stripped = stripped[len(EXCLUSION_PREFIX):].strip()
    whole_word = stripped.startswith(WHOLE_WORD_PREFIX)
    body = stripped[len(WHOLE_WORD_PREFIX):] if whole_word else stripped
    return _CompiledPattern(skill, written, normalize(body).strip(), whole_word, role)


def _is_word_character(character: str) -> bool:
    """Tell whether ``character`` is what the regex ``\\w`` calls a word character."""
    return character.isalnum() or character == "_"


_Trie = dict[str, "_Trie"]
_END = ""  # Key marking that a pattern text ends at this trie node.


def _build_trie(keys: Iterable[str]) -> _Trie:
    """Return a character trie holding ``keys``."""
    root: _Trie = {}
    for key in keys:
        node = root
        for character in key:
            node = node.setdefault(character, {})
        node[_END] = {}
    return root


def _trie_regex(node: _Trie) -> str:
    """Return a regex matching the longest key stored below ``node``.

    Siblings never share a first character, so the first alternative that succeeds is
    the only one that can; greedy optional groups make the longest key win.
    """
    single_characters: list[str] = []
    branches: list[str] = []
    for character in sorted(key for key in node if key != _END):
        child = node[character]
        if list(child) == [_END]:
            single_characters.append(re.escape(character))
        else:
            branches.append(re.escape(character) + _trie_regex(child))
    if len(single_characters) == 1:
        branches.append(single_characters[0])
    elif single_characters:
        branches.append("[" + "".join(single_characters) + "]")
    body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    return f"(?:{body})?" if _END in node else body


def _prefix_table(
    patterns: Sequence[_CompiledPattern],
) -> dict[str, tuple[_CompiledPattern, ...]]:
    """Map each pattern text to all patterns whose text is a prefix of it (itself included).

    When the trie regex reports text T at some word start, exactly these patterns
    can fire there: whatever else fires at that place is shorter and thus a prefix of T.
    """
    by_key: dict[str, list[_CompiledPattern]] = {}
    for pattern in patterns:
        by_key.setdefault(pattern.key, []).append(pattern)
    return {
        key: tuple(
            pattern
            for length in range(1, len(key) + 1)
            for pattern in by_key.get(key[:length], ())
        )
        for key in by_key
    }


class Reading(NamedTuple):
    """What :meth:`TriggerMatcher.reading` finds in a message: per skill fired, the patterns
    that fired; the skills whose topic it sets aside; the skills the learned opinion leans to
    (skills/opinion.py, ``LEAN_AT``), which inertia reads as topics the message goes on with."""

    fired: dict[str, tuple[str, ...]]
    set_aside: frozenset[str]
    leaning: frozenset[str]


class TriggerMatcher:
    """All trigger patterns of a set of skills, compiled to match in one pass.

    Build it with :func:`compile_matcher`; it is immutable and safe to share.
    """

    def __init__(
        self,
        patterns: Sequence[_CompiledPattern],
        compounds: Sequence[_Compound],
        skipped: tuple[tuple[str, str, str], ...],
        ledger_skills: tuple[str, ...] = (),
        opinion: LearnedOpinion | None = None,
        skills: frozenset[str] = frozenset(),
    ) -> None:
        self._ledger_skills = ledger_skills
        self._trade_skills = tuple(sorted(skills & TRADE_SKILLS))
        self._not_of_trade = skills - TRADE_SKILLS
        self._opinion = opinion
        self._skills = skills  # the enabled skills' names, which the opinion may add
        self._table = _prefix_table(patterns)
        # The lookahead captures without consuming, so a pattern starting at a later
        # word inside an earlier hit ("a pagar" inside "contas a pagar") is still seen.
        # A letter right after a digit starts a word too ("5kg", "10km").
        self._regex = (
            re.compile(r"(?:(?<!\w)|(?<=\d)(?=[^\W\d_]))(?=(" + _trie_regex(_build_trie(self._table)) + "))")
            if self._table
            else None
        )
        self._compounds = tuple(compounds)
        self._has_exclusions = any(pattern.role == _EXCLUSION for pattern in patterns)
        self.pattern_count = (
            sum(1 for pattern in patterns if pattern.role != _PIECE) + len(self._compounds)
        )
        self.skipped_patterns = skipped

    def match(self, text: str) -> dict[str, tuple[str, ...]]:
        """Return, per skill that fired on ``text``, the patterns that fired, as written.

        A skill's plain patterns come first, in the order they were found, then its
        compound patterns that fired.
        """
        return self.read(text)[0]

    def set_aside(self, text: str) -> frozenset[str]:
        """Return the skills whose plain patterns ``text`` sets aside ("não quero falar
        de dinheiro": finance), which fire nothing there (see :data:`SETS_ASIDE`)."""
        return self.read(text)[1]

    def read(self, text: str) -> tuple[dict[str, tuple[str, ...]], frozenset[str]]:
        """Return :meth:`match` and :meth:`set_aside` of ``text`` in one pass, revised by the
        learned opinion when the matcher has one (skills/opinion.py)."""
        reading = self.reading(text)
        return reading.fired, reading.set_aside

    def reading(self, text: str) -> Reading:
        """:meth:`read`, with the skills the learned opinion leans to (none without one)."""
        if self._regex is None:
            return Reading({}, frozenset(), frozenset())
        normalized = normalize(text)
        found, set_aside = self._read_patterns(normalized)
        leaning: frozenset[str] = frozenset()
        if self._opinion is not None:
            probabilities = self._opinion.probabilities(normalized)
            found = self._opinion.revise(found, probabilities, catalog=self._skills, set_aside=set_aside)
            set_aside = set_aside - found.keys()
            leaning = self._opinion.leaning(probabilities)
        return Reading(found, set_aside, leaning)

    def _read_patterns(self, normalized: str) -> tuple[dict[str, tuple[str, ...]], frozenset[str]]:
        """What the patterns alone find in ``normalized``: the skills fired, the skills set aside."""
        assert self._regex is not None  # checked by read()
        ledger = ledger_line(normalized) if self._ledger_skills else None
        trades = trade_spans(normalized) if self._trade_skills else []
        hits = self._hits(normalized)
        if not hits:
            return self._ledger(ledger, self._trade(trades, {})), frozenset()
        aside = set_aside_spans(normalized)
        set_aside: frozenset[str] = frozenset()
        if aside:
            skipped = _Spans(aside)
            inside = [hit for hit in hits if skipped.overlaps(hit[1], hit[2])]
            if inside:
                hits = [hit for hit in hits if not skipped.overlaps(hit[1], hit[2])]
                kept_out = _without_excluded(inside) if self._has_exclusions else inside
                set_aside = frozenset(pattern.skill for pattern, _, _ in kept_out if pattern.role == _TRIGGER)
        # Text quoted for a writing task is its material, and a word of address no topic.
        unread = quoted_for_writing_spans(normalized) + address_spans(normalized)
        if unread:
            material = _Spans(unread)
            hits = [hit for hit in hits if not material.overlaps(hit[1], hit[2])]
        # A pet's body, and a close one's body, work and feelings, are theirs; a category looked up or
        # paid for is the ledger's; the rides of gig takings, and one's trade, are the work's.
        about_them, how_they_are = close_one_spans(normalized)
        gigs = gig_spans(normalized)
        theirs_by_kind = (
            (pet_spans(normalized), OWN_BODY_SKILLS),
            (about_them, OWN_LIFE_SKILLS),
            (how_they_are, COMPANION_SKILLS),
            (looked_up_category_spans(normalized), OWN_BODY_SKILLS),
            (food_paid_for_spans(normalized), OWN_BODY_SKILLS),
            (gigs, OWN_BODY_SKILLS),
            (trades, self._not_of_trade),
        )
        for spans, own_skills in theirs_by_kind:
            if spans:
                theirs = _Spans(spans)
                hits = [hit for hit in hits if not _is_theirs(hit, own_skills, theirs)]
        if self._has_exclusions:
            hits = _without_excluded(hits)
        fired: dict[str, dict[str, None]] = {}
        pieces: dict[str, set[str]] = {}
        for pattern, _, _ in hits:
            if pattern.role == _TRIGGER:
                fired.setdefault(pattern.skill, {})[pattern.written] = None
            else:
                pieces.setdefault(pattern.skill, set()).add(pattern.written)
        # Compound patterns see only the skills plain patterns fired, so they never chain.
        triggered = dict(fired)
        for compound in self._compounds:
            if compound.fires(triggered, pieces):
                fired.setdefault(compound.skill, {})[compound.written] = None
        found = {skill: tuple(written) for skill, written in fired.items()}
        if gigs and not LEDGER_SKILLS.isdisjoint(found):
            found = {skill: written for skill, written in found.items() if skill not in EARNED_FROM}
        found = self._trade(trades, found)
        if ledger is not None:
            found = self._ledger(ledger, found)
        return found, set_aside - found.keys()

    def _trade(self, trades: list[tuple[int, int]], fired: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
        """What a trade told fires: the trade skills when nothing else did (see ``_TRADE_TOLD``)."""
        if not trades or fired:
            return fired
        return {skill: (TRADE_TOLD,) for skill in self._trade_skills}

    def _ledger(self, ledger: str | None, fired: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
        """What a ledger line fires: the ledger skills, and of ``fired`` only the people it
        names (its other words are the expense's category)."""
        if ledger is None:
            return fired
        people = {skill: written for skill, written in fired.items() if skill in PEOPLE_SKILLS}
        return {**{skill: (ledger,) for skill in self._ledger_skills}, **people}

    def _hits(self, normalized: str) -> list[tuple[_CompiledPattern, int, int]]:
        """Return every pattern matching ``normalized``, with the span it matched."""
        assert self._regex is not None  # checked by read()
        hits: list[tuple[_CompiledPattern, int, int]] = []
        for hit in self._regex.finditer(normalized):
            start = hit.start()
            for pattern in self._table[hit.group(1)]:
                end = start + len(pattern.key)
                if pattern.whole_word and _continues_word(normalized, end):
                    continue
                hits.append((pattern, start, end))
        return hits


def _is_theirs(hit: tuple[_CompiledPattern, int, int], own_skills: frozenset[str], theirs: "_Spans") -> bool:
    """Whether ``hit`` is a word of one of ``own_skills`` inside a span about someone else.

    Only triggers are dropped: an exclusion there ("!trabalho de escola") still keeps its
    skill's other words from firing.
    """
    pattern, start, end = hit
    return pattern.skill in own_skills and pattern.role != _EXCLUSION and theirs.overlaps(start, end)


def _without_excluded(
    hits: list[tuple[_CompiledPattern, int, int]],
) -> list[tuple[_CompiledPattern, int, int]]:
    """Drop the exclusions, and the hits overlapping an exclusion of their own skill."""
    spans: dict[str, list[tuple[int, int]]] = {}
    for pattern, start, end in hits:
        if pattern.role == _EXCLUSION:
            spans.setdefault(pattern.skill, []).append((start, end))
    if not spans:
        return hits
    excluded = {skill: _Spans(skill_spans) for skill, skill_spans in spans.items()}
    return [
        (pattern, start, end)
        for pattern, start, end in hits
        if pattern.role != _EXCLUSION
        and not (pattern.skill in excluded and excluded[pattern.skill].overlaps(start, end))
    ]


class _Spans:
    """Spans of a message, sorted once so that testing a hit against all of them is a bisect.

    A hostile message can hold thousands of hits and thousands of set-aside or exclusion
    spans; comparing every hit with every span made matching quadratic in its length.
    """

    def __init__(self, spans: Iterable[tuple[int, int]]) -> None:
        ordered = sorted(spans)
        self._starts = [low for low, _ in ordered]
        # _reach[i]: the furthest end among the first i + 1 spans (by start).
        self._reach = list(accumulate((high for _, high in ordered), max))

    def overlaps(self, start: int, end: int) -> bool:
        """Tell whether ``[start, end)`` shares a character with one of the spans."""
        # The spans starting before ``end``; one of them overlaps if it ends after ``start``.
        before = bisect_left(self._starts, end)
        return before > 0 and start < self._reach[before - 1]


def _continues_word(text: str, index: int) -> bool:
    """Tell whether a word character sits at ``index`` (so a word goes on there)."""
    return index < len(text) and _is_word_character(text[index])


def compile_matcher(skills: Iterable[SkillDefinition], opinion: LearnedOpinion | None = None) -> TriggerMatcher:
    """Compile the trigger patterns of the enabled ``skills`` into one matcher, revised by
    ``opinion`` when given (skills/opinion.py; the catalog gives the shipped one).

    Malformed patterns (see :func:`validate_pattern`) never reach the matcher: they are
    listed in ``skipped_patterns`` as (skill, pattern, reason) for the caller to log.
    """
    patterns: list[_CompiledPattern] = []
    compounds: list[_Compound] = []
    skipped: list[tuple[str, str, str]] = []
    ledger_skills: list[str] = []
    enabled: list[str] = []
    for skill in skills:
        if not skill.enabled:
            continue
        enabled.append(skill.name)
        if skill.name in LEDGER_SKILLS:
            ledger_skills.append(skill.name)
        for written in skill.trigger_patterns:
            error = validate_pattern(written)
            if error is not None:
                skipped.append((skill.name, written, error))
            elif is_compound(written):
                compound = _Compound.parse(skill.name, written)
                compounds.append(compound)
                patterns.extend(
                    _compile_pattern(skill.name, piece, _PIECE)
                    for texts, _ in compound.parts
                    for piece in sorted(texts)
                )
            elif written.strip().startswith(EXCLUSION_PREFIX):
                patterns.append(_compile_pattern(skill.name, written, _EXCLUSION))
            else:
                patterns.append(_compile_pattern(skill.name, written, _TRIGGER))
    return TriggerMatcher(patterns, compounds, tuple(skipped), tuple(ledger_skills), opinion, frozenset(enabled))


def naive_match(text: str, skills: Iterable[SkillDefinition]) -> tuple[str, ...]:
    """Return the names of the skills with a pattern contained in the lowercased text.

    This is the original detection algorithm, kept verbatim as the benchmark baseline:
    plain substring search, no word boundaries, no accent folding, no syntax.
    """
    lowered = text.lower()
    return tuple(
        skill.name
        for skill in skills
        if any(pattern in lowered for pattern in skill.trigger_patterns)
    )
