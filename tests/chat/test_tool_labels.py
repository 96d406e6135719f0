"""The words the chat shows while a tool runs come from the server, in the reply's language."""

from __future__ import annotations

from django.utils import translation

from chat.tool_labels import tool_label


def test_a_tools_label_is_in_the_language_the_reply_is_written_in() -> None:
    with translation.override("pt-br"):
        assert tool_label("create_expense") == "Registrando a despesa…"
    with translation.override("es"):
        assert tool_label("create_expense") == "Registrando el gasto…"
    with translation.override("en"):
        assert tool_label("create_expense") == "Recording the expense…"


def test_a_tool_with_no_phrase_of_its_own_gets_the_generic_one() -> None:
    with translation.override("pt-br"):
        assert tool_label("a_tool_added_later") == "Trabalhando nisso…"
