"""Files people share: what kind a file is (by its content), and its text. Pure, no ORM.

Kinds: OFX and CSV bank statements, PDF, XLSX, plain text and Markdown. The kind is
judged from the bytes, never from the name: a zip or an executable renamed ``.csv``
is refused, and a CSV named ``.txt`` is still read as a CSV. Every refusal is a
``FileRefused`` carrying the HTTP status and a sentence for the user.
"""

from __future__ import annotations

import csv
import io
import re
import unicodedata
import zipfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from django.template.defaultfilters import filesizeformat
from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from .statements import StatementError, Transaction, csv_transactions, read_ofx

Kind = Literal["ofx", "csv", "pdf", "xlsx", "text", "markdown"]

MIME_TYPES: dict[str, str] = {
    "ofx": "application/x-ofx",
    "csv": "text/csv",
    "pdf": "application/pdf",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "text": "text/plain",
    "markdown": "text/markdown",
}
EXTENSIONS: dict[str, str] = {"ofx": "ofx", "csv": "csv", "pdf": "pdf", "xlsx": "xlsx", "text": "txt", "markdown": "md"}
MAX_NAME_CHARS = 255
# ChatDocument.file_name is what ``@name`` refers to: the characters a reference may hold.
DOCUMENT_NAME_CHARS = 80


@dataclass(frozen=True)
class Limits:
    max_bytes: int
    max_pages: int
    max_chars: int
    # What a zip container (XLSX) may hold once inflated: a 10 MB file can inflate to gigabytes.
    max_expanded_bytes: int = 64 * 1024 * 1024


@dataclass(frozen=True)
class ReadFile:
    kind: Kind
    text: str
    transactions: tuple[Transaction, ...] = field(default=())

    @property
    def mime_type(self) -> str:
        return MIME_TYPES[self.kind]


class FileRefused(Exception):
    """A file that is not stored; ``status`` is the HTTP answer, the message the user's."""

    def __init__(self, message: str, *, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


# ------------------------------------------------------------------------------ names


_UNSAFE_NAME_CHARS = re.compile(r"[^A-Za-z0-9._-]+")


def checked_name(name: str) -> str:
    """The name as sent, refused when it holds path parts or control characters.

    It is shown to the user and the model, never used as a storage path.
    """
    if not name or not name.strip() or len(name) > MAX_NAME_CHARS:
        raise FileRefused(_("Give the file a name of 1 to %(count)s characters.") % {"count": MAX_NAME_CHARS})
    # Cc: control characters (NUL, newlines); Cf: invisible format characters such as the
    # right-to-left override that disguises "cod.exe" as "exe.doc".
    if any(unicodedata.category(char) in ("Cc", "Cf", "Cs") for char in name):
        raise FileRefused(_("The file name holds control characters: rename the file and send it again."))
    if "/" in name or "\\" in name or name.strip() in (".", ".."):
        raise FileRefused(_("Send the file name without folders (no / or \\)."))
    return name.strip()


def document_name(name: str, kind: Kind) -> str:
    """A name ``@name`` can refer to: the sent name's letters, the extension of its kind."""
    stem = name.rsplit(".", 1)[0] if "." in name.lstrip(".") else name
    ascii_stem = unicodedata.normalize("NFKD", stem).encode("ascii", "ignore").decode()
    extension = EXTENSIONS[kind]
    slug = _UNSAFE_NAME_CHARS.sub("_", ascii_stem).strip("._-")[: DOCUMENT_NAME_CHARS - len(extension) - 1]
    return f"{slug or 'file'}.{extension}"


# ------------------------------------------------------------------------------ kinds


# Binary formats refused by their first bytes, with the name people know them by.
_EXECUTABLE = gettext_lazy("an executable")
_ARCHIVE = gettext_lazy("a compressed archive")
_REFUSED_MAGIC: tuple[tuple[bytes, Promise], ...] = (
    (b"MZ", _EXECUTABLE),
    (b"\x7fELF", _EXECUTABLE),
    (b"\xcf\xfa\xed\xfe", _EXECUTABLE),
    (b"\xce\xfa\xed\xfe", _EXECUTABLE),
    (b"\xca\xfe\xba\xbe", _EXECUTABLE),
    (b"\x1f\x8b", _ARCHIVE),
    (b"7z\xbc\xaf\x27\x1c", _ARCHIVE),
    (b"Rar!", _ARCHIVE),
    (b"\xd0\xcf\x11\xe0", gettext_lazy("an old Office file")),
)
_OFX_START = re.compile(rb"^(?:\xef\xbb\xbf)?\s*(?:OFXHEADER\s*:|<\?xml[^>]*\?>\s*<\?OFX|<OFX>)", re.IGNORECASE)
_MARKDOWN_NAMES = (".md", ".markdown")


def unsupported(what: str) -> FileRefused:
    return FileRefused(
        _("This file is %(what)s, which cannot be read here. Send an OFX, CSV, PDF, XLSX, text or Markdown file.")
        % {"what": what},
        status=415,
    )


def read_file(name: str, data: bytes, limits: Limits) -> ReadFile:
    """The file's kind, text and (for statements) transactions; ``FileRefused`` otherwise."""
    if len(data) > limits.max_bytes:
        raise too_large(limits)
    if not data:
        raise FileRefused(_("The file is empty."))
    if data.startswith(b"%PDF-"):
        return _bounded(read_pdf(data, limits), limits)
    if data.startswith(b"PK\x03\x04"):
        return _bounded(read_xlsx(data, limits), limits)
    for magic, what in _REFUSED_MAGIC:
        if data.startswith(magic):
            raise unsupported(str(what))
    if _OFX_START.match(data[:1024]):
        try:
            transactions = read_ofx(data)
        except StatementError:
            raise FileRefused(_("This OFX file is damaged or incomplete: export it from your bank again.")) from None
        return _bounded(ReadFile("ofx", decode_text(data), tuple(transactions)), limits)
    text = decode_text(data)
    rows = sniffed_rows(text)
    if rows is not None:
        refuse_formulas(rows)
        return _bounded(ReadFile("csv", text, tuple(csv_transactions(rows))), limits)
    kind: Kind = "markdown" if name.lower().endswith(_MARKDOWN_NAMES) else "text"
    return _bounded(ReadFile(kind, text), limits)


def too_large(limits: Limits) -> FileRefused:
    return FileRefused(_("This file is too large: send at most %(size)s.") % {"size": filesizeformat(limits.max_bytes)}, status=413)


def _text_too_long(limits: Limits) -> FileRefused:
    return FileRefused(
        _("This file holds more than %(count)s characters of text: send a shorter one.") % {"count": f"{limits.max_chars:,}"},
        status=413,
    )


def _bounded(read: ReadFile, limits: Limits) -> ReadFile:
    if len(read.text) > limits.max_chars:
        raise _text_too_long(limits)
    return read


def decode_text(data: bytes) -> str:
    """Text in UTF-8 or, failing that, the encoding charset-normalizer finds (Latin-1,
    Windows-1252...); ``FileRefused`` (415) for bytes that are no text."""
    if b"\x00" in data[:8192]:
        raise unsupported(_("binary data"))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = _detected(data)
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    if any(unicodedata.category(char) == "Cc" and char not in "\n\t\f" for char in text[:8192]):
        raise unsupported(_("binary data"))
    return text


# Brazilian banks write Windows-1252 / Latin-1; on short or upper-case text charset-normalizer
# may rank a Baltic or Nordic code page first by a hair, turning "ç" into "į".
_WESTERN = ("cp1252", "latin_1", "iso8859_15")
_WESTERN_MARGIN = 0.05


def _detected(data: bytes) -> str:
    from charset_normalizer import from_bytes

    results = from_bytes(data)
    best = results.best()
    if best is None:
        raise unsupported(_("binary data"))
    western = [match for match in results if match.encoding in _WESTERN and match.chaos <= best.chaos + _WESTERN_MARGIN]
    return str(western[0] if western else best)


# -------------------------------------------------------------------------------- CSV

_DELIMITERS = (";", "\t", ",", "|")
_SNIFFED_LINES = 50


def sniffed_rows(text: str) -> list[list[str]] | None:
    """The rows of ``text`` when it is a CSV, None when it is prose.

    The delimiter is the one that splits the first lines into the same number (2 or
    more) of fields most consistently; ``;`` first, as Brazilian banks use it because
    ``,`` is their decimal mark.
    """
    lines = [line for line in text.split("\n", _SNIFFED_LINES + 1)[:_SNIFFED_LINES] if line.strip()]
    if len(lines) < 2:
        return None
    best: tuple[float, str] | None = None
    for delimiter in _DELIMITERS:
        try:
            widths = [len(row) for row in csv.reader(lines, delimiter=delimiter)]
        except csv.Error:
            continue
        width, count = Counter(widths).most_common(1)[0]
        share = count / len(widths)
        if width >= 2 and share >= 0.8 and widths[0] == width and (best is None or share > best[0]):
            best = (share, delimiter)
    if best is None:
        return None
    try:
        return [row for row in csv.reader(io.StringIO(text), delimiter=best[1]) if any(cell.strip() for cell in row)]
    except csv.Error:
        return None


_SAFE_SIGNED = re.compile(r"^[+-][\d\s.,()/:-]*$")


def is_formula(cell: str) -> bool:
    """A cell a spreadsheet would run (``=HYPERLINK(...)``, ``@SUM``, ``+cmd|...``); a signed
    number such as ``-1.234,56`` or a phone number is data."""
    stripped = cell.lstrip(" \t\r\n")
    if not stripped:
        return False
    if stripped[0] in "=@":
        return True
    return stripped[0] in "+-" and not _SAFE_SIGNED.match(stripped)


def refuse_formulas(rows: Sequence[Sequence[str]]) -> None:
    for number, row in enumerate(rows, start=1):
        if any(is_formula(cell) for cell in row):
            raise FileRefused(
                _("Line %(line)s of this CSV holds a spreadsheet formula: export the values only and send it again.")
                % {"line": number}
            )


def escape_formula(value: str) -> str:
    """A cell's text made inert for a spreadsheet it may be pasted into (OWASP: a leading ')."""
    return f"'{value}" if is_formula(value) else value


# -------------------------------------------------------------------------------- PDF


def read_pdf(data: bytes, limits: Limits) -> ReadFile:
    """The text of every page; refused when encrypted, damaged, or past the page or text limit."""
    from pypdf import PdfReader

    try:
        reader = PdfReader(io.BytesIO(data))
        encrypted = reader.is_encrypted
        pages = len(reader.pages) if not encrypted else 0
    except Exception:  # pypdf raises PdfReadError, ValueError, KeyError... on damaged files
        raise FileRefused(_("This PDF is damaged and cannot be read.")) from None
    if encrypted:
        raise FileRefused(_("This PDF is protected by a password: send a copy without the protection."))
    if pages > limits.max_pages:
        raise FileRefused(
            _("This PDF has %(pages)s pages: send at most %(limit)s.") % {"pages": pages, "limit": limits.max_pages},
            status=413,
        )
    parts: list[str] = []
    length = 0
    for number, page in enumerate(reader.pages, start=1):
        try:
            text = page.extract_text() or ""
        except Exception:
            raise FileRefused(_("This PDF is damaged and cannot be read.")) from None
        length += len(text)
        if length > limits.max_chars:  # stop reading at once: the rest could be a bomb
            raise _text_too_long(limits)
        parts.append(f"--- page {number} ---\n{text.strip()}")
    return ReadFile("pdf", "\n\n".join(parts))


# ------------------------------------------------------------------------------- XLSX


def read_xlsx(data: bytes, limits: Limits) -> ReadFile:
    """Every sheet's cells as tab-separated lines (values, not formulas), formulas-looking
    text escaped; any other zip (a renamed archive, a .docx) is refused."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        names = set(archive.namelist())
        expanded = sum(info.file_size for info in archive.infolist())
    except (zipfile.BadZipFile, ValueError):
        raise unsupported(_("a damaged archive")) from None
    if "xl/workbook.xml" not in names:
        raise unsupported(_("a zip archive"))
    if expanded > limits.max_expanded_bytes:
        raise _text_too_long(limits)
    from openpyxl import load_workbook

    lines: list[str] = []
    length = 0
    try:
        workbook = load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception:
        raise FileRefused(_("This spreadsheet is damaged and cannot be read.")) from None
    try:
        for sheet in workbook.worksheets:
            lines.append(f"# {sheet.title}")
            for row in sheet.iter_rows(values_only=True):
                cells = ["" if value is None else escape_formula(str(value)) for value in row]
                while cells and not cells[-1]:
                    cells.pop()
                if not cells:
                    continue
                line = "\t".join(cells)
                length += len(line) + 1
                if length > limits.max_chars:
                    raise _text_too_long(limits)
                lines.append(line)
    except FileRefused:
        raise
    except Exception:
        raise FileRefused(_("This spreadsheet is damaged and cannot be read.")) from None
    finally:
        workbook.close()
    return ReadFile("xlsx", "\n".join(lines))
