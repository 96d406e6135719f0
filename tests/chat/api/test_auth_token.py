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
    response = APIClient(headers={"Accept-Language": "en-US"}).post("/api/v1/auth/token/", {"username": "ana", "password": "nope"}, format="json")
    assert response.status_code == 401
    assert response.json()["detail"] == "Unable to log in with the provided credentials."


def test_it_requires_username_and_password(user):
    response = APIClient().post("/api/v1/auth/token/", {"username": "ana"}, format="json")
    assert response.status_code == 400
    assert "password" in response.json()["errors"]


def test_it_revokes_the_token_on_delete(user):
    client = APIClient(headers={"Accept-Language": "en"})
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


@pytest.fixture
def three_sign_ins_a_minute(settings):
    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "login": "3/minute"}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}


@pytest.mark.usefixtures("three_sign_ins_a_minute")
def test_password_guessing_is_throttled_per_address(user):
    client = APIClient()
    guesses = [
        client.post("/api/v1/auth/token/", {"username": "ana", "password": f"guess-{n}"}, format="json")
        for n in range(3)
    ]

    refused = client.post("/api/v1/auth/token/", {"username": "ana", "password": "pass-ana-123"}, format="json")
    elsewhere = APIClient(REMOTE_ADDR="203.0.113.9").post(
        "/api/v1/auth/token/", {"username": "ana", "password": "pass-ana-123"}, format="json"
    )

    assert [r.status_code for r in guesses] == [401, 401, 401]
    assert refused.status_code == 429
    assert "token" not in refused.json()
    assert int(refused["Retry-After"]) > 0
    assert elsewhere.status_code == 200


@pytest.mark.usefixtures("three_sign_ins_a_minute")
def test_a_normal_login_under_the_limit_still_gets_a_token_and_revoking_is_not_throttled(user):
    client = APIClient()
    client.post("/api/v1/auth/token/", {"username": "ana", "password": "typo"}, format="json")

    response = client.post("/api/v1/auth/token/", {"username": "ana", "password": "pass-ana-123"}, format="json")

    assert response.status_code == 200
    client.credentials(HTTP_AUTHORIZATION=f"Token {response.json()['token']}")
    client.post("/api/v1/auth/token/", {"username": "ana", "password": "typo"}, format="json")  # the third attempt
    assert client.delete("/api/v1/auth/token/").status_code == 204


def test_the_default_login_rate_allows_ten_attempts_a_minute(user, settings):
    assert settings.LOGIN_RATE == "10/minute"
    assert settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["login"] == "10/minute"
    client = APIClient()
    codes = [
        client.post("/api/v1/auth/token/", {"username": "ana", "password": "nope"}, format="json").status_code
        for _ in range(11)
    ]
    assert codes == [401] * 10 + [429]


def test_a_faked_forwarded_for_header_does_not_reset_the_login_limit(user, settings):
    client = APIClient()
    statuses = [
        client.post(
            "/api/v1/auth/token/",
            {"username": "ana", "password": "wrong"},
            format="json",
            HTTP_X_FORWARDED_FOR=f"10.0.0.{attempt}",
        ).status_code
        for attempt in range(12)
    ]
    assert statuses[-1] == 429


def _token_client(user) -> APIClient:
    from chat.api_tokens import issue_token

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {issue_token(user)[1]}")
    return client


def test_a_token_request_reads_token_user_and_profile_in_one_query_and_speaks_the_profile_s_language(user):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from chat.api.authentication import TokenAuthentication
    from lifeassistant.models import Profile

    Profile.objects.create(user=user, language="en")
    key = _token_client(user)._credentials["HTTP_AUTHORIZATION"].split()[1]
    with CaptureQueriesContext(connection) as queries:
        authenticated, _ = TokenAuthentication().authenticate_credentials(key)
    assert len(queries) == 1
    assert authenticated.profile.language == "en"  # cached for the view: no query

    response = _token_client(user).get("/api/v1/conversations/999999/", HTTP_ACCEPT_LANGUAGE="pt-BR")
    assert response.status_code == 404
    assert response["Content-Language"] == "en"


def test_a_token_of_a_user_without_a_profile_authenticates(user):
    assert _token_client(user).get("/api/v1/conversations/").status_code == 200


def test_a_token_of_a_deactivated_user_is_refused(user):
    client = _token_client(user)
    user.is_active = False
    user.save()
    response = client.get("/api/v1/conversations/")
    assert response.status_code == 401
    assert response.json()["detail"]
