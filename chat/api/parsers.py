"""The API's JSON parser: bounded size, bounded nesting, text that can be stored.

DRF's own parser lets four kinds of body through to a 500: nesting deep enough to
exhaust the recursion limit, a string (a value or a key) holding a lone surrogate,
which no UTF-8 column, log line or JSON response can hold, an integer longer than
Python converts, and a body of any size when the request carries no Content-Length.
Each is refused here with a 400 (413 for the size) in the API's JSON error shape.
"""

from __future__ import annotations

import html
import json
import re
from typing import IO, Any, cast

from django.conf import settings
from django.http.multipartparser import MultiPartParser as DjangoMultiPartParser
from django.http.multipartparser import MultiPartParserError
from django.utils.translation import gettext_lazy, gettext as _
from rest_framework import status
from rest_framework.exceptions import APIException, ParseError
from rest_framework.parsers import DataAndFiles
from rest_framework.parsers import JSONParser as DRFJSONParser
from rest_framework.parsers import MultiPartParser as DRFMultiPartParser
from rest_framework.parsers import get_encoding  # type: ignore[attr-defined]

from documents.files import FileRefused, checked_name
from lifeassistant.middleware import too_large_detail

# Deeper than any body the API accepts, far below Python's recursion limit.
MAX_JSON_DEPTH = 32


class RequestTooLarge(APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = gettext_lazy("The request body is too large.")
    default_code = "request_too_large"


class JSONParser(DRFJSONParser):
    """DRF's JSON parser with the size, depth and text checks above."""

    def parse(self, stream: IO[bytes] | None, media_type: str | None = None, parser_context: Any = None) -> Any:
        limit = settings.REQUEST_MAX_BYTES
        raw = b"" if stream is None else stream.read(limit + 1)
        if len(raw) > limit:
            raise RequestTooLarge(too_large_detail())
        encoding = get_encoding(parser_context or {})
        try:
            text = raw.decode(encoding)
        except UnicodeDecodeError as exc:
            raise ParseError(_("JSON parse error - the body is not valid %(encoding)s.") % {"encoding": encoding}) from exc
        if nesting_depth(text) > MAX_JSON_DEPTH:
            raise ParseError(_("JSON parse error - nested deeper than %(depth)s levels.") % {"depth": MAX_JSON_DEPTH})
        try:
            # A leading byte order mark is allowed to be ignored (RFC 8259, section 8.1).
            data = json.loads(text.removeprefix("\ufeff"), parse_constant=json_constant_refused)
        except json.JSONDecodeError as exc:
            # The decoder's own wording is English; where it stopped is enough, in any language.
            raise ParseError(
                _("JSON parse error - not valid JSON at line %(line)s, column %(column)s.")
                % {"line": exc.lineno, "column": exc.colno}
            ) from exc
        except ValueError as exc:
            # An integer of more digits than Python converts (sys.get_int_max_str_digits(),
            # 4,300): a plain ValueError, which was a 500.
            raise ParseError(_("JSON parse error - a number has too many digits.")) from exc
        if not storable(data):
            raise ParseError(_("JSON parse error - a string holds an unpaired surrogate (\\ud800-\\udfff)."))
        return data


def json_constant_refused(name: str) -> Any:
    """NaN and Infinity are not JSON; DRF's strict mode refuses them too."""
    raise ParseError(_("JSON parse error - %(name)s is not valid JSON.") % {"name": name})


# A string, unrolled so nothing can backtrack, and ending at the text's end when it is not
# closed: every match consumes what it tried, so the scan stays linear on any input. (The
# nested form "(?:[^"\\]+|\\.)*" took exponential time on a string left open.)
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*(?:"|\\?\Z)', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


def nesting_depth(text: str) -> int:
    """The deepest ``[`` / ``{`` nesting in JSON text, brackets inside strings ignored.

    Counted before parsing, so a 100,000-deep body never reaches the recursive decoder;
    the regular expressions leave only the brackets, so the loop stays short for
    ordinary bodies.
    """
    depth = deepest = 0
    for char in _NOT_BRACKET.sub("", _STRING.sub("", text)):
        depth += 1 if char in "[{" else -1
        deepest = max(deepest, depth)
        if deepest > MAX_JSON_DEPTH:
            break
    return deepest


def storable(data: Any) -> bool:
    """True when every key and string in parsed JSON encodes as UTF-8 (no lone surrogate)."""
    pending = [data]
    while pending:
        value = pending.pop()
        if isinstance(value, str):
            if not _encodes(value):
                return False
        elif isinstance(value, dict):
            for key, item in value.items():
                if not _encodes(key):
                    return False
                pending.append(item)
        elif isinstance(value, list):
            pending.extend(value)
    return True


def _encodes(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class FileNameRefused(APIException):
    status_code = status.HTTP_400_BAD_REQUEST
    default_code = "bad_file_name"


class _CheckedNames(DjangoMultiPartParser):
    """Django's multipart parser, refusing a file name with path parts or control
    characters: Django's own quietly cuts them away, and the sender never learns that
    "../../x.csv" or "a\\nb.csv" was not the name kept."""

    def sanitize_file_name(self, file_name: str) -> str | None:
        try:
            return checked_name(html.unescape(file_name))
        except FileRefused as exc:
            raise FileNameRefused(str(exc)) from None


class UploadParser(DRFMultiPartParser):
    """``multipart/form-data`` for the one endpoint that takes files (its own size limit,
    ``UPLOAD_MAX_BYTES``, is applied before it: lifeassistant.middleware)."""

    def parse(self, stream: IO[bytes] | None, media_type: str | None = None, parser_context: Any = None) -> Any:
        parser_context = parser_context or {}
        request = parser_context["request"]
        meta = request.META.copy()
        meta["CONTENT_TYPE"] = media_type
        try:
            parser = _CheckedNames(meta, cast(Any, stream), request.upload_handlers, parser_context.get("encoding", settings.DEFAULT_CHARSET))
            data, files = parser.parse()
        except MultiPartParserError as exc:
            raise ParseError(_("The multipart body could not be read: %(reason)s") % {"reason": exc}) from None
        return DataAndFiles(data, files)
