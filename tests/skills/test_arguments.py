"""Argument substitution in a skill's prompt: $ARGUMENTS, $1…, ${SKILL_ROOT}."""

from __future__ import annotations

import pytest

from skills.arguments import render_arguments


def render(template: str, *args: str, raw: str = "", root: str = "") -> str:
    return render_arguments(template, args, raw_arguments=raw, skill_root=root)


def test_arguments_placeholder_is_the_raw_argument_string():
    assert render("Plan: $ARGUMENTS", "a", "b c", raw="a 'b c'") == "Plan: a 'b c'"


def test_positional_placeholders_are_one_based():
    assert render("$2 then $1", "first", "second") == "second then first"


def test_a_missing_positional_argument_becomes_empty():
    assert render("[$1][$2]", "only") == "[only][]"


def test_dollar_ten_is_the_tenth_argument_not_the_first_followed_by_zero():
    args = [str(n) for n in range(1, 11)]

    assert render("$10", *args) == "10"


def test_an_escaped_dollar_is_a_literal_dollar():
    assert render(r"costs \$1 or $1", "five") == "costs $1 or five"


@pytest.mark.parametrize(
    "text",
    ["$1.00", "$1,00", "$12.50", "US$ 5", "US$5", "R$1", "R$1,50", "$0", "$HOME", "${OTHER}"],
)
def test_amounts_and_unknown_names_stay_as_written(text):
    assert render(f"pay {text} now", "X", "Y") == f"pay {text} now"


def test_a_number_ending_a_sentence_is_still_a_placeholder():
    assert render("Give me $1, please.", "tea") == "Give me tea, please."


def test_skill_root_placeholder_is_replaced():
    assert render("${SKILL_ROOT}/prompt.md", root="/skills/finance") == "/skills/finance/prompt.md"


def test_arguments_name_with_a_suffix_stays_literal():
    assert render("$ARGUMENTSX", raw="a") == "$ARGUMENTSX"


def test_substituted_values_are_not_expanded_again():
    assert render("$1 and $2", "$2", "two", raw="$2 two") == "$2 and two"
