"""The OpenAPI schema: what client generators read, so it must say everything the API answers."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core.management import call_command
from drf_spectacular.generators import SchemaGenerator

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    return SchemaGenerator().get_schema(request=None, public=True)


def operations(schema: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(path, method.upper(), operation) for path, item in schema["paths"].items() for method, operation in item.items()]


def test_the_openapi_schema_generates_without_warnings(tmp_path):
    call_command("spectacular", "--fail-on-warn", "--validate", "--file", str(tmp_path / "schema.yml"))
    schema = (tmp_path / "schema.yml").read_text()
    assert "/api/v1/conversations/{conversation_id}/messages/" in schema
    assert "Idempotency-Key" in schema


def test_the_docs_page_is_served(client):
    assert client.get("/api/docs/").status_code == 200


FILES = ("/api/v1/conversations/{conversation_id}/files/", "POST")


def test_request_bodies_are_documented_as_json_only_but_the_file_upload(schema):
    bodies = {(path, method): op["requestBody"] for path, method, op in operations(schema) if "requestBody" in op}
    assert ("/api/v1/auth/token/", "POST") in bodies
    for where, body in bodies.items():
        assert list(body["content"]) == (["multipart/form-data"] if where == FILES else ["application/json"]), where


def test_the_file_upload_is_documented_as_multipart_with_a_binary_file(schema):
    operation = schema["paths"][FILES[0]]["post"]
    assert operation["operationId"] == "create_conversation_file"
    assert operation["requestBody"]["required"] is True
    body = operation["requestBody"]["content"]["multipart/form-data"]["schema"]
    assert body == {"$ref": "#/components/schemas/FileUploadRequest"}
    upload = schema["components"]["schemas"]["FileUploadRequest"]
    assert upload["properties"]["file"] == {"type": "string", "format": "binary", "description": upload["properties"]["file"]["description"]}
    assert upload["required"] == ["file"]
    assert {"201", "400", "404", "413", "415", "429"} <= set(operation["responses"])


def test_every_operation_documents_the_errors_it_can_answer(schema):
    for path, method, operation in operations(schema):
        codes = set(operation["responses"])
        where = f"{method} {path}"
        assert "401" in codes, where  # a bad or missing token
        if "requestBody" in operation:
            assert {"400", "413", "415"} <= codes, where
        if method in ("POST", "PUT", "PATCH"):
            assert "413" in codes, where
        if "{" in path:
            assert "404" in codes, where
        for code in codes - {"200", "201", "202", "204"}:
            body = operation["responses"][code]["content"]["application/json"]["schema"]
            assert body["$ref"] in ("#/components/schemas/Error", "#/components/schemas/ContextError"), where


def test_the_errors_each_endpoint_answers_are_listed(schema):
    paths = schema["paths"]
    send = paths["/api/v1/conversations/{conversation_id}/messages/"]["post"]["responses"]
    assert set(send) == {"202", "400", "401", "403", "404", "413", "415", "422", "429"}
    assert send["429"]["headers"]["Retry-After"]["schema"] == {"type": "integer"}
    sign_in = paths["/api/v1/auth/token/"]["post"]["responses"]
    assert set(sign_in) == {"200", "400", "401", "413", "415", "429"}  # no CSRF on sign-in: no 403
    # No body to read, but a body over the limit is refused before the view all the same.
    assert set(paths["/api/v1/messages/{message_id}/retry/"]["post"]["responses"]) == {"202", "401", "403", "404", "409", "413", "429"}
    assert set(paths["/api/v1/actions/{action_id}/accept/"]["post"]["responses"]) == {"200", "401", "403", "404", "409", "413"}
    # A paginated list: a bad page_size or a tampered cursor is a 400.
    assert set(paths["/api/v1/conversations/"]["get"]["responses"]) == {"200", "400", "401"}
    error = schema["components"]["schemas"]["Error"]
    assert error["required"] == ["detail"]
    assert set(error["properties"]) == {"detail", "errors"}


def test_the_idempotency_key_is_documented_with_its_pattern(schema):
    [parameter] = [
        parameter
        for parameter in schema["paths"]["/api/v1/conversations/{conversation_id}/messages/"]["post"]["parameters"]
        if parameter["name"] == "Idempotency-Key"
    ]
    assert parameter["in"] == "header"
    pattern = re.compile(parameter["schema"]["pattern"])
    assert pattern.match("3f2c-retry_1:a.b")
    assert not pattern.match("has space") and not pattern.match("x" * 129)


def test_bodies_that_reject_unknown_fields_say_so(schema):
    components = schema["components"]["schemas"]
    for name in ("CredentialsRequest", "MessageCreateRequest", "ConversationRequest", "PatchedConversationRequest"):
        assert components[name]["additionalProperties"] is False, name
    # The context endpoint's contract ignores extra keys, so its body stays open.
    assert "additionalProperties" not in components["ContextActionRequest"]


def test_operation_ids_are_readable_and_path_parameters_named_after_their_resource(schema):
    ids = {f"{method} {path}": op["operationId"] for path, method, op in operations(schema)}
    assert ids["POST /api/v1/auth/token/"] == "create_auth_token"
    assert ids["GET /api/v1/conversations/"] == "list_conversations"
    assert ids["POST /api/v1/conversations/"] == "create_conversation"
    assert ids["GET /api/v1/conversations/{conversation_id}/"] == "get_conversation"
    assert ids["PATCH /api/v1/conversations/{conversation_id}/"] == "update_conversation"
    assert ids["POST /api/v1/conversations/{conversation_id}/messages/"] == "create_conversation_message"
    assert ids["GET /api/v1/messages/{message_id}/"] == "get_message"
    assert ids["POST /api/v1/messages/{message_id}/retry/"] == "retry_message"
    assert ids["POST /api/v1/actions/{action_id}/accept/"] == "accept_action"
    assert len(set(ids.values())) == len(ids)
    for where, name in ids.items():
        assert re.fullmatch(r"[a-z]+(_[a-z]+)+", name), where
        # drf-spectacular's own endings read badly in generated clients (messages_retry_create).
        assert not re.search(r"_(retrieve|create|partial_update|destroy)$", name), (where, name)
    for path, _, operation in operations(schema):
        names = [parameter["name"] for parameter in operation.get("parameters", []) if parameter["in"] == "path"]
        assert sorted(names) == sorted(re.findall(r"\{(\w+)\}", path)), path
        assert all(name.endswith("_id") and name != "id" for name in names), path


def test_202_is_documented_where_the_api_answers_202(schema):
    send = schema["paths"]["/api/v1/conversations/{conversation_id}/messages/"]["post"]["responses"]
    assert send["202"]["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Submission"}
    assert "201" not in send
