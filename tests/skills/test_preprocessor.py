"""Tests for the message preprocessor: commands and document references.

Looking referenced documents up is the documents layer's job (tests/documents/).
"""

from __future__ import annotations

import pytest

from skills.preprocessor import CommandInstruction, PreprocessingResult, execute
from lifeassistant.references import FileReference


# --- the specification's cases (docs/specification.md, skill discovery and routing §4.1) ---


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


def test_a_path_reference_in_a_command_is_parsed_but_rejected():
    result = execute("/review @src/index.ts")

    assert result.commands[0].args == ("@src/index.ts",)
    (reference,) = result.references
    assert reference.name == "src/index.ts"
    assert reference.rejected_reason is not None


def test_a_plain_reference_in_a_command_is_reported_for_lookup_and_halts():
    result = execute("/review @index.ts")

    assert result.commands[0].args == ("@index.ts",)
    assert result.references == (
        FileReference(name="index.ts", original_string="@index.ts", rejected_reason=None),
    )
    assert result.cleaned_content == ""
    assert result.should_halt_conversation is True


def test_a_reference_in_prose_stays_in_the_text_and_is_reported():
    result = execute("check this @file")

    assert result.cleaned_content == "check this @file"
    assert [r.name for r in result.references] == ["file"]
    assert result.should_halt_conversation is False


# --- where commands are recognised ----------------------------------------------


def test_slash_command_is_recognised_at_the_start_of_any_line():
    result = execute("Here is my week.\n  /finance report 'last month'\nThanks")

    assert [c.name for c in result.commands] == ["finance"]
    assert result.commands[0].args == ("report", "last month")
    assert result.cleaned_content == "Here is my week.\nThanks"
    assert result.should_halt_conversation is False


@pytest.mark.parametrize(("message", "name"), [("/Ajuda", "ajuda"), ("/Finance gastei 50", "finance"), ("/HELP", "help")])
def test_a_capitalised_command_is_the_command(message, name):
    """A phone's keyboard capitalises the first letter: "/Ajuda" went to the model as prose."""
    (command,) = execute(message).commands

    assert (command.type, command.name) == ("skill", name)


@pytest.mark.parametrize(
    "message",
    [
        "salt and/or pepper",
        "add 1/2 cup of sugar",
        "see https://example.com/help for details",
        "the bug is in src/core",
        "/src/core is where it lives",
        "/help.",
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

    result = execute(message)

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
    result = execute("mail me at anna@example.com")

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
def test_path_like_references_are_rejected_and_kept_literally(message, name):
    result = execute(message)

    (reference,) = result.references
    assert reference.name == name
    assert reference.original_string == f"@{name}"
    assert reference.rejected_reason is not None
    assert result.cleaned_content == message


def test_traversal_is_named_as_the_rejection_reason():
    (reference,) = execute("@../etc/passwd").references

    assert "traversal" in reference.rejected_reason


def test_references_are_reported_but_not_expanded():
    result = execute("look at @notes.txt")

    assert result.references == (
        FileReference(name="notes.txt", original_string="@notes.txt", rejected_reason=None),
    )
    assert result.cleaned_content == "look at @notes.txt"


@pytest.mark.parametrize("name", ["notes.txt", "user_context_1.txt", "report-2024.csv"])
def test_plain_file_names_are_usable(name):
    (reference,) = execute(f"use @{name}").references

    assert reference.rejected_reason is None


def test_sentence_punctuation_after_a_reference_is_not_part_of_the_name():
    result = execute("read @notes.txt. Then @plan.md, ok?")

    assert [r.name for r in result.references] == ["notes.txt", "plan.md"]


def test_a_document_mentioned_twice_is_reported_once():
    result = execute("compare @notes.txt\n/review @notes.txt\nwith @notes.txt")

    assert result.references == (
        FileReference(name="notes.txt", original_string="@notes.txt", rejected_reason=None),
    )


def test_shell_command_lines_are_not_scanned_for_references():
    result = execute("!curl -d @body.json")

    assert result.references == ()
    assert result.commands[0].args == ("-d", "@body.json")
