"""Which past turns a model request replays: a token budget, not a message count (pure).

A turn is one user message with everything answered to it (tool calls, their results,
the reply), as provider messages. Turns are kept or dropped whole, newest first, so a
tool call never travels without its result. Tool results of all but the latest turns
are shortened first: the model needs to know what happened, not every row again. When
older turns had to go, the conversation's first user message comes back as a note if
it fits, since it often says what the whole conversation is for.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

Messages = list[dict[str, Any]]

# Tool results of the latest turns stay whole; older ones are cut to this many characters.
FULL_RESULT_TURNS = 2
SHORT_RESULT_CHARS = 400
OPENING_NOTE = "(Earlier turns of this conversation are left out. It began with the user saying:) "


def fit_history(
    turns: Sequence[Messages],
    *,
    budget_tokens: int,
    count: Callable[[Messages], int],
    opening: str = "",
    opening_shown: bool = False,
) -> Messages:
    """The provider messages of the newest turns that fit ``budget_tokens``, oldest first.

    ``count`` estimates the tokens of a list of messages. ``opening`` is the text of the
    conversation's first user message and ``opening_shown`` whether ``turns`` starts with
    it; when it is not replayed, it comes first as a note, if it takes at most a
    quarter of the budget.
    """
    shortened = [
        turn if age < FULL_RESULT_TURNS else shorten_tool_results(turn)
        for age, turn in enumerate(reversed(turns))
    ]
    note: Messages = []
    if opening.strip():
        note = [{"role": "user", "content": OPENING_NOTE + json.dumps(opening, ensure_ascii=False)}]
    everything = sum(count(turn) for turn in shortened)
    if not note or (opening_shown and everything <= budget_tokens) or count(note) > budget_tokens // 4:
        note = []  # not needed, or it would cost more than a quarter of the room
    room = budget_tokens - (count(note) if note else 0)
    kept: list[Messages] = []
    used = 0
    for turn in shortened:  # newest first
        cost = count(turn)
        if used + cost > room:
            break
        kept.append(turn)
        used += cost
    kept.reverse()
    return note + [message for turn in kept for message in turn]


def shorten_tool_results(turn: Messages, limit: int = SHORT_RESULT_CHARS) -> Messages:
    """``turn`` with each tool result cut to ``limit`` characters (calls and replies unchanged)."""
    return [
        {**message, "content": message["content"][: limit - 1] + "…"}
        if message.get("role") == "tool" and len(message.get("content") or "") > limit
        else message
        for message in turn
    ]


def group_turns(per_message: Sequence[Messages], roles: Sequence[str]) -> list[Messages]:
    """Provider messages of consecutive stored messages, grouped into turns.

    ``per_message[i]`` are the provider messages of stored message ``i`` and
    ``roles[i]`` its role; a turn starts at each user message (replies before the first
    one form a turn of their own).
    """
    turns: list[Messages] = []
    for messages, role in zip(per_message, roles, strict=True):
        if role == "user" or not turns:
            turns.append([])
        turns[-1].extend(messages)
    return turns
