"""API tokens: one per client with an expiry, listed and revoked, and gone with the old password.

``POST /api/v1/auth/token/`` returned the same token forever and a password change left
it valid, so a leaked token outlived the reset meant to lock its holder out.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db

TOKEN = "/api/v1/auth/token/"
TOKENS = "/api/v1/auth/tokens/"


def sign_in(client: str | None = None, password: str = "pass-ana-123") -> dict[str, Any]:
    body = {"username": "ana", "password": password, **({"client": client} if client is not None else {})}
    response = APIClient().post(TOKEN, body, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def with_token(key: str) -> APIClient:
    client = APIClient(headers={"Accept-Language": "en"})
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def works(key: str) -> bool:
    return with_token(key).get("/api/v1/conversations/").status_code == 200


def test_changing_the_password_revokes_every_token(user: Any) -> None:
    phone, laptop = sign_in("phone")["token"], sign_in("laptop")["token"]

    user.set_password("a-new-pass-456")
    user.save()

    assert not works(phone) and not works(laptop)
    assert works(sign_in(password="a-new-pass-456")["token"])


def test_saving_the_user_without_a_new_password_keeps_the_tokens(user: Any) -> None:
    key = sign_in()["token"]
    user.first_name = "Ana"
    user.save()
    assert works(key)


def test_each_sign_in_gets_its_own_token_with_an_expiry(user: Any) -> None:
    first, second = sign_in(), sign_in()

    assert first["token"] != second["token"]
    assert works(first["token"]) and works(second["token"])
    expires = timezone.datetime.fromisoformat(second["expires_at"])
    assert timedelta(days=89) < expires - timezone.now() <= timedelta(days=90)


def test_signing_in_again_from_a_named_client_replaces_only_its_token(user: Any) -> None:
    old_phone, laptop = sign_in("Ana's phone")["token"], sign_in("laptop")["token"]

    new_phone = sign_in("Ana's phone")

    assert new_phone["client"] == "Ana's phone"
    assert not works(old_phone)
    assert works(new_phone["token"]) and works(laptop)


def test_an_expired_token_is_refused(user: Any) -> None:
    from chat.models import ApiToken

    key = sign_in()["token"]
    ApiToken.objects.update(expires_at=timezone.now() - timedelta(seconds=1))

    response = with_token(key).get("/api/v1/conversations/")

    assert response.status_code == 401
    assert response.json()["detail"] == "Invalid token."


def test_the_list_shows_your_tokens_without_keys_and_marks_the_current_one(user: Any, other_user: Any) -> None:
    phone = sign_in("phone")
    laptop = sign_in("laptop")
    APIClient().post(TOKEN, {"username": "bruno", "password": "pass-bruno-123"}, format="json")

    listed = with_token(phone["token"]).get(TOKENS).json()

    assert [(t["id"], t["client"], t["current"]) for t in listed] == [
        (laptop["id"], "laptop", False),
        (phone["id"], "phone", True),
    ]
    assert all("token" not in t for t in listed)


def test_revoking_a_token_by_id_signs_that_client_out(user: Any) -> None:
    phone, laptop = sign_in("phone"), sign_in("laptop")

    assert with_token(laptop["token"]).delete(f"{TOKENS}{phone['id']}/").status_code == 204

    assert not works(phone["token"])
    assert works(laptop["token"])


def test_another_users_token_cannot_be_revoked(user: Any, other_user: Any) -> None:
    bruno = APIClient().post(TOKEN, {"username": "bruno", "password": "pass-bruno-123"}, format="json").json()
    ana = sign_in()

    response = with_token(ana["token"]).delete(f"{TOKENS}{bruno['id']}/")

    assert response.status_code == 404
    assert works(bruno["token"])


def test_delete_on_the_token_path_revokes_only_the_current_token(user: Any) -> None:
    phone, laptop = sign_in("phone")["token"], sign_in("laptop")["token"]

    assert with_token(phone).delete(TOKEN).status_code == 204

    assert not works(phone)
    assert works(laptop)


def test_the_key_is_not_stored(user: Any) -> None:
    from chat.models import ApiToken

    key = sign_in()["token"]
    assert not ApiToken.objects.filter(digest=key).exists()
    assert key not in str(list(ApiToken.objects.values()))


def test_a_user_keeps_at_most_twenty_tokens(user: Any, settings: Any) -> None:
    from chat.api_tokens import MAX_TOKENS_PER_USER

    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "login": "100/minute"}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    from chat.models import ApiToken

    keys = [sign_in()["token"] for _ in range(MAX_TOKENS_PER_USER + 2)]

    assert ApiToken.objects.filter(user=user).count() == MAX_TOKENS_PER_USER
    assert not works(keys[0]) and works(keys[-1])


def test_the_web_session_still_signs_out(user: Any) -> None:
    browser = Client()
    assert browser.post("/login/", {"username": "ana", "password": "pass-ana-123"}).status_code == 302
    assert browser.get("/").status_code == 200

    assert browser.post("/logout/").status_code == 302
    assert browser.get("/").status_code == 302
