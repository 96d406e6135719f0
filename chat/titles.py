"""Conversation titles from the first exchange (pure).

A title names what the conversation is for, in a list of many: the first message's
request without the greeting around it, cut at a whole word. The model, when one is
configured, may say it better; its answer is cleaned the same way.
"""

from __future__ import annotations

import re

MAX_TITLE_CHARS = 60
# What the model is shown of each side of the first exchange.
EXCHANGE_EXCERPT_CHARS = 500

TITLE_PROMPT = (
    "Write a short title (at most 6 words) for a conversation that starts with the exchange below. "
    "Use the language of the user's message. Answer with the title only: no quotes, no final period."
)

_GREETING = re.compile(
    r"^(?:(?:oi+|olá|ola|opa|e aí|eai|bom dia|boa tarde|boa noite|tudo bem\??|hello|hi|hey|"
    r"good (?:morning|afternoon|evening)|hola|buenos días|buenas tardes|buenas noches)\b[\s,!.:;-]*)+",
    re.IGNORECASE,
)
_POLITE = re.compile(r"^(?:por favor|please|porfa)\b[\s,:]*", re.IGNORECASE)
# A title cut short does not end on a word that only links to the next one ("… com a").
_DANGLING = frozenset(
    "a o as os e de da do das dos em no na nos nas com para por um uma que "
    "the of to and for with in on at an or y el la los las en con".split()
)
_MARKUP = re.compile(r"[*_`#>|~\[\]]+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_LABEL = re.compile(r"^(?:title|título|titulo)\s*:\s*", re.IGNORECASE)
_QUOTES = "\"'“”‘’«»"


def heuristic_title(text: str) -> str:
    """The request in a user's first message, as a title ("" when it has no words).

    "Oi! Quero organizar minhas finanças deste mês. Pode ajudar?" → "Quero organizar
    minhas finanças deste mês".
    """
    line = next((line for line in text.splitlines() if any(c.isalnum() for c in line)), "")
    words = " ".join(_MARKUP.sub(" ", line).split())
    request = _POLITE.sub("", _GREETING.sub("", words)).strip()
    if not any(c.isalnum() for c in request):
        request = words  # only a greeting ("Oi!"): that is what it says
    sentences = [s for s in _SENTENCE_END.split(request) if any(c.isalnum() for c in s)]
    return _finish(sentences[0] if sentences else request)


def model_title(answer: str) -> str:
    """A model's answer to TITLE_PROMPT as a title ("" when it gave nothing usable)."""
    line = next((line for line in answer.splitlines() if any(c.isalnum() for c in line)), "")
    line = _LABEL.sub("", " ".join(_MARKUP.sub(" ", line).split())).strip(_QUOTES + " ")
    return _finish(line)


def title_prompt(user_text: str, reply: str) -> list[dict[str, str]]:
    """The messages of the short title call."""
    exchange = f"User: {user_text[:EXCHANGE_EXCERPT_CHARS]}\n\nAssistant: {reply[:EXCHANGE_EXCERPT_CHARS]}"
    return [{"role": "system", "content": TITLE_PROMPT}, {"role": "user", "content": exchange}]


def _finish(text: str) -> str:
    """Trailing punctuation off, the first letter up, at most MAX_TITLE_CHARS at a whole word."""
    text = text.strip().rstrip(".!?,;:-– ").strip(_QUOTES + " ")
    if len(text) > MAX_TITLE_CHARS:
        cut = text[: MAX_TITLE_CHARS + 1].rsplit(" ", 1)[0]
        # One word longer than a title: cut it rather than leave nothing.
        if " " not in text[: MAX_TITLE_CHARS + 1]:
            cut = text[:MAX_TITLE_CHARS]
        words = cut.split(" ")
        while len(words) > 1 and words[-1].lower() in _DANGLING:
            words.pop()
        text = " ".join(words).rstrip(".,;:-– ")
    return text[:1].upper() + text[1:]
