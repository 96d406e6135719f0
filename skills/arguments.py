"""Argument substitution in a skill's prompt (docs/specification.md, skill discovery and routing §2.1.4): ``$ARGUMENTS``, ``$1``…

Pure: a template and the arguments of a ``/skill args`` command in, text out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_PLACEHOLDER = re.compile(
    r"(?P<escaped>\\\$)"
    r"|\$\{SKILL_ROOT\}"
    r"|(?P<arguments>\$ARGUMENTS)(?![A-Za-z0-9_])"
    # A positional placeholder is "$" + a number, unless it reads as money:
    # preceded by a letter (R$1, US$5) or followed by a decimal part ($1.00,
    # $1,00). "(?!\d)" stops backtracking from turning "$12.50" into "$1".
    r"|(?<![A-Za-z])\$(?P<index>[1-9][0-9]*)(?![0-9])(?![.,][0-9])"
)


def render_arguments(
    template: str,
    args: Sequence[str],
    *,
    raw_arguments: str,
    skill_root: str = "",
) -> str:
    """Substitute argument placeholders in a command template.

    ``$ARGUMENTS`` becomes ``raw_arguments``; ``$1``…``$N`` the 1-based
    positional args (empty when missing; ``$10`` is the tenth); ``${SKILL_ROOT}``
    becomes ``skill_root``; ``\\$`` is a literal ``$``. Amounts are left alone:
    ``$<digits>`` is not a placeholder when a letter precedes the ``$`` (``R$1``)
    or a ``.``/``,`` plus digit follows the number (``$1.00``). Anything else,
    such as ``$0`` or ``$HOME``, stays literal. Substitution is single-pass, so
    placeholders inside argument values are never expanded.
    """

    def substitute(match: re.Match[str]) -> str:
        if match.group("escaped"):
            return "$"
        if match.group("arguments"):
            return raw_arguments
        index = match.group("index")
        if index is None:
            return skill_root
        position = int(index) - 1
        return args[position] if position < len(args) else ""

    return _PLACEHOLDER.sub(substitute, template)
