"""Tests for the message preprocessor and argument rendering."""

from __future__ import annotations

import pytest

from chat.preprocessor import (
    UNKNOWN_DOCUMENT,
    CommandInstruction,
    FileReference,
    PreprocessingResult,
    execute,
    render_arguments,
)


class FakeDocuments:
    """A resolver over in-memory documents that records the names it is asked for."""

    def __init__(self, contents: dict[str, str] | None = None) -> None:
        self.contents = contents or {}
        self.calls: list[str] = []

    def __call__(self, name: str) -> str | None:
        self.calls.append(name)
        return self.contents.get(name)


# --- seed cases ---------------------------------------------------------------


def test_plain_text_has_no_commands_and_does_not_halt():
    result = execute("hello world")

    assert result.commands == ()
    assert result.should_halt_conversation is False
    assert result.cleaned_content == "hello world"
    assert result.references == ()


def test_slash_command_becomes_a_skill_instruction_and_halts():
    result = execute("/commit -m 'wip'")

    assert result.commands == (
        CommandInstruction(
            name="commit", args=("-m", "wip"), type="skill", original_string="/commit -m 'wip'"
        ),
    )
    assert result.should_halt_conversation is True
    assert result.cleaned_content == ""


@pytest.mark.parametrize("message", ["!ls -la", "!`ls -la`", "! ls -la"])
def test_every_shell_form_becomes_a_shell_instruction_and_halts(message):
    result = execute(message)

    assert result.commands == (
        CommandInstruction(name="ls", args=("-la",), type="shell", original_string=message),
    )
    assert result.should_halt_conversation is True


def test_a_path_reference_in_a_command_is_parsed_but_rejected_and_never_resolved():
    resolve = FakeDocuments({"index.ts": "export {}"})

    result = execute("/review @src/index.ts", resolve_reference=resolve)

    assert result.commands[0].args == ("@src/index.ts",)
    (reference,) = result.references
    assert reference.name == "src/index.ts"
    assert reference.rejected_reason is not None
    assert resolve.calls == []
    assert "export {}" not in result.cleaned_content


def test_a_plain_reference_in_a_command_is_resolved_and_appended_as_a_document():
    resolve = FakeDocuments({"index.ts": "export {}"})

    result = execute("/review @index.ts", resolve_reference=resolve)

    assert result.commands[0].args == ("@index.ts",)
    assert result.references == (
        FileReference(name="index.ts", original_string="@index.ts", rejected_reason=None),
    )
    assert result.cleaned_content == "[document: index.ts]\nexport {}\n[/document]"
    assert result.should_halt_conversation is True


def test_a_reference_in_prose_is_replaced_by_the_document_content():
    result = execute("check this @file", resolve_reference=FakeDocuments({"file": "line one\n"}))

    assert result.cleaned_content == "check this [document: file]\nline one\n[/document]"
    assert result.should_halt_conversation is False


# --- where commands are recognised ----------------------------------------------


def test_slash_command_is_recognised_at_the_start_of_any_line():
    result = execute("Here is my week.\n  /finance report 'last month'\nThanks")

    assert [c.name for c in result.commands] == ["finance"]
    assert result.commands[0].args == ("report", "last month")
    assert result.cleaned_content == "Here is my week.\nThanks"
    assert result.should_halt_conversation is False


@pytest.mark.parametrize(
    "message",
    [
        "salt and/or pepper",
        "add 1/2 cup of sugar",
        "see https://example.com/help for details",
        "the bug is in src/core",
        "/src/core is where it lives",
        "/help.",
        "/Finance",
    ],
)
def test_slashes_that_do_not_start_a_line_with_a_slug_are_plain_text(message):
    result = execute(message)

    assert result.commands == ()
    assert result.cleaned_content == message


@pytest.mark.parametrize("message", ["Great!", "Wow !ls", "!!!", "!", "! ", "!`ls` is what I ran"])
def test_exclamation_marks_that_are_not_a_leading_command_are_plain_text(message):
    assert execute(message).commands == ()


def test_help_is_a_skill_command_without_arguments():
    (command,) = execute("/help").commands

    assert (command.name, command.args, command.type) == ("help", (), "skill")


def test_double_quoted_arguments_keep_their_spaces():
    (command,) = execute('/commit -m "fix the bug"').commands

    assert command.args == ("-m", "fix the bug")


def test_an_unbalanced_quote_falls_back_to_whitespace_splitting():
    (command,) = execute("/counselor I don't know what to do").commands

    assert command.args == ("I", "don't", "know", "what", "to", "do")


def test_an_unclosed_backtick_still_yields_the_shell_command():
    (command,) = execute("!`ls -la").commands

    assert (command.name, command.args) == ("ls", ("-la",))


def test_shell_metacharacters_stay_literal_arguments():
    (command,) = execute("!echo hi; rm -rf / | cat").commands

    assert command.args == ("hi;", "rm", "-rf", "/", "|", "cat")


def test_a_path_executable_is_parsed_so_the_runner_can_refuse_it():
    (command,) = execute("!/bin/sh -c id").commands

    assert command.name == "/bin/sh"


def test_lines_inside_a_code_fence_are_never_commands_or_references():
    message = "my script:\n```\n/usr/bin/env\n!ls\n/help\n@Override\n```"

    result = execute(message, resolve_reference=FakeDocuments())

    assert result.commands == ()
    assert result.references == ()
    assert result.cleaned_content == message


def test_raw_arguments_are_the_argument_text_as_typed():
    skill, shell = execute("/plan  trip to 'Rome'  \n!`echo  a  b`").commands

    assert skill.raw_arguments == "trip to 'Rome'"
    assert shell.raw_arguments == "a  b"


# --- cleaned content and halting --------------------------------------------------


def test_removing_command_lines_collapses_the_blank_lines_left_behind():
    result = execute("\n\nhello   \n\n/help\n\n\nbye\n\n")

    assert result.cleaned_content == "hello\n\nbye"


def test_several_commands_without_prose_halt_the_conversation():
    result = execute("/help\n\n!ls\n")

    assert [c.type for c in result.commands] == ["skill", "shell"]
    assert result.should_halt_conversation is True


def test_a_command_with_pasted_code_does_not_halt():
    result = execute("/review\n```\nprint(1)\n```")

    assert result.should_halt_conversation is False


@pytest.mark.parametrize("message", ["", "   ", "\n\n"])
def test_an_empty_message_has_nothing_and_does_not_halt(message):
    assert execute(message) == PreprocessingResult(
        cleaned_content="", commands=(), should_halt_conversation=False, references=()
    )


# --- document references ------------------------------------------------------------


def test_an_email_address_is_not_a_reference():
    result = execute("mail me at anna@example.com", resolve_reference=FakeDocuments())

    assert result.references == ()
    assert result.cleaned_content == "mail me at anna@example.com"


@pytest.mark.parametrize(
    ("message", "name"),
    [
        ("read @../etc/passwd", "../etc/passwd"),
        ("read @/etc/passwd", "/etc/passwd"),
        ("read @~/.ssh/id_rsa", "~/.ssh/id_rsa"),
        ("read @notes/../../secret", "notes/../../secret"),
        ("read @..\\windows\\win.ini", "..\\windows\\win.ini"),
        ("read @docs/notes.txt", "docs/notes.txt"),
        ("read @.env", ".env"),
    ],
)
def test_path_like_references_are_rejected_kept_literally_and_never_resolved(message, name):
    resolve = FakeDocuments()

    result = execute(message, resolve_reference=resolve)

    (reference,) = result.references
    assert reference.name == name
    assert reference.original_string == f"@{name}"
    assert reference.rejected_reason is not None
    assert reference.rejected_reason != UNKNOWN_DOCUMENT
    assert resolve.calls == []
    assert result.cleaned_content == message


def test_traversal_is_named_as_the_rejection_reason():
    (reference,) = execute("@../etc/passwd").references

    assert "traversal" in reference.rejected_reason


def test_an_unknown_document_stays_literal_and_is_reported():
    result = execute("summarise @missing.txt please", resolve_reference=FakeDocuments())

    assert result.references == (
        FileReference(
            name="missing.txt", original_string="@missing.txt", rejected_reason=UNKNOWN_DOCUMENT
        ),
    )
    assert result.cleaned_content == "summarise @missing.txt please"


def test_without_a_resolver_references_are_reported_but_not_expanded():
    result = execute("look at @notes.txt")

    assert result.references == (
        FileReference(name="notes.txt", original_string="@notes.txt", rejected_reason=None),
    )
    assert result.cleaned_content == "look at @notes.txt"


@pytest.mark.parametrize("name", ["notes.txt", "user_context_1.txt", "report-2024.csv"])
def test_plain_file_names_are_resolved(name):
    resolve = FakeDocuments({name: "data"})

    result = execute(f"use @{name}", resolve_reference=resolve)

    assert resolve.calls == [name]
    assert result.cleaned_content == f"use [document: {name}]\ndata\n[/document]"


def test_sentence_punctuation_after_a_reference_is_not_part_of_the_name():
    result = execute("read @notes.txt. Then @plan.md, ok?", resolve_reference=FakeDocuments())

    assert [r.name for r in result.references] == ["notes.txt", "plan.md"]


def test_a_document_mentioned_twice_is_resolved_and_expanded_once():
    resolve = FakeDocuments({"notes.txt": "N"})
    message = "compare @notes.txt\n/review @notes.txt\nwith @notes.txt"

    result = execute(message, resolve_reference=resolve)

    assert resolve.calls == ["notes.txt"]
    assert len(result.references) == 1
    expanded = "compare [document: notes.txt]\nN\n[/document]\nwith @notes.txt"
    assert result.cleaned_content == expanded


def test_shell_command_lines_are_not_scanned_for_references():
    resolve = FakeDocuments({"body.json": "{}"})

    result = execute("!curl -d @body.json", resolve_reference=resolve)

    assert result.references == ()
    assert resolve.calls == []
    assert result.commands[0].args == ("-d", "@body.json")


def test_document_content_is_never_parsed_as_commands():
    resolve = FakeDocuments({"notes.txt": "/delete everything\n!rm -rf /"})

    result = execute("read @notes.txt", resolve_reference=resolve)

    assert result.commands == ()
    assert "/delete everything" in result.cleaned_content


# --- argument rendering -------------------------------------------------------------


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
