"""Message preprocessor: separates explicit instructions from natural language.

Runs on every user message before anything is sent to the model. It recognises
three kinds of explicit syntax:

``/name args...``
    Invokes a skill (``/help`` included). Recognised only as the first thing on
    a line, so ``and/or``, ``1/2``, ``https://x/y`` and ``src/core`` stay text.
    The name is a slug ``[a-z0-9][a-z0-9_-]*`` and must be followed by
    whitespace or the end of the line (``/src/core`` is therefore text).

``!command args`` / ``! command args`` / ``!`command args```
    A shell command, also only as the first thing on a line, so ``Great!``
    stays text. In the backtick form nothing but whitespace may follow the
    closing backtick; otherwise the line is prose that quotes a command.

``@name``
    A reference to one of the user's documents, recognised at the start of a
    line or after whitespace (so ``a@b.com`` is not one). Only plain file names
    are accepted; anything path-like is rejected and never resolved.

Command arguments are split shell-style (quotes keep spaces); an unbalanced
quote falls back to plain whitespace splitting instead of failing. Lines inside
fenced code blocks (```` ``` ````) are never treated as commands or references,
because pasted code routinely starts lines with ``/`` or ``!`` and contains
``@``.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from lifeassistant.references import FileReference

CommandType = Literal["skill", "shell"]

# A capital is allowed and folded: a phone's keyboard capitalises the first letter ("/Ajuda").
_SKILL_LINE = re.compile(r"/(?P<name>[A-Za-z0-9][A-Za-z0-9_-]*)(?=\s|$)")
# Allows "/" so that a path-like executable is parsed and then refused by the
# runner, rather than silently becoming chat text.
_EXECUTABLE = re.compile(r"[A-Za-z0-9._+/-]+")
_CODE_FENCE = "```"
# What shlex reads differently from ``str.split``: quotes, backslashes, and whitespace
# other than the four characters shlex splits on.
_SHELL_SYNTAX = re.compile(r"""['"\\]|[^\S \t\r\n]""")

# Also matches "/", "\\" and "~" so that path-like references are captured
# whole and can be rejected, instead of a harmless-looking prefix being used.
_REFERENCE = re.compile(r"(?<!\S)@(?P<name>[A-Za-z0-9._~/\\-]+)")
_PLAIN_DOCUMENT_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,254}")

@dataclass(frozen=True)
class CommandInstruction:
    """An explicit instruction extracted from a message."""

    name: str
    args: tuple[str, ...]
    type: CommandType
    original_string: str

    @property
    def raw_arguments(self) -> str:
        """The argument text exactly as typed, for ``$ARGUMENTS``."""
        parsed = _parse_command_line(self.original_string)
        return parsed[1] if parsed is not None else ""


@dataclass(frozen=True)
class PreprocessingResult:
    """The outcome of preprocessing one message."""

    cleaned_content: str
    commands: tuple[CommandInstruction, ...]
    should_halt_conversation: bool
    references: tuple[FileReference, ...]


def execute(content: str) -> PreprocessingResult:
    """Extract commands and document references from a user message.

    ``cleaned_content`` is the message without its command lines, with blank
    runs collapsed and outer whitespace trimmed. ``references`` lists each
    distinct ``@name`` on a prose or skill command line, in order of first
    mention, with why it is refused when it is path-like; the documents layer
    looks the usable ones up (``documents.services.reference_blocks``). Shell
    command lines are not scanned: their arguments go verbatim to a program,
    for which ``@`` has its own meaning (``curl -d @body.json``).

    ``should_halt_conversation`` is True when the message holds commands and no
    other text.

    One pass over the lines, building no record per line: a 40 KB paste has
    thousands of them, and this runs inside every ``POST …/messages/``.
    """
    kept: list[str] = []  # fenced code verbatim, prose without trailing spaces
    after_blank = True  # a blank prose line after another one (or first) is dropped
    has_text = False
    commands: list[CommandInstruction] = []
    scan = "@" in content
    scanned: list[str] = []  # prose and skill command lines, where @references count
    in_fence = False
    for text in content.splitlines():
        stripped = text.lstrip()
        fence = stripped.startswith(_CODE_FENCE)
        if in_fence or fence:
            in_fence = in_fence != fence  # a fence line opens or closes the block
            kept.append(text)
            after_blank = False
            has_text = has_text or bool(stripped)
            continue
        # Only "/" and "!" can open a command; other lines skip the parsing.
        command = _command_from_line(text) if stripped.startswith(("/", "!")) else None
        if command is not None:
            commands.append(command)
            if scan and command.type == "skill":
                scanned.append(text)
            continue
        if scan:
            scanned.append(text)
        line = text.rstrip()
        if not line and after_blank:
            continue
        after_blank = not line
        has_text = has_text or not after_blank
        kept.append(line)
    return PreprocessingResult(
        # Trimming also drops the blank lines a message ends with.
        cleaned_content="\n".join(kept).strip(),
        commands=tuple(commands),
        should_halt_conversation=bool(commands) and not has_text,
        references=_references("\n".join(scanned)),
    )


def _command_from_line(text: str) -> CommandInstruction | None:
    """The command a line holds, if the line is one."""
    original = text.strip()
    parsed = _parse_command_line(original)
    if parsed is None:
        return None
    name, raw_arguments = parsed
    command_type: CommandType = "skill" if original.startswith("/") else "shell"
    return CommandInstruction(
        name=name,
        args=_split_arguments(raw_arguments),
        type=command_type,
        original_string=original,
    )


def _parse_command_line(line: str) -> tuple[str, str] | None:
    """Split a stripped command line into (name, raw argument text)."""
    if line.startswith("/"):
        match = _SKILL_LINE.match(line)
        if match is None:
            return None
        return match.group("name").lower(), line[match.end() :].strip()
    if line.startswith("!"):
        body = _shell_body(line[1:].strip())
        if body is None:
            return None
        head, *rest = body.split(None, 1)
        name = _split_arguments(head)
        if len(name) != 1 or not _EXECUTABLE.fullmatch(name[0]):
            return None
        return name[0], "".join(rest).strip()
    return None


def _shell_body(text: str) -> str | None:
    """The command text after ``!``, unwrapping the backtick form."""
    if not text.startswith("`"):
        return text or None
    inner, closed, trailing = text[1:].partition("`")
    if closed and trailing.strip():
        return None
    return inner.strip() or None


def _split_arguments(raw: str) -> tuple[str, ...]:
    """Split arguments shell-style, tolerating unbalanced quotes."""
    if not _SHELL_SYNTAX.search(raw):
        # Without quotes, backslashes or unusual spaces shlex splits exactly like this,
        # at a tiny fraction of the cost: a message can hold thousands of command lines.
        return tuple(raw.split())
    try:
        return tuple(shlex.split(raw))
    except ValueError:
        # Chat text is full of apostrophes ("I don't know"); never fail on it.
        return tuple(raw.split())


def _find_references(text: str) -> Iterator[tuple[int, int, str]]:
    """Yield (start, end, name) for each ``@name`` in a line."""
    for match in _REFERENCE.finditer(text):
        # A trailing dot ends the sentence, it is not part of the name.
        name = match.group("name").rstrip(".")
        if name:
            start = match.start()
            yield start, start + 1 + len(name), name


def _rejection_reason(name: str) -> str | None:
    """Why a referenced name may not be resolved, or None if it may."""
    if ".." in name:
        return "path traversal is not allowed"
    if name.startswith(("/", "\\")):
        return "absolute paths are not allowed"
    if name.startswith("~"):
        return "home directory paths are not allowed"
    if "/" in name or "\\" in name:
        return "paths are not allowed; refer to a document by its name"
    if not _PLAIN_DOCUMENT_NAME.fullmatch(name):
        return "not a plain document name"
    return None


def _references(text: str) -> tuple[FileReference, ...]:
    """Every distinct ``@name`` in ``text``, in order of first mention.

    ``text`` holds the scanned lines joined by newlines: a name never spans two of
    them, and each line's start still counts as following whitespace.
    """
    found: dict[str, FileReference] = {}
    for _, _, name in _find_references(text):
        if name not in found:
            found[name] = FileReference(name=name, original_string=f"@{name}", rejected_reason=_rejection_reason(name))
    return tuple(found.values())
