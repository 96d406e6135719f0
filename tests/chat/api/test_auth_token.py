from __future__ import annotations

import pytest
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


def test_it_obtains_a_token_that_authenticates_the_app(user):
    client = APIClient()
    response = client.post("/api/v1/auth/token/", {"username": "ana", "password": "pass-ana-123"}, format="json")
    assert response.status_code == 200
    client.credentials(HTTP_AUTHORIZATION=f"Token {response.json()['token']}")
    assert client.get("/api/v1/conversations/").status_code == 200


def test_it_refuses_a_wrong_password(user):
    response = APIClient().post("/api/v1/auth/token/", {"username": "ana", "password": "nope"}, format="json")
    assert response.status_code == 401
    assert response.json()["detail"] == "Unable to log in with the provided credentials."


def test_it_requires_username_and_password(user):
    response = APIClient().post("/api/v1/auth/token/", {"username": "ana"}, format="json")
    assert response.status_code == 400
    assert "password" in response.json()["errors"]


def test_it_revokes_the_token_on_delete(user):
    client = APIClient()
    token = client.post("/api/v1/auth/token/", {"username": "ana", "password": "pass-ana-123"}, format="json").json()["token"]
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert client.delete("/api/v1/auth/token/").status_code == 204
    response = client.get("/api/v1/conversations/")
    assert response.status_code == 401
    assert response.json()["detail"] == "Invalid token."


def test_a_stale_token_does_not_block_logging_in_again(user):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    response = client.post("/api/v1/auth/token/", {"username": "ana", "password": "pass-ana-123"}, format="json")
    assert response.status_code == 200


def test_a_bad_token_gets_401():
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    assert client.get("/api/v1/conversations/").status_code == 401
