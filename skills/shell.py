"""Guarded runner for ``!command`` shell instructions.

Users of a hosted service must not be able to run programs on its servers, so
execution is refused unless a policy enables it, and even then only for staff,
only for allowlisted executables, and only with the arguments each one permits
(``ARGUMENT_RULES``): named options and a pattern for operands, or no arguments
at all. So ``date -f /etc/passwd`` (read a file) and ``date -s …`` (set the clock)
never run, and no argument names a file. When a command does run, it gets no
shell (``;``, ``|`` and ``$()`` reach the program as literal arguments), no
stdin, an environment holding only ``PATH``, an empty scratch working
directory, a time limit and a cap on the output it can return.
"""

from __future__ import annotations

import os
import re
import selectors
import shlex
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import IO, cast

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, gettext_noop

from skills.preprocessor import CommandInstruction

SAFE_PATH = "/usr/local/bin:/usr/bin:/bin"
# The user reads these (the whole reply when a message is only commands), in their language.
DISABLED_REFUSAL = gettext_lazy("Shell commands are disabled on this service.")
STAFF_ONLY_REFUSAL = gettext_lazy("Shell commands are only available to staff accounts.")

_READ_CHUNK_BYTES = 65536
_BACKTICK_RUN = re.compile(r"`+")


@dataclass(frozen=True)
class ArgumentRule:
    """The arguments one command may take: exact option tokens, and operands matching a pattern.

    ``operands`` is a regular expression each operand must match in full; None means
    no operands. An argument starting with "-" is an option and must be listed.
    """

    options: frozenset[str] = frozenset()
    operands: str | None = None
    shown: str = ""  # how the permitted arguments read in a refusal

    def problem(self, args: tuple[str, ...]) -> str | None:
        """Why ``args`` may not be passed, or None when they may."""
        for arg in args:
            if arg.startswith("-") and arg != "-":
                if arg not in self.options:
                    return _("the option '%(argument)s' is not permitted") % {"argument": arg}
            elif self.operands is None or not re.fullmatch(self.operands, arg):
                return _("the argument '%(argument)s' is not permitted") % {"argument": arg}
        return None


# What each allowlisted command may be given. A command allowlisted by SHELL_ALLOWLIST
# without a rule here runs with no arguments at all.
ARGUMENT_RULES: Mapping[str, ArgumentRule] = {
    # Show the time: UTC or a standard format, or "+FORMAT". Never -f/--file (reads a
    # file), -r/--reference (stats a file), -s/--set or an MMDDhhmm operand (sets the clock).
    "date": ArgumentRule(
        options=frozenset({"-u", "--utc", "--universal", "-R", "--rfc-email", "-I", "--iso-8601"}),
        operands=r"\+[^\n]{1,100}",
        shown="-u, -R, -I, +FORMAT",
    ),
    # Text to print back; echo opens nothing.
    "echo": ArgumentRule(options=frozenset({"-n"}), operands=r"[^\n]{0,200}", shown=gettext_noop("-n and words")),
    "uptime": ArgumentRule(options=frozenset({"-p", "--pretty"}), shown="-p"),
}
NO_ARGUMENTS = ArgumentRule(shown=gettext_noop("no arguments"))


@dataclass(frozen=True)
class ShellPolicy:
    """Whether and how shell commands may run."""

    enabled: bool
    allowlist: frozenset[str]
    timeout_seconds: float
    output_cap_bytes: int
    arguments: Mapping[str, ArgumentRule] = field(default_factory=lambda: ARGUMENT_RULES)

    def rule_for(self, name: str) -> ArgumentRule:
        return self.arguments.get(name, NO_ARGUMENTS)


@dataclass(frozen=True)
class ShellOutcome:
    """What happened to one shell command; ``refusal`` is set when it did not run."""

    ran: bool
    exit_code: int | None
    output: str
    truncated: bool
    timed_out: bool
    refusal: str | None


@dataclass(frozen=True)
class _Capture:
    output: bytes
    truncated: bool
    timed_out: bool


def run_command(
    command: CommandInstruction, policy: ShellPolicy, *, is_staff: bool
) -> ShellOutcome:
    """Run a shell instruction if the policy and user allow it.

    Never raises for a refused or missing executable; the reason is returned
    in ``refusal``. Raises ValueError when given a non-shell instruction.
    """
    if command.type != "shell":
        raise ValueError(f"not a shell command: {command.original_string!r}")
    refusal = _refusal(command.name, policy, is_staff=is_staff) or _argument_refusal(command, policy)
    if refusal is not None:
        return _refused(refusal)
    executable = shutil.which(command.name, path=SAFE_PATH)
    if executable is None:
        return _refused(_("'%(command)s' is not installed on this server.") % {"command": command.name})
    try:
        return _run(executable, command.args, policy)
    except OSError as error:
        return _refused(
            _("'%(command)s' could not be started: %(error)s.") % {"command": command.name, "error": error.strerror}
        )


def format_outcome(command: CommandInstruction, outcome: ShellOutcome) -> str:
    """The chat reply describing a shell command's outcome."""
    shown = shlex.join([command.name, *command.args])
    if not outcome.ran:
        return _("Did not run `%(command)s`: %(reason)s") % {"command": shown, "reason": outcome.refusal}
    lines = [f"$ {shown}", _fenced(outcome.output.rstrip("\n"))]
    if outcome.truncated:
        lines.append(_("(output truncated)"))
    if outcome.timed_out:
        lines.append(_("(timed out; the command was stopped)"))
    else:
        lines.append(_("(exit code %(code)s)") % {"code": outcome.exit_code})
    return "\n".join(lines)


def _refusal(name: str, policy: ShellPolicy, *, is_staff: bool) -> str | None:
    """Why the executable may not run, or None if it may."""
    if not policy.enabled:
        return str(DISABLED_REFUSAL)
    if not is_staff:
        return str(STAFF_ONLY_REFUSAL)
    if "/" in name or "\\" in name:
        return _("Run commands by name only; '%(command)s' is a path.") % {"command": name}
    if name not in policy.allowlist:
        if not policy.allowlist:
            return _("'%(command)s' is not allowed; no commands are allowed.") % {"command": name}
        allowed = ", ".join(sorted(policy.allowlist))
        return _("'%(command)s' is not allowed. Allowed commands: %(allowed)s.") % {"command": name, "allowed": allowed}
    return None


def _argument_refusal(command: CommandInstruction, policy: ShellPolicy) -> str | None:
    rule = policy.rule_for(command.name)
    problem = rule.problem(command.args)
    if problem is None:
        return None
    accepted = _(rule.shown or "no arguments")  # marked with gettext_noop where defined
    return _("%(problem)s; '%(command)s' accepts %(accepted)s.") % {
        "problem": problem, "command": command.name, "accepted": accepted
    }


def _refused(reason: str) -> ShellOutcome:
    """An outcome for a command that was not run."""
    return ShellOutcome(
        ran=False, exit_code=None, output="", truncated=False, timed_out=False, refusal=reason
    )


def _run(executable: str, args: tuple[str, ...], policy: ShellPolicy) -> ShellOutcome:
    """Run the program in a scratch directory, capturing capped output."""
    deadline = time.monotonic() + policy.timeout_seconds
    with tempfile.TemporaryDirectory() as scratch:
        process = subprocess.Popen(
            [executable, *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env={"PATH": SAFE_PATH},
            cwd=scratch,
            # Its own process group, so a timeout also kills any children.
            start_new_session=True,
        )
        with process:
            # stdout=PIPE guarantees a stream.
            stream = cast(IO[bytes], process.stdout)
            try:
                capture = _capture(stream, policy.output_cap_bytes, deadline)
                exit_code = None if capture.timed_out else _wait(process, deadline)
            finally:
                if process.poll() is None:
                    _kill(process)
    return ShellOutcome(
        ran=True,
        exit_code=exit_code,
        output=capture.output.decode("utf-8", errors="replace"),
        truncated=capture.truncated,
        timed_out=exit_code is None,
        refusal=None,
    )


def _capture(stream: IO[bytes], cap: int, deadline: float) -> _Capture:
    """Read output until EOF or the deadline, keeping at most ``cap`` bytes."""
    kept = bytearray()
    truncated = False
    with selectors.DefaultSelector() as selector:
        selector.register(stream, selectors.EVENT_READ)
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return _Capture(bytes(kept), truncated, timed_out=True)
            if not selector.select(remaining):
                continue
            chunk = os.read(stream.fileno(), _READ_CHUNK_BYTES)
            if not chunk:
                return _Capture(bytes(kept), truncated, timed_out=False)
            # Keep draining past the cap so the program is not blocked on a
            # full pipe and its exit code stays meaningful.
            room = cap - len(kept)
            kept += chunk[: max(room, 0)]
            truncated = truncated or len(chunk) > room


def _wait(process: subprocess.Popen[bytes], deadline: float) -> int | None:
    """The exit code, or None if the program outlives the deadline."""
    try:
        return process.wait(timeout=max(deadline - time.monotonic(), 0))
    except subprocess.TimeoutExpired:
        return None


def _kill(process: subprocess.Popen[bytes]) -> None:
    """Kill the program and everything it started."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait()


def _fenced(output: str) -> str:
    """Output as a code block whose fence the output cannot close early."""
    if not output:
        return "(no output)"
    longest = max((len(run) for run in _BACKTICK_RUN.findall(output)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}\n{output}\n{fence}"
