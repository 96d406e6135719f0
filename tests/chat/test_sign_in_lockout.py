"""Strangers cannot lock an account: guessers are backed off, the owner's right password still works.

Thirty wrong passwords for a username from three addresses used to refuse the right
password from a fresh address for an hour (429, the password not even checked).
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db

TOKEN = "/api/v1/auth/token/"


@pytest.fixture
def staff(django_user_model: Any) -> Any:
    return django_user_model.objects.create_user(username="staff", password="staff-pass-123", is_staff=True)


def api_sign_in(address: str, username: str, password: str) -> Any:
    return APIClient(REMOTE_ADDR=address).post(TOKEN, {"username": username, "password": password}, format="json")


def web_sign_in(address: str, username: str, password: str, door: str = "/login/") -> Any:
    return Client(REMOTE_ADDR=address, headers={"Accept-Language": "en"}).post(
        door, {"username": username, "password": password}
    )


def thirty_wrong_passwords_from_three_addresses(username: str) -> None:
    for address in ("198.51.100.1", "198.51.100.2", "198.51.100.3"):
        for n in range(10):
            api_sign_in(address, username, f"guess-{n}")


def test_the_right_password_from_a_fresh_address_gets_in_after_thirty_guesses_from_three(staff: Any) -> None:
    thirty_wrong_passwords_from_three_addresses("staff")

    assert api_sign_in("203.0.113.7", "staff", "staff-pass-123").status_code == 200
    assert web_sign_in("203.0.113.8", "staff", "staff-pass-123").status_code == 302


def test_the_admin_login_lets_the_owner_in_after_strangers_guessed(staff: Any) -> None:
    thirty_wrong_passwords_from_three_addresses("staff")

    response = web_sign_in("203.0.113.9", "staff", "staff-pass-123", door="/admin/login/?next=/admin/")

    assert response.status_code == 302


def test_an_address_that_guessed_wrong_is_backed_off_at_that_username(staff: Any) -> None:
    thirty_wrong_passwords_from_three_addresses("staff")

    again = api_sign_in("198.51.100.1", "staff", "staff-pass-123")
    web = web_sign_in("198.51.100.2", "staff", "staff-pass-123")
    admin = web_sign_in("198.51.100.3", "staff", "staff-pass-123", door="/admin/login/?next=/admin/")

    assert [again.status_code, web.status_code, admin.status_code] == [429, 429, 429]
    assert "token" not in again.json()
    assert int(again["Retry-After"]) > 0
    assert "Too many sign-in attempts" in web.content.decode()


def test_guessers_spread_over_many_addresses_share_one_username_budget(staff: Any, settings: Any) -> None:
    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "login_username": "3/hour"}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    addresses = [f"198.51.100.{n}" for n in range(1, 5)]
    first = [api_sign_in(address, "staff", "wrong").status_code for address in addresses]
    # Each address has failed once: their next attempts spend the username's 3 an hour.
    second = [api_sign_in(address, "staff", "wrong again").status_code for address in addresses]

    assert first == [401] * 4
    assert second == [401, 401, 401, 429]
    assert api_sign_in("203.0.113.7", "staff", "staff-pass-123").status_code == 200
    assert api_sign_in("203.0.113.8", "someone", "x").status_code == 401  # another account is untouched


def test_one_address_gets_ten_attempts_an_hour_at_one_username(staff: Any, settings: Any) -> None:
    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "login": "100/minute"}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    codes = [api_sign_in("198.51.100.1", "staff", f"guess-{n}").status_code for n in range(11)]

    assert codes == [401] * 10 + [429]
    assert api_sign_in("198.51.100.1", "someone", "x").status_code == 401  # another username is checked


def test_the_owner_signing_in_elsewhere_does_not_free_a_guessing_address(staff: Any, settings: Any) -> None:
    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "login_username": "1/hour"}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    api_sign_in("198.51.100.1", "staff", "guess")
    api_sign_in("198.51.100.1", "staff", "guess again")  # spends the username's one

    assert api_sign_in("198.51.100.2", "staff", "staff-pass-123").status_code == 200
    assert api_sign_in("198.51.100.1", "staff", "staff-pass-123").status_code == 429


def test_signing_in_clears_the_address_s_failures(staff: Any, settings: Any) -> None:
    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "login_username": "1/hour"}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    assert web_sign_in("198.51.100.1", "staff", "typo").status_code == 200
    assert web_sign_in("198.51.100.1", "staff", "staff-pass-123").status_code == 302  # spends the one

    # No failure left at this address: the spent username budget does not apply to it.
    assert web_sign_in("198.51.100.1", "staff", "staff-pass-123").status_code == 302
