"""Tests for the guarded shell runner."""

from __future__ import annotations

import os
import time

import pytest

from skills.preprocessor import CommandInstruction
from skills.shell import (
    ARGUMENT_RULES,
    DISABLED_REFUSAL,
    ArgumentRule,
    SAFE_PATH,
    STAFF_ONLY_REFUSAL,
    ShellOutcome,
    ShellPolicy,
    format_outcome,
    run_command,
)


def shell(name: str, *args: str) -> CommandInstruction:
    """A shell instruction as the preprocessor would produce it."""
    return CommandInstruction(
        name=name, args=args, type="shell", original_string=f"!{' '.join([name, *args])}"
    )


# Commands the runner tests use beyond the shipped rules, with the arguments they need.
TEST_RULES = {
    **ARGUMENT_RULES,
    "ls": ArgumentRule(options=frozenset({"-A"}), operands=r"\S+"),
    "seq": ArgumentRule(operands=r"\d+"),
    "sleep": ArgumentRule(operands=r"\d+"),
    "echo": ArgumentRule(operands=r".*"),
}


def policy(
    *allowed: str, enabled: bool = True, timeout: float = 5.0, cap: int = 10_000
) -> ShellPolicy:
    return ShellPolicy(
        enabled=enabled,
        allowlist=frozenset(allowed),
        timeout_seconds=timeout,
        output_cap_bytes=cap,
        arguments=TEST_RULES,
    )


def assert_refused(outcome: ShellOutcome) -> None:
    assert outcome.ran is False
    assert outcome.exit_code is None
    assert outcome.output == ""
    assert outcome.refusal


# --- refusals -----------------------------------------------------------------------


def test_a_disabled_policy_refuses_even_staff():
    outcome = run_command(shell("echo", "hi"), policy("echo", enabled=False), is_staff=True)

    assert_refused(outcome)
    assert outcome.refusal == DISABLED_REFUSAL == "Shell commands are disabled on this service."


def test_a_non_staff_user_is_refused():
    outcome = run_command(shell("echo", "hi"), policy("echo"), is_staff=False)

    assert_refused(outcome)
    assert outcome.refusal == STAFF_ONLY_REFUSAL


def test_an_executable_outside_the_allowlist_is_refused_naming_the_allowed_ones():
    outcome = run_command(shell("rm", "-rf", "x"), policy("echo", "ls"), is_staff=True)

    assert_refused(outcome)
    assert "'rm'" in outcome.refusal
    assert "echo, ls" in outcome.refusal


def test_an_empty_allowlist_refuses_everything():
    outcome = run_command(shell("echo"), policy(), is_staff=True)

    assert_refused(outcome)
    assert "no commands are allowed" in outcome.refusal


def test_an_executable_given_as_a_path_is_refused_even_if_allowlisted():
    outcome = run_command(shell("/bin/echo", "hi"), policy("/bin/echo"), is_staff=True)

    assert_refused(outcome)
    assert "path" in outcome.refusal


def test_a_missing_executable_is_refused_instead_of_raising():
    missing = "no-such-program-here"

    outcome = run_command(shell(missing), policy(missing), is_staff=True)

    assert_refused(outcome)
    assert missing in outcome.refusal


def test_a_skill_instruction_is_not_accepted_as_a_shell_command():
    skill = CommandInstruction(name="echo", args=(), type="skill", original_string="/echo")

    with pytest.raises(ValueError):
        run_command(skill, policy("echo"), is_staff=True)


# --- arguments (SECURITY.md, Shell commands) -----------------------------------------


def shipped(*allowed: str) -> ShellPolicy:
    """The policy as settings build it: the shipped argument rules."""
    return ShellPolicy(enabled=True, allowlist=frozenset(allowed), timeout_seconds=5.0, output_cap_bytes=10_000)


@pytest.mark.parametrize(
    "args",
    [
        ("-f", "/etc/passwd"),
        ("--file=/etc/passwd",),
        ("--file", "/etc/passwd"),
        ("-s", "2030-01-01"),
        ("--set=2030-01-01",),
        ("-r", "/etc/passwd"),
        ("--reference=/etc/passwd",),
        ("0101000030",),
        ("-uf", "/etc/passwd"),
        ("--", "-f"),
    ],
)
def test_date_refuses_options_that_read_files_or_set_the_clock(args):
    outcome = run_command(shell("date", *args), shipped("date"), is_staff=True)

    assert_refused(outcome)
    assert "root:" not in (outcome.refusal or "")
    assert "'date' accepts -u, -R, -I, +FORMAT." in (outcome.refusal or "")


@pytest.mark.parametrize("args", [(), ("-u",), ("-R",), ("+%Y-%m-%d",), ("-u", "+%H:%M")])
def test_date_runs_with_its_permitted_arguments(args):
    outcome = run_command(shell("date", *args), shipped("date"), is_staff=True)

    assert (outcome.ran, outcome.exit_code) == (True, 0)


def test_echo_prints_words_but_takes_no_other_option():
    assert run_command(shell("echo", "olá", "mundo"), shipped("echo"), is_staff=True).output == "olá mundo\n"
    assert_refused(run_command(shell("echo", "-e", "\\x41"), shipped("echo"), is_staff=True))
    assert_refused(run_command(shell("echo", "--help"), shipped("echo"), is_staff=True))


def test_an_allowlisted_command_without_rules_takes_no_arguments():
    refused = run_command(shell("whoami", "--help"), shipped("whoami"), is_staff=True)
    ran = run_command(shell("whoami"), shipped("whoami"), is_staff=True)

    assert_refused(refused)
    assert refused.refusal == "the option '--help' is not permitted; 'whoami' accepts no arguments."
    assert ran.ran is True


# --- running --------------------------------------------------------------------------


def test_an_allowlisted_command_runs_with_shell_syntax_passed_literally():
    command = shell("echo", "hi;", "whoami", "|", "cat", "$(id)")

    outcome = run_command(command, policy("echo"), is_staff=True)

    assert outcome == ShellOutcome(
        ran=True,
        exit_code=0,
        output="hi; whoami | cat $(id)\n",
        truncated=False,
        timed_out=False,
        refusal=None,
    )


def test_the_exit_code_of_a_failing_command_is_reported():
    outcome = run_command(shell("ls", "/no/such/dir"), policy("ls"), is_staff=True)

    assert outcome.ran is True
    assert outcome.exit_code not in (0, None)
    assert "/no/such/dir" in outcome.output


def test_the_environment_holds_only_path(monkeypatch):
    monkeypatch.setenv("SECRET_KEY", "do-not-leak")

    outcome = run_command(shell("env"), policy("env"), is_staff=True)

    assert outcome.output == f"PATH={SAFE_PATH}\n"


@pytest.fixture
def open_stdin():
    """Point fd 0 at a pipe nobody closes, so an inherited stdin would block."""
    read_end, write_end = os.pipe()
    saved = os.dup(0)
    os.dup2(read_end, 0)
    yield
    os.dup2(saved, 0)
    for fd in (saved, read_end, write_end):
        os.close(fd)


def test_stdin_is_closed_so_a_reader_finishes_at_once(open_stdin):
    outcome = run_command(shell("cat"), policy("cat", timeout=1.0), is_staff=True)

    assert (outcome.exit_code, outcome.output, outcome.timed_out) == (0, "", False)


def test_the_command_runs_in_an_empty_scratch_directory():
    outcome = run_command(shell("ls", "-A"), policy("ls"), is_staff=True)
    cwd = run_command(shell("pwd"), policy("pwd"), is_staff=True).output.strip()

    assert outcome.output == ""
    assert cwd != os.getcwd()
    assert not os.path.exists(cwd)


def test_a_command_that_outlives_the_timeout_is_killed():
    started = time.monotonic()

    outcome = run_command(shell("sleep", "10"), policy("sleep", timeout=0.2), is_staff=True)

    assert outcome.ran is True
    assert outcome.timed_out is True
    assert outcome.exit_code is None
    assert time.monotonic() - started < 3


def test_output_beyond_the_cap_is_truncated():
    outcome = run_command(shell("seq", "1", "100000"), policy("seq", cap=100), is_staff=True)

    assert outcome.truncated is True
    assert len(outcome.output.encode()) == 100
    assert outcome.output.startswith("1\n2\n3\n")
    assert outcome.exit_code == 0


def test_output_within_the_cap_is_not_truncated():
    outcome = run_command(shell("seq", "1", "3"), policy("seq", cap=6), is_staff=True)

    assert (outcome.output, outcome.truncated) == ("1\n2\n3\n", False)


def test_output_cut_inside_a_utf8_character_is_decoded_with_a_replacement():
    outcome = run_command(shell("echo", "é"), policy("echo", cap=1), is_staff=True)

    assert outcome.output == "\ufffd"
    assert outcome.truncated is True


# --- formatting ---------------------------------------------------------------------------


def test_a_refusal_is_formatted_with_its_reason():
    command = shell("rm", "-rf", "x")
    outcome = run_command(command, policy(enabled=False), is_staff=True)

    assert format_outcome(command, outcome) == f"Did not run `rm -rf x`: {DISABLED_REFUSAL}"


def test_a_finished_command_shows_its_output_in_a_code_block_and_its_exit_code():
    command = shell("echo", "a b")
    outcome = ShellOutcome(
        ran=True, exit_code=0, output="a b\n", truncated=False, timed_out=False, refusal=None
    )

    assert format_outcome(command, outcome) == "$ echo 'a b'\n```\na b\n```\n(exit code 0)"


def test_output_containing_a_fence_gets_a_longer_fence():
    outcome = ShellOutcome(
        ran=True, exit_code=0, output="```\n", truncated=False, timed_out=False, refusal=None
    )

    assert "````\n```\n````" in format_outcome(shell("cat"), outcome)


def test_truncation_timeout_and_empty_output_are_stated():
    outcome = ShellOutcome(
        ran=True, exit_code=None, output="", truncated=True, timed_out=True, refusal=None
    )

    text = format_outcome(shell("sleep", "9"), outcome)

    assert "(no output)" in text
    assert "(output truncated)" in text
    assert "timed out" in text
    assert "exit code" not in text
