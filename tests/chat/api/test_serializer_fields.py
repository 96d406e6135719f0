"""Serializers build their fields once per class; each instance binds copies of its own."""

from __future__ import annotations

import pytest

from chat.api.serializers import PREVIEW_CHARS, BuiltOnceMixin, MessageSerializer
from chat.models import Conversation, Message

pytestmark = pytest.mark.django_db


@pytest.fixture
def long_message(django_user_model) -> Message:
    owner = django_user_model.objects.create_user(username="fields")
    conversation = Conversation.objects.create(owner=owner)
    return Message.objects.create(conversation=conversation, role=Message.Role.USER, content="palavra " * 400)


def test_instances_with_different_contexts_do_not_share_bound_fields(long_message: Message) -> None:
    preview = MessageSerializer(long_message, context={"preview": True})
    whole = MessageSerializer(long_message)

    # Interleaved: each field answers to the serializer it is bound to.
    assert preview.data["content"].endswith("…") and len(preview.data["content"]) <= PREVIEW_CHARS + 1
    assert whole.data["content"] == long_message.content
    assert preview.data["content_truncated"] is True and whole.data["content_truncated"] is False
    for name in ("content", "role", "documents"):
        assert preview.fields[name] is not whole.fields[name]
        assert preview.fields[name].parent is preview and whole.fields[name].parent is whole


def test_the_class_s_fields_stay_unbound(long_message: Message) -> None:
    MessageSerializer(long_message).data  # noqa: B018 (builds and binds a set)
    built = BuiltOnceMixin._built[MessageSerializer]
    assert all(getattr(field, "parent", None) is None for field in built.values())
    assert getattr(built["content"], "field_name", None) is None
