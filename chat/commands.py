"""Explicit commands in a message: `/skill args`, `/help` and `!shell` (skills spec 002 §2.1).

``plan_commands`` turns the preprocessor's result into what the message service does:
a reply made without the model (help, an unknown command, shell output), a skill
forced for this message, and the text the model should see.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.conf import settings

from skills.domain import SkillDefinition
from skills.inertia import is_allowed

from .preprocessor import CommandInstruction, PreprocessingResult
from .shell import ShellPolicy, format_outcome, run_command


@dataclass(frozen=True)
class CommandPlan:
    reply: str | None  # set when the message is answered without the model
    explicit_skill: str | None
    skill_args: tuple[str, ...]
    skill_raw_arguments: str
    model_text: str


@dataclass(frozen=True)
class AvailableCommand:
    name: str
    description: str
    usage: str


def available_commands(
    skills: Sequence[SkillDefinition], *, preferences: dict[str, bool], is_staff: bool
) -> list[AvailableCommand]:
    """The commands this user may type: /help, one per skill they can use, and ! for staff."""
    commands = [AvailableCommand("/help", "List the commands you can use.", "/help")]
    commands.extend(
        AvailableCommand(f"/{skill.name}", _one_line(skill.description), f"/{skill.name} [your message]")
        for skill in sorted(skills, key=lambda s: (s.priority, s.name))
        if is_allowed(skill, preferences)
    )
    if settings.SHELL_COMMANDS_ENABLED and is_staff:
        allowed = ", ".join(sorted(settings.SHELL_ALLOWLIST))
        commands.append(AvailableCommand("!command", f"Run an allowed server command ({allowed}).", "!date"))
    return commands


def plan_commands(
    result: PreprocessingResult,
    *,
    skills: Sequence[SkillDefinition],
    preferences: dict[str, bool],
    is_staff: bool,
) -> CommandPlan:
    """Decide what the commands of a preprocessed message do."""
    usable = {skill.name: skill for skill in skills if is_allowed(skill, preferences)}
    skill_commands = [c for c in result.commands if c.type == "skill"]
    shell_outputs = [_shell_reply(c, is_staff=is_staff) for c in result.commands if c.type == "shell"]
    text = result.cleaned_content

    if skill_commands:
        first = skill_commands[0]
        if first.name == "help" or first.name not in usable:
            return CommandPlan(_help_reply(first, skills, preferences, is_staff), None, (), "", text)
        model_text = "\n\n".join(part for part in (first.raw_arguments.strip(), text) if part)
        model_text = _with_shell_outputs(model_text, shell_outputs)
        reply = None if model_text else f"The {first.name} skill is now active in this conversation. What would you like to talk about?"
        return CommandPlan(reply, first.name, first.args, first.raw_arguments, model_text)

    if shell_outputs and result.should_halt_conversation:
        return CommandPlan("\n\n".join(shell_outputs), None, (), "", "")
    return CommandPlan(None, None, (), "", _with_shell_outputs(text, shell_outputs))


def _with_shell_outputs(text: str, outputs: list[str]) -> str:
    blocks = [f"[command output]\n{output}\n[/command output]" for output in outputs]
    return "\n\n".join(part for part in (text, *blocks) if part)


def _shell_reply(command: CommandInstruction, *, is_staff: bool) -> str:
    policy = ShellPolicy(
        enabled=settings.SHELL_COMMANDS_ENABLED,
        allowlist=frozenset(settings.SHELL_ALLOWLIST),
        timeout_seconds=settings.SHELL_TIMEOUT_SECONDS,
        output_cap_bytes=settings.SHELL_OUTPUT_CAP_BYTES,
    )
    return format_outcome(command, run_command(command, policy, is_staff=is_staff))


def _help_reply(
    command: CommandInstruction, skills: Sequence[SkillDefinition], preferences: dict[str, bool], is_staff: bool
) -> str:
    listing = "\n".join(
        f"- {c.usage} — {c.description}" for c in available_commands(skills, preferences=preferences, is_staff=is_staff)
    )
    if command.name == "help":
        return f"Commands you can use:\n{listing}"
    return f"Unknown command /{command.name}. Commands you can use:\n{listing}"


def _one_line(text: str, limit: int = 120) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"

