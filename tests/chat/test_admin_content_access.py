"""Staff read users' message content in the admin only with a dedicated permission, and each reading is logged."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.test import Client

from chat.models import ContentAccess, Conversation, Message

pytestmark = pytest.mark.django_db

SECRET = "Minha dívida com o agiota é de 30 mil"


@pytest.fixture
def message(user: Any) -> Message:
    conversation = Conversation.objects.create(owner=user, title="Dívidas")
    return Message.objects.create(conversation=conversation, role="user", content=SECRET)


def staff_with(django_user_model: Any, *codenames: str) -> Client:
    staff = django_user_model.objects.create_user(username="suporte", password="x", is_staff=True)
    staff.user_permissions.add(*Permission.objects.filter(codename__in=codenames))
    client = Client(headers={"Accept-Language": "en"})
    client.force_login(staff)
    return client


def test_view_message_alone_shows_no_message_text(django_user_model: Any, message: Message) -> None:
    client = staff_with(django_user_model, "view_message", "view_conversation")

    page = client.get(f"/admin/chat/message/{message.pk}/change/")
    thread = client.get(f"/admin/chat/conversation/{message.conversation_id}/change/")

    assert page.status_code == 200 and thread.status_code == 200
    assert SECRET not in page.content.decode()
    assert SECRET not in thread.content.decode()
    assert not ContentAccess.objects.exists()


def test_searching_by_text_needs_the_permission_too(django_user_model: Any, message: Message) -> None:
    Message.objects.create(conversation=message.conversation, role="user", content="Bom dia")
    client = staff_with(django_user_model, "view_message")
    listing = client.get("/admin/chat/message/", {"q": "agiota"})
    assert listing.status_code == 200
    assert listing.context["cl"].result_count == 2  # the search was not applied: no hint of who wrote it


def test_with_the_permission_the_text_shows_and_the_reading_is_logged(django_user_model: Any, message: Message, user: Any) -> None:
    client = staff_with(django_user_model, "view_message", "view_conversation", "read_message_content")

    assert SECRET in client.get(f"/admin/chat/message/{message.pk}/change/").content.decode()
    assert SECRET in client.get(f"/admin/chat/conversation/{message.conversation_id}/change/").content.decode()

    logged = list(ContentAccess.objects.order_by("id").values_list("staff_username", "owner_id", "what"))
    assert logged == [
        ("suporte", user.pk, f"message {message.pk}"),
        ("suporte", user.pk, f"conversation {message.conversation_id}"),
    ]


def test_only_superusers_see_the_log_and_nobody_edits_it(
    django_user_model: Any, message: Message, admin_client: Client
) -> None:
    staff = staff_with(django_user_model, "view_message", "read_message_content", "view_contentaccess", "delete_contentaccess")
    staff.get(f"/admin/chat/message/{message.pk}/change/")
    entry = ContentAccess.objects.get()

    assert staff.get("/admin/chat/contentaccess/").status_code == 403
    assert admin_client.get("/admin/chat/contentaccess/").status_code == 200
    assert "suporte" in admin_client.get("/admin/chat/contentaccess/").content.decode()
    assert admin_client.post(f"/admin/chat/contentaccess/{entry.pk}/delete/", {"post": "yes"}).status_code == 403
    page = admin_client.get(f"/admin/chat/contentaccess/{entry.pk}/change/")
    assert page.status_code == 200 and b'name="_save"' not in page.content
    assert ContentAccess.objects.count() == 1


@pytest.fixture
def traces(user: Any, message: Message) -> dict[str, Any]:
    """A reply's tool call, its proposal, a pasted document and a stored prompt, each holding the secret."""
    from chat.models import PendingAction, Prompt, ToolCall
    from documents.models import ChatDocument

    reply = Message.objects.create(conversation=message.conversation, role="assistant", reply_to=message, content="ok")
    prompt = Prompt.objects.create(sha256="a" * 64, text=f"About the user: {SECRET}")
    Message.objects.filter(pk=reply.pk).update(prompt=prompt)
    call = ToolCall.objects.create(message=reply, call_id="c1", iteration=1, tool="create_debt", arguments={"note": SECRET}, ok=True)
    action = PendingAction.objects.create(
        conversation=message.conversation, message=reply, tool_call_id="c1", tool="create_debt",
        arguments={"note": SECRET}, summary=SECRET[:40], expires_at="2099-01-01T00:00:00Z",
    )
    document = ChatDocument.objects.create(
        owner=user, conversation=message.conversation, message=message, file_name="divida.txt", content=SECRET
    )
    return {
        "toolcall": f"/admin/chat/toolcall/{call.pk}/change/",
        "pendingaction": f"/admin/chat/pendingaction/{action.pk}/change/",
        "chatdocument": f"/admin/documents/chatdocument/{document.pk}/change/",
        "prompt": f"/admin/chat/prompt/{prompt.pk}/change/",
    }


VIEW_ALL = ("view_toolcall", "view_pendingaction", "view_chatdocument", "view_prompt")


def test_tool_calls_proposals_documents_and_prompts_hide_their_text_without_the_permission(
    django_user_model: Any, traces: dict[str, str]
) -> None:
    client = staff_with(django_user_model, *VIEW_ALL)

    for url in traces.values():
        page = client.get(url)
        assert page.status_code == 200, url
        assert SECRET[:20] not in page.content.decode(), url
    listing = client.get("/admin/chat/pendingaction/")
    assert SECRET[:20] not in listing.content.decode()  # the summary column goes too
    assert not ContentAccess.objects.exists()


def test_with_the_permission_each_of_them_shows_its_text_and_is_logged(
    django_user_model: Any, traces: dict[str, str], user: Any
) -> None:
    client = staff_with(django_user_model, *VIEW_ALL, "read_message_content")

    for url in traces.values():
        assert SECRET[:20] in client.get(url).content.decode(), url

    assert sorted(what.split()[0] for what in ContentAccess.objects.values_list("what", flat=True)) == sorted(traces)
    assert set(ContentAccess.objects.values_list("owner_id", flat=True)) == {user.pk}
