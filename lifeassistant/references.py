"""A reference to one of the user's documents by name (``@name`` in a message)."""

from __future__ import annotations

from dataclasses import dataclass

UNKNOWN_DOCUMENT = "unknown document"


@dataclass(frozen=True)
class FileReference:
    """An ``@name`` document reference; ``rejected_reason`` is None when usable."""

    name: str
    original_string: str
    rejected_reason: str | None
