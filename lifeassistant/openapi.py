"""The OpenAPI schema's shared rules, so every endpoint is documented the same way.

Client generators (openapi-python-client, openapi-typescript) turn the schema into
code, so the schema must list every answer an endpoint can give, with its body, and
name operations and path parameters readably. Views describe only what is theirs
(their body, their 409 or 422); everything that follows from how a view is built is
added here, for every endpoint, including ones added later:

- 400 and 415 for an operation with a request body (bad JSON or fields, a body that is
  not JSON; a DELETE has one when its view sets ``delete_takes_body``); 413 for every POST, PUT and PATCH (a body over the size limit is refused
  before the view, whether it reads a body or not); 400 for one with query parameters.
- 401 wherever a credential is checked, 403 where a session's CSRF check applies.
- 404 for a path with parameters (not yours, or not there). A paginated list's bad
  cursor is a 400, like its other query parameters.
- 429 wherever the view throttles that method, with ``Retry-After``.
- ``additionalProperties: false`` for request bodies whose serializer rejects unknown
  keys (it sets ``reject_unknown_fields = True``).
- Operation ids such as ``list_conversations``, ``create_conversation_message``,
  ``get_message``, ``accept_action`` (see :func:`operation_id`), and path parameters
  named after their resource (``{conversation_id}``, ``{message_id}``), never ``{id}``.
"""

from __future__ import annotations

import re
from typing import Any

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import PolymorphicProxySerializer, inline_serializer
from rest_framework import serializers

# The API's one error body: {"detail": "...", "errors": {...}?}. Built inline because
# a serializer field named "errors" would shadow Serializer.errors.
ERROR_BODY = inline_serializer(
    name="Error",
    fields={
        "detail": serializers.CharField(help_text="What went wrong, in one line."),
        "errors": serializers.DictField(
            required=False, help_text="Per-field messages, for validation errors: field name to a list of messages."
        ),
    },
)

UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})
ITEM_VERBS = {"GET": "get", "PUT": "replace", "PATCH": "update", "DELETE": "delete"}
COLLECTION_VERBS = {"POST": "create", "PUT": "replace", "PATCH": "update", "DELETE": "delete"}
PATH_PARAMETER = re.compile(r"^\{[^}]+\}$")
# drf-spectacular's own operation id endings, kept by hooks that imitate it.
DRF_STYLE_ID = re.compile(r"_(list|retrieve|create|update|partial_update|destroy)$")
# A path variable that only says "the id" and gets renamed after its resource.
ANONYMOUS_ID = re.compile(r"/([a-z0-9_-]+)/\{(?:id|pk)\}")


def error_responses(*codes: int) -> dict[int, Any]:
    """Responses for the extra error codes a view answers (409, 422, ...), for ``extend_schema``."""
    return {code: ERROR_BODY for code in codes}


def singular(word: str) -> str:
    """``conversations`` → ``conversation``; words that are not plural stay as they are."""
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def operation_id(path: str, method: str, *, is_list: bool) -> str:
    """A readable, stable operation id from the path (without the API prefix) and method.

    ``/conversations/`` GET → ``list_conversations``, POST → ``create_conversation``;
    ``/conversations/{id}/`` → ``get_/update_/replace_/delete_conversation``;
    ``/conversations/{id}/messages/`` → ``list_conversation_messages`` /
    ``create_conversation_message``; ``/messages/{id}/retry/`` POST → ``retry_message``;
    ``/auth/token/`` POST → ``create_auth_token``.
    """
    segments = [segment for segment in path.strip("/").split("/") if segment]
    words: list[str] = []
    for position, segment in enumerate(segments):
        if PATH_PARAMETER.match(segment):
            continue
        names_an_item = position + 1 < len(segments) and PATH_PARAMETER.match(segments[position + 1])
        words.append(singular(segment) if names_an_item else segment)
    words = [word.replace("-", "_") for word in words] or ["root"]
    method = method.upper()
    if segments and PATH_PARAMETER.match(segments[-1]):
        return f"{ITEM_VERBS.get(method, method.lower())}_{'_'.join(words)}"
    if method == "GET":
        return f"{'list' if is_list else 'get'}_{'_'.join(words)}"
    last = words[-1]
    after_an_item = len(segments) >= 2 and PATH_PARAMETER.match(segments[-2])
    if method == "POST" and after_an_item and singular(last) == last:
        # A verb on one object: /messages/{id}/retry/ → retry_message.
        return f"{last}_{'_'.join(words[:-1])}"
    if method == "POST":
        words[-1] = singular(last)
    return f"{COLLECTION_VERBS.get(method, method.lower())}_{'_'.join(words)}"


class ApiAutoSchema(AutoSchema):
    """drf-spectacular's AutoSchema plus the rules in this module's docstring."""

    def get_operation_id(self) -> str:
        path = re.sub(self.path_prefix, "", self.path, flags=re.IGNORECASE)
        return operation_id(path, self.method, is_list=self.method == "GET" and self._is_list_view())

    def _map_basic_serializer(self, serializer: Any, direction: Any) -> dict[str, Any]:
        schema: dict[str, Any] = super()._map_basic_serializer(serializer, direction)
        if direction == "request" and getattr(serializer, "reject_unknown_fields", False):
            schema["additionalProperties"] = False
        return schema

    def _get_request_for_media_type(self, serializer: Any, direction: Any = "request") -> tuple[Any, bool]:
        schema, required = super()._get_request_for_media_type(serializer, direction)
        # A body that is one of several shapes (each with required fields) must be sent;
        # drf-spectacular only sees required fields on a single serializer.
        if isinstance(serializer, PolymorphicProxySerializer) and schema is not None:
            required = True
        return schema, required

    def deletes_with_body(self) -> bool:
        """A DELETE whose view takes a body (``delete_takes_body``: the account's, with the password)."""
        return self.method == "DELETE" and bool(getattr(self.view, "delete_takes_body", False))

    def _get_request_body(self, direction: Any = "request") -> Any:
        if not self.deletes_with_body():
            return super()._get_request_body(direction)
        # drf-spectacular documents bodies of POST, PUT and PATCH only.
        self.method = "POST"
        try:
            return super()._get_request_body(direction)
        finally:
            self.method = "DELETE"

    def _get_response_bodies(self, direction: Any = "response") -> dict[str, Any]:
        responses: dict[str, Any] = super()._get_response_bodies(direction)
        for code in self.standard_error_codes():
            responses.setdefault(str(code), self._get_response_for_code(ERROR_BODY, str(code), direction=direction))
        if "429" in responses:
            responses["429"].setdefault("headers", {})["Retry-After"] = {
                "schema": {"type": "integer"},
                "description": "Seconds to wait before trying again.",
            }
        return responses

    def standard_error_codes(self) -> list[int]:
        """The error codes that follow from how the view is built (see the module docstring)."""
        codes: set[int] = set()
        if self.method in BODY_METHODS or self.deletes_with_body():
            codes.add(413)  # any body over the limit, read or not (lifeassistant.middleware)
            if self.get_request_serializer() is not None:
                codes |= {400, 415}
        parameters = self._get_parameters()
        if any(parameter["in"] == "query" for parameter in parameters):
            codes.add(400)
        if self.view.get_authenticators():
            codes.add(401)
            if self.method in UNSAFE_METHODS and {} not in self.get_auth():
                codes.add(403)
        if any(parameter["in"] == "path" for parameter in parameters):
            codes.add(404)
        if self.view.get_throttles():
            codes.add(429)
        return sorted(codes)


def name_path_parameters(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """Postprocessing hook: ``/messages/{id}/`` becomes ``/messages/{message_id}/``.

    One name per resource across the schema, so a generated client's argument reads
    ``conversation_id`` in ``get_conversation`` and in ``list_conversation_messages``
    alike. Only the schema's names change: the URL a client builds is the same.
    Operations added by other hooks (views drf-spectacular cannot see, such as the
    event stream) get the same treatment, and a drf-spectacular-style id
    (``messages_events_retrieve``) is renamed by :func:`operation_id` too. List this
    hook after those.
    """
    renamed: dict[str, Any] = {}
    for path, operations in result.get("paths", {}).items():
        new_names: dict[str, str] = {}

        def rename(match: re.Match[str]) -> str:
            resource, variable = match.group(1), match.group(0).rsplit("{", 1)[1].rstrip("}")
            new_names[variable] = f"{singular(resource).replace('-', '_')}_id"
            return f"/{resource}/{{{new_names[variable]}}}"

        new_path = ANONYMOUS_ID.sub(rename, path)
        for method, operation in operations.items():
            if not isinstance(operation, dict):
                continue
            for parameter in operation.get("parameters", []):
                if parameter.get("in") == "path" and parameter["name"] in new_names:
                    parameter["name"] = new_names[parameter["name"]]
            default_style = DRF_STYLE_ID.search(operation.get("operationId", ""))
            if default_style:
                api_path = re.sub(r"^/api/v[0-9]+", "", new_path)
                operation["operationId"] = operation_id(api_path, method, is_list=default_style.group(1) == "list")
        renamed[new_path] = operations
    result["paths"] = renamed
    return result

