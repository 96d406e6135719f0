"""The admin: its sign-in is throttled like the app's, its extra pages need the model's view permission."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.test import Client
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(django_user_model: Any) -> Any:
    return django_user_model.objects.create_user(username="staff", password="staff-pass-123", is_staff=True)


def admin_sign_in(client: Client, username: str, password: str) -> Any:
    return client.post("/admin/login/?next=/admin/", {"username": username, "password": password})


def test_the_admin_login_is_throttled_per_address_at_the_default_rate(staff: Any) -> None:
    client = Client()
    codes = [admin_sign_in(client, "staff", f"guess-{n}").status_code for n in range(10)]
    refused = admin_sign_in(client, "staff", "staff-pass-123")

    assert codes == [200] * 10
    assert refused.status_code == 429
    assert int(refused["Retry-After"]) > 0
    assert "Too many sign-in attempts" in refused.content.decode()
    assert "_auth_user_id" not in client.session  # the right password does not get in either
    assert Client(REMOTE_ADDR="203.0.113.9").post(
        "/admin/login/?next=/admin/", {"username": "staff", "password": "staff-pass-123"}
    ).status_code == 302


@pytest.fixture
def three_per_username(settings: Any) -> None:
    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "login_username": "3/hour"}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}


@pytest.mark.usefixtures("three_per_username")
def test_addresses_that_failed_at_a_username_share_one_budget_across_sign_in_doors(staff: Any) -> None:
    doors = [
        lambda address, username, password: APIClient(REMOTE_ADDR=address).post(
            "/api/v1/auth/token/", {"username": username, "password": password}, format="json"
        ),
        lambda address, username, password: Client(REMOTE_ADDR=address).post(
            "/login/", {"username": username, "password": password}
        ),
        lambda address, username, password: admin_sign_in(Client(REMOTE_ADDR=address), username, password),
    ]
    for n, door in enumerate(doors):
        door(f"198.51.100.{n}", "STAFF", "wrong")  # case-folded: the same budget
        door(f"198.51.100.{n}", "staff", "wrong again")  # the username's budget: 3 across doors

    again = [door(f"198.51.100.{n}", "staff", "staff-pass-123").status_code for n, door in enumerate(doors)]
    fresh = [door(f"203.0.113.{n}", "staff", "staff-pass-123").status_code for n, door in enumerate(doors)]
    other_account = APIClient(REMOTE_ADDR="198.51.100.0").post(
        "/api/v1/auth/token/", {"username": "someone", "password": "x"}, format="json"
    )

    assert again == [429, 429, 429]
    assert fresh == [200, 302, 302]
    assert other_account.status_code == 401


@pytest.mark.parametrize("page", ["/admin/chat/toolcall/stats/", "/admin/chat/message/skill-usage/"])
def test_a_staff_user_without_the_view_permission_gets_403_on_the_extra_pages(staff: Any, page: str) -> None:
    client = Client()
    client.force_login(staff)
    assert client.get(page).status_code == 403


@pytest.mark.parametrize(
    ("page", "codename"),
    [("/admin/chat/toolcall/stats/", "view_toolcall"), ("/admin/chat/message/skill-usage/", "view_message")],
)
def test_the_models_view_permission_opens_its_extra_page(staff: Any, page: str, codename: str) -> None:
    staff.user_permissions.add(Permission.objects.get(codename=codename))
    client = Client()
    client.force_login(staff)
    assert client.get(page).status_code == 200


def test_the_skill_preview_needs_the_skill_view_permission(staff: Any) -> None:
    client = Client()
    client.force_login(staff)
    assert client.get("/admin/skills/skill/preview/").status_code == 403
    staff.user_permissions.add(Permission.objects.get(codename="view_skill"))
    assert client.get("/admin/skills/skill/preview/").status_code == 200


@pytest.mark.usefixtures("three_per_username")
def test_successful_sign_ins_do_not_spend_the_accounts_budget_and_a_backoff_says_how_long(staff: Any) -> None:
    """30 sign-ins in an hour, successful ones included, locked the account for the rest of
    the hour, and the page said "Try again in a minute"."""
    for n in range(5):
        door = APIClient(REMOTE_ADDR=f"198.51.100.{n}")
        ok = door.post("/api/v1/auth/token/", {"username": "staff", "password": "staff-pass-123"}, format="json")
        assert ok.status_code == 200, n
        assert Client(REMOTE_ADDR=f"198.51.101.{n}").post("/login/", {"username": "staff", "password": "staff-pass-123"}).status_code == 302

    guesser = Client(REMOTE_ADDR="198.51.102.1", headers={"Accept-Language": "en"})
    for _ in range(4):
        guesser.post("/login/", {"username": "staff", "password": "wrong"})
    refused = guesser.post("/login/", {"username": "staff", "password": "staff-pass-123"})
    assert refused.status_code == 429
    assert int(refused["Retry-After"]) > 3000
    assert "Try again in 60 minutes." in refused.content.decode() or "Try again in 59 minutes." in refused.content.decode()


def test_a_replys_admin_page_shows_the_prompt_with_the_documents_the_model_gets(client, django_user_model):
    from chat.models import Conversation, Message
    from documents.models import ChatDocument

    staff = django_user_model.objects.create_superuser("root", "root@example.com", "pw-1234567")
    conversation = Conversation.objects.create(owner=staff)
    said = Message.objects.create(conversation=conversation, role="user", content="oi")
    ChatDocument.objects.create(owner=staff, conversation=conversation, file_name="extrato.csv", content="a,b")
    reply = Message.objects.create(
        conversation=conversation, role="assistant", reply_to=said, system_prompt="Be kind.", tools_offered=["read_document"]
    )
    client.force_login(staff)
    page = client.get(f"/admin/chat/message/{reply.pk}/change/").content.decode()
    assert "Be kind." in page and "extrato.csv" in page
