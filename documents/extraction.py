"""Deterministic extraction of bulky supportive content from a user message.

Used when the model-based analyzer is unavailable or fails. Fenced code, standalone
JSON, CSV/TSV fragments, pipe tables, long lists and quoted transcripts of at least
``MIN_BLOCK_CHARS`` become context items; the rest of the message, with a marker
where each block was, becomes the intent.

Every detector works on whole lines and each line is examined a bounded number of
times, so the cost stays linear in the size of the message.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import accumulate

from documents.listing import file_name_for

MIN_BLOCK_CHARS = 300
MIN_CSV_LINES = 3
MIN_TABLE_LINES = 3
MIN_TRANSCRIPT_LINES = 5
MIN_LIST_LINES = 8
# Rows of data have short fields; wrapped prose with one comma per line has long ones.
MAX_WORDS_PER_CSV_FIELD = 3.0

_FENCE_OPEN = re.compile(r"^\s*(`{3,}|~{3,})\s*([^\s`]*)")
_BACKTICK_FENCE_CLOSE = re.compile(r"^[ \t]*`{3,}[ \t]*$", re.MULTILINE)
_TILDE_FENCE_CLOSE = re.compile(r"^[ \t]*~{3,}[ \t]*$", re.MULTILINE)
# Lines that could start some block: a fence, a JSON bracket, a quote, a list marker,
# or a character that tables, CSV rows and speaker prefixes need.
_CANDIDATE_LINE = re.compile(
    r"^(?:[ \t]*(?:```|~~~|[{\[>]|(?:[-*+•]|\d{1,3}[.)])[ \t])|[^\n]*[|,;\t:])", re.MULTILINE
)
_JSON_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|[\[\]{}]')
_LIST_ITEM = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)])\s+\S")
_QUOTE_LINE = re.compile(r"^\s*>")
_SPEAKER_LINE = re.compile(
    r"^\s*(?:"
    r"\[[^\]\n]{1,40}\]\s*"  # "[12/03/2024, 10:32] Ana: ..." chat exports
    # "12/03/2024 10:32 - Ana: ..." chat exports
    r"|\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4},?\s+\d{1,2}:\d{2}(?::\d{2})?\s*(?:[AaPp][Mm]\s*)?-\s*"
    r")?"
    r"[^\W\d_][\w'.-]*(?: [^\W\d_][\w'.-]*){0,3}:\s+\S"
)
_TABLE_SEPARATOR = re.compile(r"^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$")
_QUOTED_FIELD = re.compile(r'"[^"\n]*"')
_LETTER = re.compile(r"[^\W\d_]")
_CSV_DELIMITERS = ("\t", ";", ",")

_CODE_MIME_TYPES = {
    "json": "application/json",
    "csv": "text/csv",
    "python": "text/x-python",
    "py": "text/x-python",
}


@dataclass(frozen=True)
class ContextItem:
    """A piece of supportive content to be stored as a separate document."""

    title: str
    mime_type: str
    content: str


@dataclass(frozen=True)
class Extraction:
    """The cleaned intent and the context items taken out of a message."""

    intent: str
    items: tuple[ContextItem, ...]


@dataclass(frozen=True)
class _Block:
    """A run of lines [start, end) recognised as one kind of content."""

    start: int
    end: int
    title: str
    noun: str
    mime_type: str
    content: str


def extract(raw: str) -> Extraction:
    """Split a message into an intent and the bulky blocks it carries."""
    lines, blocks = _lines_and_blocks(raw)
    items = _items_for(blocks)
    return Extraction(intent=_intent_for(lines, blocks, items), items=items)


def text_outside_blocks(raw: str) -> str:
    """The message without the blocks ``extract`` would move out, and without markers."""
    lines, blocks = _lines_and_blocks(raw)
    return "\n".join(_outside(lines, blocks))


def _lines_and_blocks(raw: str) -> tuple[list[str], list[_Block]]:
    lines = raw.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    blocks = [block for block in _Scanner(lines).blocks() if len(block.content) >= MIN_BLOCK_CHARS]
    return lines, blocks


class _Scanner:
    """Finds blocks in one forward pass, visiting only lines that could start one."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.text = "\n".join(lines)
        self.line_starts = [0, *accumulate(map((1).__add__, map(len, lines)))]
        self.closing_fences = {
            "`": _NextMatch(_BACKTICK_FENCE_CLOSE, self.text),
            "~": _NextMatch(_TILDE_FENCE_CLOSE, self.text),
        }
        self.table_runs = _Runs(lines, _has_pipe)
        self.transcript_runs = _Runs(lines, _is_transcript_line)
        self.list_runs = _Runs(lines, _is_list_item)
        self.csv_runs = [_Runs(lines, partial(_delimiter_count, d)) for d in _CSV_DELIMITERS]
        # A run is judged once, from the first line it is reached at, so that a
        # rejected run is not re-examined line by line (which would be quadratic).
        self.table_verdicts: dict[int, bool] = {}
        self.csv_verdicts: dict[tuple[int, int], bool] = {}
        # Likewise, JSON that failed to parse up to some line is not retried inside it.
        self.json_blocked_until = 0

    def blocks(self) -> list[_Block]:
        """Return the recognised blocks in order, small ones included."""
        found: list[_Block] = []
        position = 0
        while (candidate := _CANDIDATE_LINE.search(self.text, position)) is not None:
            index = self._line_of(candidate.start())
            block = self._detect(index)
            if block is not None:
                found.append(block)
            next_line = block.end if block is not None else index + 1
            if next_line >= len(self.lines):
                break
            position = self.line_starts[next_line]
        return found

    def _detect(self, index: int) -> _Block | None:
        line = self.lines[index]
        opening = _FENCE_OPEN.match(line)
        if opening is not None:
            # A fence line that opens no block is plain text, whatever else it contains.
            return self._fence(index, opening)
        # Cheap character checks first: most lines can only start one kind of block.
        stripped = line.strip()
        first = stripped[:1]
        if first in ("{", "[") and (block := self._json(index)) is not None:
            return block
        if "|" in line and (block := self._table(index)) is not None:
            return block
        if (first == ">" or ":" in line) and (block := self._transcript(index)) is not None:
            return block
        if (first in ("-", "*", "+", "•") or first.isdigit()) and (block := self._list(index)) is not None:
            return block
        delimiters = [number for number, d in enumerate(_CSV_DELIMITERS) if d in stripped]
        return self._csv(index, delimiters) if delimiters else None

    def _fence(self, index: int, opening: re.Match[str]) -> _Block | None:
        closing = self.closing_fences[opening.group(1)[0]].after(self.line_starts[index + 1])
        if closing is None:
            # An unclosed fence is left as text: taking everything to the end of the
            # message could swallow the request the user wrote after the code.
            return None
        close = self._line_of(closing.start())
        language = opening.group(2).strip("{}.").lower()
        mime_type = _CODE_MIME_TYPES.get(language, "text/plain")
        if mime_type == "application/json":
            title, noun = "JSON block", "JSON block"
        elif mime_type == "text/csv":
            title, noun = "CSV data", "CSV data block"
        else:
            title, noun = (f"Code ({language})" if language else "Code"), "code block"
        content = "\n".join(self.lines[index + 1 : close])
        return _Block(index, close + 1, title, noun, mime_type, content)

    def _json(self, index: int) -> _Block | None:
        if index < self.json_blocked_until:
            return None
        line = self.lines[index]
        body = line.lstrip()
        start = self.line_starts[index] + len(line) - len(body)
        end = _balanced_end(self.text, start)
        if end is None:
            self.json_blocked_until = len(self.lines)
            return None
        last_line = self._line_of(end - 1)
        trailing = self.text[end : self.line_starts[last_line + 1] - 1]
        if trailing.strip() or not _parses_as_json(self.text[start:end]):
            self.json_blocked_until = last_line + 1
            return None
        content = "\n".join(self.lines[index : last_line + 1])
        return _Block(index, last_line + 1, "JSON block", "JSON block", "application/json", content)

    def _table(self, index: int) -> _Block | None:
        end = self.table_runs.end(index)
        if end - index < MIN_TABLE_LINES:
            return None
        if end not in self.table_verdicts:
            rows = self.lines[index:end]
            self.table_verdicts[end] = any(_TABLE_SEPARATOR.match(row) for row in rows) or all(
                row.lstrip().startswith("|") for row in rows
            )
        if not self.table_verdicts[end]:
            return None
        return self._lines_block(index, end, "Table", "table", "text/markdown")

    def _transcript(self, index: int) -> _Block | None:
        end = self.transcript_runs.end(index)
        if end - index < MIN_TRANSCRIPT_LINES:
            return None
        return self._lines_block(index, end, "Quoted transcript", "quoted transcript", "text/plain")

    def _list(self, index: int) -> _Block | None:
        end = self.list_runs.end(index)
        if end - index < MIN_LIST_LINES:
            return None
        return self._lines_block(index, end, "List", "list", "text/plain")

    def _csv(self, index: int, delimiters: Sequence[int]) -> _Block | None:
        end = max(self._csv_run_end(number, index) for number in delimiters)
        if end - index < MIN_CSV_LINES:
            return None
        return self._lines_block(index, end, "CSV data", "CSV data block", "text/csv")

    def _csv_run_end(self, number: int, index: int) -> int:
        """End of the equal-delimiter run at index if it reads as tabular data, else index."""
        end = self.csv_runs[number].end(index)
        if end - index < MIN_CSV_LINES:
            return index
        if (number, end) not in self.csv_verdicts:
            self.csv_verdicts[number, end] = _reads_as_data(self.lines[index:end], _CSV_DELIMITERS[number])
        return end if self.csv_verdicts[number, end] else index

    def _lines_block(self, start: int, end: int, title: str, noun: str, mime_type: str) -> _Block:
        return _Block(start, end, title, noun, mime_type, "\n".join(self.lines[start:end]))

    def _line_of(self, offset: int) -> int:
        return bisect_right(self.line_starts, offset) - 1


class _Runs:
    """Lazily found runs of consecutive lines sharing the same truthy key."""

    def __init__(self, lines: Sequence[str], key: Callable[[str], object]) -> None:
        self._lines = lines
        self._key = key
        self._ends: dict[int, int] = {}

    def end(self, index: int) -> int:
        """Index just past the run starting at index (index itself when the line has no key)."""
        if index in self._ends:
            return self._ends[index]
        key = self._key(self._lines[index])
        if not key:
            return index
        end = index + 1
        while end < len(self._lines) and self._key(self._lines[end]) == key:
            end += 1
        # Every line of the run ends at the same place; remembering that keeps later
        # questions about lines inside the run from walking it again.
        self._ends.update(dict.fromkeys(range(index, end), end))
        return end


class _NextMatch:
    """The next match of a pattern at or after a position, reusing the last answer.

    Positions asked about only grow during a scan, so the text is searched at most once.
    """

    def __init__(self, pattern: re.Pattern[str], text: str) -> None:
        self._pattern = pattern
        self._text = text
        self._searched_from: int | None = None  # nothing searched yet
        self._found: re.Match[str] | None = None

    def after(self, position: int) -> re.Match[str] | None:
        """Return the first match starting at or after position, or None."""
        still_valid = (
            self._searched_from is not None
            and self._searched_from <= position
            and (self._found is None or position <= self._found.start())
        )
        if not still_valid:
            self._found = self._pattern.search(self._text, position)
            self._searched_from = position
        return self._found


def _balanced_end(text: str, start: int) -> int | None:
    """Offset just past the bracket that closes the one at start, or None if it never closes."""
    depth = 0
    for token in _JSON_TOKEN.finditer(text, start):
        bracket = token.group()
        if bracket in "{[":
            depth += 1
        elif bracket in "}]":
            depth -= 1
            if depth == 0:
                return token.end()
    return None


def _parses_as_json(candidate: str) -> bool:
    try:
        json.loads(candidate)
    except (ValueError, RecursionError):
        return False
    return True


def _reads_as_data(rows: Sequence[str], delimiter: str) -> bool:
    """Whether rows look like tabular data rather than wrapped prose with commas."""
    fields = 0
    words = 0
    for row in rows:
        cells = _without_quoted_fields(row).split(delimiter)
        fields += len(cells)
        words += sum(len(cell.split()) for cell in cells)
    return words / fields <= MAX_WORDS_PER_CSV_FIELD


def _delimiter_count(delimiter: str, line: str) -> int:
    return _without_quoted_fields(line).count(delimiter)


def _without_quoted_fields(line: str) -> str:
    # Quoted fields may contain the delimiter; they count as one field. Leading and
    # trailing whitespace is not data (and leading tabs are indentation, not delimiters).
    row = line.strip()
    return _QUOTED_FIELD.sub('""', row) if '"' in row else row


def _has_pipe(line: str) -> bool:
    return "|" in line


def _is_list_item(line: str) -> bool:
    return _LIST_ITEM.match(line) is not None


def _is_transcript_line(line: str) -> bool:
    return _QUOTE_LINE.match(line) is not None or _SPEAKER_LINE.match(line) is not None


def _items_for(blocks: Sequence[_Block]) -> tuple[ContextItem, ...]:
    """Turn blocks into items, numbering titles that would otherwise repeat."""
    totals = Counter(block.title for block in blocks)
    seen: Counter[str] = Counter()
    items = []
    for block in blocks:
        title = block.title
        if totals[title] > 1:
            seen[title] += 1
            title = f"{title} {seen[title]}"
        items.append(ContextItem(title=title, mime_type=block.mime_type, content=block.content))
    return tuple(items)


def _outside(lines: list[str], blocks: Sequence[_Block]) -> list[str]:
    """The lines that belong to no block."""
    kept: list[str] = []
    cursor = 0
    for block in blocks:
        kept.extend(lines[cursor : block.start])
        cursor = block.end
    kept.extend(lines[cursor:])
    return kept


def _intent_for(lines: list[str], blocks: Sequence[_Block], items: Sequence[ContextItem]) -> str:
    """The message with each block replaced by a marker naming its document."""
    if blocks and not _LETTER.search("\n".join(_outside(lines, blocks))):
        return _describe(blocks)
    with_markers: list[str] = []
    cursor = 0
    for number, (block, item) in enumerate(zip(blocks, items), start=1):
        with_markers.extend(lines[cursor : block.start])
        with_markers.append(f"[see {file_name_for(item.title, number, item.mime_type)}]")
        cursor = block.end
    with_markers.extend(lines[cursor:])
    return _tidy(with_markers)


def _describe(blocks: Sequence[_Block]) -> str:
    """A stand-in intent for a message that is nothing but data, e.g. "Shared 1 list."."""
    counts = Counter(block.noun for block in blocks)
    parts = [f"{count} {noun}{'s' if count > 1 else ''}" for noun, count in counts.items()]
    listed = parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"
    return f"Shared {listed}."


def _tidy(lines: Sequence[str]) -> str:
    """Drop trailing spaces and collapse runs of blank lines."""
    tidy: list[str] = []
    for line in lines:
        line = line.rstrip()
        if line or (tidy and tidy[-1]):
            tidy.append(line)
    return "\n".join(tidy).strip()
