"""Size bounds on what a message derives: no artefact grows past a documented size.

A 100,000-character message is allowed; what the pipeline makes of it must not
multiply it. Each derived artefact has its own bound (README, Reference: settings; SECURITY.md, Limits):

- shell commands: ``SHELL_MAX_COMMANDS`` run per message, each output capped at
  ``SHELL_OUTPUT_CAP_BYTES`` (skills/shell.py);
- ``@references``: 20 looked up, each inlined up to 4,000 characters, 20 notices at
  most (documents/services.py);
- the stored intent: ``INTENT_MAX_CHARS``;
- each replayed history message: ``HISTORY_MESSAGE_MAX_CHARS`` (how many are replayed
  is the history budget's business, chat/answering.py);
- a stored reply: ``REPLY_MAX_CHARS``.
"""

from __future__ import annotations


def bounded(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, saying how much was dropped."""
    if len(text) <= limit:
        return text
    mark = f"\n[… {len(text) - limit} more characters not shown]"
    kept = max(limit - len(mark), 0)
    return text[:kept] + f"\n[… {len(text) - kept} more characters not shown]"
