"""What the offline model reads in a message: an everyday request it can act on. Pure.

The offline model (``offline_model.py``) stands in for a real one when no key is set, so
a newcomer sees the product work: a tool proposed, a card to confirm, a result used, a
memory saved. It recognises only a few plain requests, in Portuguese, English and
Spanish, and acts as a model would with the tools the pipeline offered:

- an expense told ("gastei 50 reais no mercado", "I spent $40 on gas") → ``create_expense``;
- a question about the month's spending ("quanto gastei este mês?") → ``get_finance_summary``;
- a weight or hours of sleep ("pesei 72 kg", "dormi 7 horas") → ``record_metric``;
- a lasting fact about oneself ("sou enfermeira", "my name is Ana") → ``add_knowledge``.

Anything else is no request (None): the offline model then answers as it always did.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

from .money import InvalidAmount, parse_amount


@dataclass(frozen=True)
class ToolRequest:
    """A tool call the offline model makes: the tool's name and its arguments."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)


# Matched against folded text (lower case, no accents), so "gastei"/"gasté" are one.
_QUESTION_WORDS = re.compile(r"(?<!\w)(?:quanto|quantos|how much|how many|cuanto|cuantos)(?!\w)")
_SPENDING_QUESTION = re.compile(
    r"(?<!\w)(?:quanto\s+(?:eu\s+)?(?:ja\s+)?gastei|quanto\s+(?:eu\s+)?(?:ja\s+)?(?:paguei|torrei)|"
    r"quanto\s+foi\s+(?:o\s+)?(?:meu\s+)?gasto|(?:meus|os)\s+gastos\s+(?:d[eo]ste|desse|do)\s+mes|"
    r"resumo\s+(?:financeiro|dos\s+(?:meus\s+)?gastos)|"
    r"how\s+much\s+(?:have\s+|did\s+)?i\s+(?:spent|spend)|my\s+spending\s+(?:this|last)\s+month|"
    r"cuanto\s+(?:he\s+)?(?:gaste|gastado)|mis\s+gastos\s+(?:de\s+)?(?:este|del)\s+mes)(?!\w)"
)
_LAST_MONTH = re.compile(r"(?<!\w)(?:mes passado|ultimo mes|last month|mes pasado)(?!\w)")
_SPENT = re.compile(
    r"(?<!\w)(?:gastei|paguei|comprei|torrei|spent|paid|bought|gaste|pague|compre)(?!\w)"
)
# An amount: digits with Brazilian or English separators, maybe a currency before or after;
# a number followed by another unit ("2 kg de arroz") is not one.
_AMOUNT = re.compile(
    r"(r\$|us\$|\$|€|£)?\s*(?<![\w.,])(\d{1,3}(?:[.,]\d{3})+(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?)(?![\w.,]*\d)"
    r"(?:\s*(reais|real|conto|contos|pila|dolares|dollars|bucks|euros?|pesos)(?!\w))?"
)
# What the money went on: after a preposition, up to a connective, a time word or punctuation.
_ON = re.compile(
    r"(?<!\w)(?:no|na|nos|nas|em|com|de|do|da|pra|para|on|for|at|in|en|el|la|del|al|con)\s+"
    r"(?:(?:o|a|os|as|um|uma|the|a|an|el|la|los|las|un|una|meu|minha|my|mi)\s+)?"
    r"([^\W\d][\w'-]*(?:\s+(?!(?:e|and|y|hoje|ontem|today|yesterday|hoy|ayer|agora|now|por|mas|but|pero)(?!\w))[^\W\d][\w'-]*){0,2})"
)
_OTHER_UNIT = re.compile(r"\s*(?:kg|g|km|m|h|hs|min|l|ml|x|vezes|times|veces|%|anos|years|meses|months|dias|days)(?!\w)")
_YESTERDAY = re.compile(r"(?<!\w)(?:ontem|yesterday|ayer)(?!\w)")
_WEIGHT = re.compile(
    r"(?<!\w)(?:pesei|pesando|peso|pesava|to com|estou com|weigh|weighed|weighing|weight|pese)(?!\w)"
    r"[^\d]{0,20}(\d{2,3}(?:[.,]\d{1,2})?)\s*(?:kg|kgs|quilos?|kilos?)?(?!\w)"
)
_WEIGHT_UNIT = re.compile(r"(?<!\w)(\d{2,3}(?:[.,]\d{1,2})?)\s*(?:kg|kgs|quilos?|kilos?)(?!\w)")
_SLEEP = re.compile(r"(?<!\w)(?:dormi|slept|sleep|sono|dormir)(?!\w)")
_HOURS = re.compile(r"(?<!\w)(\d{1,2}(?:[.,]\d)?)\s*(?:h|hs|hr|hrs|horas?|hours?)(?!\w)")
# Lasting facts a person states about themselves, as the opening of a clause.
_FACT = re.compile(
    r"(?:^|[.!;,]\s*|(?<!\w)(?:eu|yo)\s+)(?:"
    r"sou\s+(?!muito|tao|meio|um pouco|so\b)[^\W\d]|trabalho\s+(?:como|de|com)\s|me\s+chamo\s|meu\s+nome\s+e\s|"
    r"moro\s+(?:em|no|na)\s|tenho\s+\d+\s+filh|"
    r"(?:i\s+am|i'm|im)\s+(?:a|an)\s+[^\W\d]|(?:i\s+am|i'm)\s+(?:vegetarian|vegan|married|single|divorced|allergic)|"
    r"i\s+work\s+(?:as|at|in)\s|my\s+name\s+is\s|i\s+live\s+in\s|i\s+have\s+\d+\s+(?:kids|children|sons|daughters)|"
    r"soy\s+(?!muy|tan|un poco)[^\W\d]|trabajo\s+(?:como|de|en)\s|me\s+llamo\s|mi\s+nombre\s+es\s|vivo\s+en\s|"
    r"tengo\s+\d+\s+hij)"
)
_SENTENCE_END = re.compile(r"[.!?;\n]")
_WORK = re.compile(r"(?<!\w)(?:trabalho|work|trabajo)(?!\w)")
# Said of oneself in a bad moment, these are feelings, not facts to remember.
_NOT_A_FACT = re.compile(
    r"(?<!\w)(?:fracass|inutil|incapaz|idiota|burr|culpad|horrivel|pessim|failure|useless|worthless|"
    r"stupid|idiot|mess|inutil|fracaso|tonta|tonto)"
)
METRIC_TOOL = "record_metric"


def read_request(text: str, offered: Collection[str], today: date) -> ToolRequest | None:
    """The tool call a model would make for ``text`` with the ``offered`` tools, or None."""
    folded = _Folded(text)
    for reader in (_summary, _expense, _metric, _fact):
        request = reader(folded, today)
        if request is not None:
            return request if request.name in offered else None
    return None


class _Folded:
    """``text`` folded character by character (lower case, accents and apostrophes
    plain, whitespace as single spaces), keeping where each folded character came from,
    so what a pattern finds can be quoted in the person's own spelling."""

    def __init__(self, text: str) -> None:
        self.original = text
        characters: list[str] = []
        self._origin: list[int] = []
        for index, character in enumerate(text):
            if character.isspace():
                part = " "
            else:
                decomposed = unicodedata.normalize("NFKD", character.casefold())
                part = "".join(c for c in decomposed if not unicodedata.combining(c)).replace("\u2019", "'")
            characters.append(part)
            self._origin.extend([index] * len(part))
        self.text = "".join(characters)

    def quote(self, start: int, end: int) -> str:
        """The original text behind folded ``[start:end)``."""
        if start >= end:
            return ""
        return self.original[self._origin[start] : self._origin[end - 1] + 1]

    def is_question(self) -> bool:
        return self.text.rstrip().endswith("?") or bool(_QUESTION_WORDS.search(self.text))


def _summary(folded: _Folded, today: date) -> ToolRequest | None:
    if not _SPENDING_QUESTION.search(folded.text):
        return None
    if _LAST_MONTH.search(folded.text):
        previous = today.replace(day=1) - timedelta(days=1)
        return ToolRequest("get_finance_summary", {"month": previous.strftime("%Y-%m")})
    return ToolRequest("get_finance_summary", {})


def _expense(folded: _Folded, today: date) -> ToolRequest | None:
    spent = _SPENT.search(folded.text)
    if spent is None or folded.is_question():
        return None
    amount = _first_amount(folded.text)
    if amount is None:
        return None
    on = _ON.search(folded.text, spent.end())
    description = folded.quote(*on.span(1)) if on else _shorten(folded.original, 60)
    arguments: dict[str, Any] = {"amount": str(amount), "description": description}
    if _YESTERDAY.search(folded.text):
        arguments["date"] = (today - timedelta(days=1)).isoformat()
    return ToolRequest("create_expense", arguments)


def _first_amount(folded: str) -> Decimal | None:
    """The amount named with a currency, else the first bare number that is no other unit."""
    bare: Decimal | None = None
    for match in _AMOUNT.finditer(folded):
        before, digits, after = match.groups()
        try:
            amount = parse_amount(digits)
        except InvalidAmount:
            continue
        if before or after:
            return amount
        if bare is None and not _OTHER_UNIT.match(folded, match.end(2)):
            bare = amount
    return bare


def _metric(folded: _Folded, today: date) -> ToolRequest | None:
    if folded.is_question():
        return None
    weight = _WEIGHT.search(folded.text)
    if weight is not None and (_WEIGHT_UNIT.search(folded.text) or not weight.group(0).startswith(("to com", "estou com"))):
        return ToolRequest(METRIC_TOOL, {"type": "weight", "value": _number(weight.group(1)), "unit": "kg"})
    hours = _HOURS.search(folded.text)
    if _SLEEP.search(folded.text) and hours is not None:
        return ToolRequest(METRIC_TOOL, {"type": "sleep", "value": _number(hours.group(1)), "unit": "h"})
    return None


def _number(digits: str) -> float:
    return float(digits.replace(",", "."))


def _fact(folded: _Folded, today: date) -> ToolRequest | None:
    if folded.is_question() or _NOT_A_FACT.search(folded.text):
        return None
    match = _FACT.search(folded.text)
    if match is None:
        return None
    # The sentence that states it, from the fact's first word, in the person's own words.
    start = match.start() + len(match.group(0)) - len(match.group(0).lstrip(".!;, "))
    end = _SENTENCE_END.search(folded.text, start)
    clause = folded.quote(start, end.start() if end else len(folded.text)).strip()
    clause = _shorten(clause, 200)
    area = "professional" if _WORK.search(folded.text, start) else "general"
    return ToolRequest("add_knowledge", {"content": clause[:1].upper() + clause[1:], "area": area, "kind": "fact"})


def _shorten(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
