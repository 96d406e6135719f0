"""Explicit commands in a message: `/skill args`, `/help` and `!shell` (docs/specification.md, skill discovery and routing §2.1).

``plan_commands`` turns the preprocessor's result into what the message service does:
a reply made without the model (help, an unknown command, shell output), a skill
forced for this message, and the text the model should see.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from django.conf import settings
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from skills.domain import HELP_NAMES, SkillDefinition
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


def help_name() -> str:
    """The reader's word for /help (any of ``HELP_NAMES`` works); the listing shows it."""
    return pgettext("the /help command, lowercase ASCII letters only", "help")


@dataclass(frozen=True)
class AvailableCommand:
    name: str
    description: str
    usage: str


def available_commands(
    skills: Sequence[SkillDefinition], *, preferences: dict[str, bool], is_staff: bool, disabled: Collection[str] = ()
) -> list[AvailableCommand]:
    """The commands this user may type: /help, one per skill they can use, and ! for staff."""
    name = f"/{help_name()}"
    commands = [AvailableCommand(name, _("List the commands you can use."), name)]
    commands.extend(
        AvailableCommand(
            f"/{skill.name}", _one_line(skill.description_for(get_language())), f"/{skill.name} " + _("[your message]")
        )
        for skill in sorted(skills, key=lambda s: (s.priority, s.name))
        if is_allowed(skill, preferences, disabled)
    )
    if settings.SHELL_COMMANDS_ENABLED and is_staff:
        allowed = ", ".join(sorted(settings.SHELL_ALLOWLIST))
        commands.append(
            AvailableCommand("!command", _("Run an allowed server command (%(allowed)s).") % {"allowed": allowed}, "!date")
        )
    return commands


def plan_commands(
    result: PreprocessingResult,
    *,
    skills: Sequence[SkillDefinition],
    preferences: dict[str, bool],
    is_staff: bool,
    disabled: Collection[str] = (),
    needs_consent: Collection[str] = (),
) -> CommandPlan:
    """Decide what the commands of a preprocessed message do (replies in the active language).

    ``needs_consent`` are skills off until the user consents to the sensitive data they use.
    """
    off = [*disabled, *needs_consent]
    usable = {skill.name: skill for skill in skills if is_allowed(skill, preferences, off)}
    skill_commands = [c for c in result.commands if c.type == "skill"]
    shell_outputs = _shell_replies([c for c in result.commands if c.type == "shell"], is_staff=is_staff)
    text = result.cleaned_content

    if skill_commands:
        first = skill_commands[0]
        if first.name in HELP_NAMES or first.name not in usable:
            answer = _unavailable_skill_reply(first.name, skills, preferences, disabled, needs_consent) or _help_reply(
                first, skills, preferences, is_staff, off
            )
            return CommandPlan(answer, None, (), "", text)
        model_text = "\n\n".join(part for part in (first.raw_arguments.strip(), text) if part)
        model_text = _with_shell_outputs(model_text, shell_outputs)
        reply: str | None = None
        if not model_text:
            reply = _("/%(skill)s is now active in this conversation. What would you like to talk about?") % {
                "skill": first.name
            }
        return CommandPlan(reply, first.name, first.args, first.raw_arguments, model_text)

    if shell_outputs and result.should_halt_conversation:
        return CommandPlan("\n\n".join(shell_outputs), None, (), "", "")
    return CommandPlan(None, None, (), "", _with_shell_outputs(text, shell_outputs))


def _with_shell_outputs(text: str, outputs: list[str]) -> str:
    blocks = [f"[command output]\n{output}\n[/command output]" for output in outputs]
    return "\n\n".join(part for part in (text, *blocks) if part)


def _shell_replies(commands: list[CommandInstruction], *, is_staff: bool) -> list[str]:
    """The first SHELL_MAX_COMMANDS shell commands' replies, and a note for the rest."""
    limit = settings.SHELL_MAX_COMMANDS
    replies = [_shell_reply(command, is_staff=is_staff) for command in commands[:limit]]
    if len(commands) > limit:
        replies.append(
            _("%(count)s more ! commands were not run: at most %(limit)s per message.")
            % {"count": len(commands) - limit, "limit": limit}
        )
    return replies


def _shell_reply(command: CommandInstruction, *, is_staff: bool) -> str:
    policy = ShellPolicy(
        enabled=settings.SHELL_COMMANDS_ENABLED,
        allowlist=frozenset(settings.SHELL_ALLOWLIST),
        timeout_seconds=settings.SHELL_TIMEOUT_SECONDS,
        output_cap_bytes=settings.SHELL_OUTPUT_CAP_BYTES,
    )
    return format_outcome(command, run_command(command, policy, is_staff=is_staff))


def _unavailable_skill_reply(
    name: str,
    skills: Sequence[SkillDefinition],
    preferences: dict[str, bool],
    disabled: Collection[str],
    needs_consent: Collection[str] = (),
) -> str | None:
    """How to reach a skill that exists but is off for this user (None for an unknown name).

    A skill behind a preference (``spiritual`` needs ``christian_perspective``) or one the
    user turned off is not an unknown command: the user is told how to turn it on.
    """
    skill = next((s for s in skills if s.name == name and s.enabled), None)
    if skill is None:
        return None
    if name in disabled and is_allowed(skill, preferences):
        return _(
            "You turned off /%(skill)s. To use it, turn it back on under “Skills you want” in your preferences."
        ) % {"skill": name}
    required = skill.requires_user_preference
    if required and not preferences.get(required):
        # Its preference is the skill's own checkbox on the preferences page.
        return _(
            "/%(skill)s is off until you turn it on under “Skills you want” in your preferences."
        ) % {"skill": name}
    if name in needs_consent:
        return _(
            "/%(skill)s needs your consent first: answer the request below, or give it under Preferences."
        ) % {"skill": name}
    return None


def _help_reply(
    command: CommandInstruction,
    skills: Sequence[SkillDefinition],
    preferences: dict[str, bool],
    is_staff: bool,
    disabled: Collection[str],
) -> str:
    listing = "\n".join(
        f"- {c.usage} — {c.description}"
        for c in available_commands(skills, preferences=preferences, is_staff=is_staff, disabled=disabled)
    )
    if command.name in HELP_NAMES:
        return _("Commands you can use:") + f"\n{listing}"
    return _("Unknown command /%(name)s. Commands you can use:") % {"name": command.name} + f"\n{listing}"


def _one_line(text: str, limit: int = 120) -> str:
    """``text`` on one line, cut at a word (never "autoconhe…") when longer than ``limit``."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    return (cut.rsplit(" ", 1)[0] if " " in cut else cut).rstrip(",;:") + "…"

