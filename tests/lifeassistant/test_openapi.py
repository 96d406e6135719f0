"""Operation ids: what a generated client's method names read like."""

from __future__ import annotations

import pytest

from lifeassistant.openapi import name_path_parameters, operation_id


@pytest.mark.parametrize(
    ("path", "method", "is_list", "expected"),
    [
        ("/conversations/", "GET", True, "list_conversations"),
        ("/conversations/", "POST", False, "create_conversation"),
        ("/conversations/{id}/", "GET", False, "get_conversation"),
        ("/conversations/{id}/", "PATCH", False, "update_conversation"),
        ("/conversations/{id}/", "PUT", False, "replace_conversation"),
        ("/conversations/{id}/", "DELETE", False, "delete_conversation"),
        ("/conversations/{conversation_id}/messages/", "GET", True, "list_conversation_messages"),
        ("/conversations/{conversation_id}/messages/", "POST", False, "create_conversation_message"),
        ("/messages/{id}/retry/", "POST", False, "retry_message"),
        ("/messages/{id}/cancel/", "POST", False, "cancel_message"),
        ("/messages/{id}/events/", "GET", False, "get_message_events"),
        ("/actions/{id}/accept/", "POST", False, "accept_action"),
        ("/auth/token/", "POST", False, "create_auth_token"),
        ("/auth/token/", "DELETE", False, "delete_auth_token"),
        ("/me/", "GET", False, "get_me"),
        ("/me/", "PATCH", False, "update_me"),
        ("/memory/", "GET", True, "list_memory"),
        ("/memory/{id}/", "DELETE", False, "delete_memory"),
        ("/skills/", "GET", True, "list_skills"),
        ("/", "GET", False, "get_root"),
    ],
)
def test_operation_ids_read_as_verb_and_resource(path, method, is_list, expected):
    assert operation_id(path, method, is_list=is_list) == expected


def test_anonymous_path_ids_are_named_after_their_resource():
    operation = {"parameters": [{"in": "path", "name": "pk"}, {"in": "query", "name": "pk"}]}
    result = name_path_parameters({"paths": {"/api/v1/memories/{pk}/": {"get": operation}}})
    assert list(result["paths"]) == ["/api/v1/memories/{memory_id}/"]
    assert operation["parameters"] == [{"in": "path", "name": "memory_id"}, {"in": "query", "name": "pk"}]


def test_operations_added_by_other_hooks_get_resource_names_and_readable_ids():
    stream = {"operationId": "messages_events_retrieve", "parameters": [{"in": "path", "name": "id"}]}
    result = name_path_parameters({"paths": {"/api/v1/messages/{id}/events/": {"get": stream}}})
    assert list(result["paths"]) == ["/api/v1/messages/{message_id}/events/"]
    assert stream["operationId"] == "get_message_events"
    assert stream["parameters"] == [{"in": "path", "name": "message_id"}]
