"""Is a message a yes or a no to the actions the last reply proposed? Pure, offline, pt/en/es.

The message is cut into clauses at punctuation and at "and" words (e / and / y). The
leading clauses made only of yes/no vocabulary form the answer; what follows is read
this way:

- nothing: the whole message answers ("sim, pode registrar", "no, don't", "dale");
- a clause after "and" ("sim, e anota também 30 de uber"): the answer, then a new
  request (``Confirmation.rest``) that the model handles as usual;
- anything else — "sim, mas foram 60 reais", "sim, foram 60", "sim, quanto gastei?" —
  is not an answer at all: the extra words may correct or question the proposal, so
  nothing runs and the model reads the message with the proposal still waiting.

A clause that mixes a yes/no word with other words ("não sei", "no mercado",
"ok, vou pensar") is not an answer either. A firm yes next to a firm no ("sim não")
is ambiguous and answers nothing; a weak yes ("pode", "ok", "isso") yields to a no
("não pode" rejects).

An answer is at most ``MAX_ANSWER_WORDS`` words, and only the words it could hold are
read, so a pasted text costs no more than "sim": after "and", the new request must
begin within the next nine words ("sim e " followed by nine or more yes/filler words
and then a request is not read as an answer; nobody writes that, and reading on would
make every long message of yes-words cost its whole length).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice
from typing import Literal

from lifeassistant.text import normalize

Intent = Literal["accept", "reject"]

# Words are folded (lower case, no accents) before they are looked up.
_FIRM_ACCEPT = frozenset(
    """
    sim s yes yep yeah yup sure confirmo confirma confirme confirmar confirmado confirmed confirm
    claro perfeito fechado exato exatamente correct correto bora
    registra registre registrar salva salve salvar anota anote anotar lanca lance lancar grava grave gravar
    adiciona adicione adicionar coloca coloque inclui inclua add record save log
    go proceed si dale adelante agrega agregalo agregala registralo registrala guardalo guardala hazlo
    anotalo anotala 👍 ✅
    """.split()
)
_WEAK_ACCEPT = frozenset("ok okay okey oki pode certo isso beleza blz vale manda mandar do".split())
_REJECT = frozenset(
    """
    nao no nope nah n negativo cancela cancele cancelar cancel esquece esqueca esquecer deixa dont don't not
    never nunca nem descarta descarte stop pare nevermind
    """.split()
)
# Words that may sit next to a yes or a no without changing it.
_FILLER = frozenset(
    """
    por favor please pls obrigado obrigada valeu thanks thank you entao pode ser fazer faz faca it
    ahead pra para la mesmo agora sure manda ver vai ai that this the a o um uma all right alright
    fine bem muito ta eh e registro despesa gasto acao action nada quero want need precisa precisar mais
    esse essa isto aquilo tudo sem problema with it lo la eso esto hacerlo gracias porfa pf ja
    que ahora tambem also too melhor better de acordo agreed for mim me hagas hacer pensar
    """.split()
) - {"e"}
# Connectors that start a new request after the answer ("sim, e anota também...").
_AND = frozenset({"e", "and", "y", "plus"})
# A longer opening is a message of its own, even when it starts with a yes.
MAX_ANSWER_WORDS = 8

_CLAUSE_BREAK = re.compile(r"[,;.!?\n]+")
_WORD = re.compile(r"[\w'’]+|👍|✅")
_TOKEN = re.compile(r"[\w'’]+|👍|✅|[,;.!?\n]+")
# The "and" word that ends the text before a request ("sim, e" → "sim").
_TRAILING_AND = re.compile(r"\b(?:e|and|y|plus)\Z", re.IGNORECASE)


@dataclass(frozen=True)
class Confirmation:
    """A yes or a no, and the request that followed it ("" when the message was only the answer)."""

    intent: Intent
    rest: str = ""


def confirmation_intent(text: str) -> Confirmation | None:
    """The yes/no this message gives to pending actions, or None (see the module docstring).

    >>> confirmation_intent("Sim, pode registrar!")
    Confirmation(intent='accept', rest='')
    >>> confirmation_intent("sim, e anota também 30 de uber")
    Confirmation(intent='accept', rest='anota também 30 de uber')
    >>> confirmation_intent("sim, mas foram 60 reais") is None
    True
    """
    answer: list[str] = []
    rest = ""
    for start, words in _clauses(text):
        if words and words[0] in _AND and answer:
            tail = _words(text[start:])[1:]
            if _only_answer_words(tail):
                answer.extend(tail)  # "sim e pode": still just the answer
            else:
                rest = _after_first_word(text[start:])
            break
        if not _only_answer_words(words):
            return None
        answer.extend(words)
    if len(answer) > MAX_ANSWER_WORDS:
        return None
    intent = _intent(answer)
    return None if intent is None else Confirmation(intent, rest)


def answer_before(head: str) -> str:
    """The answer of a confirmation that went on, from the text before its request: ``head``
    without the separators and the "and" word that lead to the request ("sim, e " → "sim").

    Read backwards from the end, so a long run of spaces or commas costs its length once
    (a pattern anchored at the end backtracked over such a run from each place it tried:
    minutes of a worker for a few thousand spaces).
    """
    text = _without_trailing_separators(head)
    connector = _TRAILING_AND.search(text)
    if connector is not None:
        text = _without_trailing_separators(text[: connector.start()])
    return text or head.strip()


def _without_trailing_separators(text: str) -> str:
    end = len(text)
    while end and (text[end - 1].isspace() or text[end - 1] in ",;.!"):
        end -= 1
    return text[:end]


def _clauses(text: str) -> Iterator[tuple[int, list[str]]]:
    """(start offset, folded words) per clause: punctuation and "e"/"and"/"y" open a clause.

    Lazy, and it stops after the first clause longer than an answer can be: a 40 KB paste
    costs a few words, not a fold of every word in it (that was 70 ms of each such POST).
    """
    start, current = 0, list[str]()
    for match in _TOKEN.finditer(text):
        token = match.group(0)
        if _CLAUSE_BREAK.fullmatch(token):
            if current:
                yield start, current
            start, current = match.end(), []
            continue
        word = normalize(token)
        if word in _AND:
            if current:
                yield start, current
            start, current = match.start(), []
        current.append(word)
        if len(current) > MAX_ANSWER_WORDS:
            break  # too long to be (part of) an answer: the caller needs no more clauses
    if current:
        yield start, current


def _after_first_word(text: str) -> str:
    """``text`` without its leading connector ("e anota 30" → "anota 30")."""
    return re.sub(r"^\s*\S+\s*", "", text, count=1).strip()


def _words(text: str) -> list[str]:
    """The first words of ``text``, folded: one more than an answer may hold is enough."""
    return [normalize(match.group(0)) for match in islice(_WORD.finditer(text), MAX_ANSWER_WORDS + 2)]


def _only_answer_words(words: list[str]) -> bool:
    return all(word in _FIRM_ACCEPT or word in _WEAK_ACCEPT or word in _REJECT or word in _FILLER for word in words)


def _intent(words: list[str]) -> Intent | None:
    firm_accept = any(word in _FIRM_ACCEPT for word in words)
    accepts = firm_accept or any(word in _WEAK_ACCEPT for word in words)
    rejects = any(word in _REJECT for word in words)
    if rejects and not firm_accept:
        return "reject"
    if accepts and not rejects:
        return "accept"
    return None
