"""Intent extraction and user_context documents through the API (docs/specification.md, intent extraction)."""

from __future__ import annotations

import json

import litellm
import pytest

from chat.models import Message
from documents.models import ChatDocument
from lifeassistant.models import Profile

pytestmark = pytest.mark.django_db


def big_message() -> str:
    rows = "\n".join(f"2024-{1 + i % 12:02d}-{1 + i % 28:02d},mercado {i},{10 + i % 90}.50" for i in range(900))
    payload = json.dumps({"accounts": [{"id": i, "bank": "Banco", "balance": i * 10.5} for i in range(250)]}, indent=2)
    return (
        "Analise meus gastos do ano e me diga onde economizar. Veja também https://example.com/guia.\n\n"
        f"```csv\ndate,place,amount\n{rows}\n```\n\n```json\n{payload}\n```\n"
    )


def big_prose() -> str:
    """A 40 KB message of prose: nothing in it the deterministic extractor can move out."""
    return "Quero organizar minha semana com mais calma. " + (
        "Eu adio a academia, o mercado e o descanso, e tudo acumula até o domingo. " * 550
    )


@pytest.fixture
def small_window(settings):
    """A 16k-token window makes a 40 KB message cross the 10% threshold."""
    settings.LLM_MAX_INPUT_TOKENS = 16_000


def test_a_40_kb_message_becomes_two_documents_and_a_short_intent(api, conversation, send, shipped_skills, small_window):
    content = big_message()
    assert len(content.encode()) > 40_000
    body = send(api, conversation["id"], {"content": content}).json()
    user_message = body["user_message"]
    # The 202 carries a preview and the documents by reference, not the 40 KB again...
    assert user_message["content_truncated"] is True
    assert content.startswith(user_message["content"].rstrip("…"))
    assert len(json.dumps(body)) < 8_000
    assert [d["mime_type"] for d in user_message["documents"]] == ["text/csv", "application/json"]
    # ...and what the user wrote is kept verbatim.
    assert api.get(f"/api/v1/messages/{user_message['id']}/").json()["content"] == content
    stored = Message.objects.get(pk=user_message["id"])
    assert len(stored.intent) < 500
    assert "https://example.com/guia" in stored.intent
    documents = list(ChatDocument.objects.filter(message=stored))
    assert [d.mime_type for d in documents] == ["text/csv", "application/json"]
    assert all(d.label == "user_context" for d in documents)
    assert documents[0].content.startswith("date,place,amount")

    reply = Message.objects.get(pk=body["assistant_message"]["id"])
    system = _model_messages(reply)[0]["content"]
    assert "## AVAILABLE_DOCUMENTS" in system
    assert documents[0].file_name in system
    assert "read_document" in reply.tools_offered
    assert stored.intent in [m["content"] for m in _model_messages(reply)]


def _model_messages(reply):
    from chat.answering import build_llm_messages

    return build_llm_messages(reply)


def test_a_short_message_makes_no_model_call_and_no_document(api, conversation, send, shipped_skills, settings, monkeypatch):
    settings.LLM_MODEL = "gpt-4o-mini"
    settings.LLM_LEAN_STREAMING = False  # litellm's mock_response stands in for the provider
    calls = []
    original = litellm.completion
    monkeypatch.setattr(litellm, "completion", lambda **kw: calls.append(kw) or original(**kw, mock_response="ok"))
    send(api, conversation["id"], {"content": "Quanto gastei este mês no mercado? " * 5})
    assert len(calls) == 1  # the reply only: the analyzer was not asked
    assert not ChatDocument.objects.exists()


def test_an_invalid_analyzer_answer_keeps_the_message_whole(api, conversation, send, shipped_skills, settings, monkeypatch, small_window):
    settings.LLM_MODEL = "gpt-4o-mini"
    settings.LLM_LEAN_STREAMING = False  # litellm's mock_response stands in for the provider
    answers = ["this is not json", "Resposta final."]
    original = litellm.completion
    monkeypatch.setattr(litellm, "completion", lambda **kw: original(**kw, mock_response=answers.pop(0)))
    body = send(api, conversation["id"], {"content": big_prose()}).json()
    assert not ChatDocument.objects.filter(message_id=body["user_message"]["id"]).exists()
    assert Message.objects.get(pk=body["assistant_message"]["id"]).content == "Resposta final."


def test_a_valid_analyzer_answer_sets_the_intent_and_documents_of_large_prose(api, conversation, send, shipped_skills, settings, monkeypatch, small_window):
    settings.LLM_MODEL = "gpt-4o-mini"
    settings.LLM_LEAN_STREAMING = False  # litellm's mock_response stands in for the provider
    analysis = {
        "detectedLanguage": "pt",
        "intent": "Organizar a semana com calma.",
        "contextItems": [{"title": "Rotina", "mimeType": "text/plain", "content": "academia, mercado, descanso"}],
    }
    answers = [json.dumps(analysis), "Feito."]
    original = litellm.completion
    monkeypatch.setattr(litellm, "completion", lambda **kw: original(**kw, mock_response=answers.pop(0)))
    body = send(api, conversation["id"], {"content": big_prose()}).json()
    message = Message.objects.get(pk=body["user_message"]["id"])
    assert message.intent == "Organizar a semana com calma."
    assert [d.content for d in ChatDocument.objects.filter(message=message)] == ["academia, mercado, descanso"]


def test_pasted_blocks_become_documents_without_an_analyzer_call(api, conversation, shipped_skills, scripted_llm, small_window):
    """The model would have to repeat 40 KB of table and JSON in its answer: the extractor moves them."""
    response = api.post(f"/api/v1/conversations/{conversation['id']}/messages/", {"content": big_message()}, format="json")

    assert response.status_code == 202
    stored = Message.objects.get(pk=response.json()["user_message"]["id"])
    assert [d.mime_type for d in ChatDocument.objects.filter(message=stored)] == ["text/csv", "application/json"]
    assert all(request.get("response_format") is None for request in scripted_llm.requests)  # no analyzer call


def test_the_api_lists_and_returns_documents_only_to_their_owner(api, other_api, conversation, send, shipped_skills, small_window):
    send(api, conversation["id"], {"content": big_message()})
    listing = api.get(f"/api/v1/conversations/{conversation['id']}/documents/").json()
    assert len(listing) == 2 and "content" not in listing[0]
    document = api.get(f"/api/v1/documents/{listing[0]['id']}/").json()
    assert document["content"].startswith("date,place,amount")
    assert other_api.get(f"/api/v1/conversations/{conversation['id']}/documents/").status_code == 404
    assert other_api.get(f"/api/v1/documents/{listing[0]['id']}/").status_code == 404


def test_a_user_message_shows_content_intent_language_and_documents(api, conversation, send, shipped_skills, small_window):
    body = send(api, conversation["id"], {"content": big_message()}).json()
    shown = api.get(f"/api/v1/messages/{body['user_message']['id']}/").json()
    assert shown["content"].startswith("Analise meus gastos")
    assert shown["intent"] and shown["language"] == "pt"
    assert [d["mime_type"] for d in shown["documents"]] == ["text/csv", "application/json"]


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Gastei cinquenta reais no mercado hoje de manhã e quero anotar", "pt"),
        ("I spent fifty dollars at the grocery store this morning", "en"),
        ("Hoy gasté cincuenta euros en el supermercado por la mañana", "es"),
    ],
)
def test_the_language_is_detected_and_the_profile_keeps_the_users_choice(api, user, conversation, send, shipped_skills, text, language):
    """The message's language steers the reply; the profile's is the user's choice only. A
    profile filled from the first message switched the whole interface (the page's language
    follows the profile before the browser's) to a language the user never picked."""
    body = send(api, conversation["id"], {"content": text}).json()
    assert body["user_message"]["language"] == language
    assert Profile.objects.get(user=user).language == ""


def test_a_very_short_message_keeps_the_previous_language(api, user, conversation, send, shipped_skills):
    send(api, conversation["id"], {"content": "I spent fifty dollars at the grocery store this morning"})
    body = send(api, conversation["id"], {"content": "ok"}).json()
    assert body["user_message"]["language"] == "en"


@pytest.mark.parametrize(
    ("content", "language"),
    [
        (big_message(), "pt"),  # the analysis sees it tidied: the trailing newline gone
        ("x" * 5_000, ""),  # nothing to tell, and no earlier language: not asked twice
    ],
)
def test_a_message_is_scanned_for_its_language_once(api, conversation, send, shipped_skills, small_window, monkeypatch, content, language):
    """Each language detection scans a paste for its blocks: the message's own text is
    detected once."""
    from documents import language as detection

    scans = []
    scan = detection.text_outside_blocks
    monkeypatch.setattr(detection, "text_outside_blocks", lambda text: scans.append(text) or scan(text))

    # A browser language the product does not speak: no language is known beforehand.
    body = send(api, conversation["id"], {"content": content}, **{"Accept-Language": "de"}).json()

    assert body["user_message"]["language"] == language
    assert len(scans) == 1


def test_the_model_can_read_a_document_with_read_document(user, conversation, shipped_skills):
    from chat.models import Conversation
    from lifeassistant.tools import REGISTRY, ToolContext

    conv = Conversation.objects.get(pk=conversation["id"])
    ChatDocument.objects.create(owner=user, conversation=conv, file_name="user_context_1.csv", content="a,b\n1,2")
    context = ToolContext(user=user, conversation=conv, message=None)
    outcome = REGISTRY.execute("read_document", '{"name": "user_context_1.csv"}', context)
    assert outcome.ok and outcome.result["content"] == "a,b\n1,2"
    missing = REGISTRY.execute("read_document", '{"name": "nope.txt"}', context)
    assert not missing.ok and "No document named" in missing.error


def test_read_document_never_reads_another_users_document(user, other_user, conversation, shipped_skills):
    from chat.models import Conversation
    from lifeassistant.tools import REGISTRY, ToolContext

    conv = Conversation.objects.get(pk=conversation["id"])
    ChatDocument.objects.create(owner=user, conversation=conv, file_name="secret.txt", content="x")
    theirs = Conversation.objects.create(owner=other_user)
    outcome = REGISTRY.execute("read_document", '{"name": "secret.txt"}', ToolContext(other_user, theirs, None))
    assert not outcome.ok


def test_a_stalled_analyzer_model_does_not_hold_the_post(api, conversation, shipped_skills, scripted_llm, small_window, settings):
    """The analyzer gets ANALYZER_TIMEOUT_SECONDS and no retry, then the message is kept whole (docs/configuration.md)."""
    import time

    settings.ANALYZER_TIMEOUT_SECONDS = 1.0
    scripted_llm.stall_next(30)  # the analyzer's call: the model stalls far past the budget

    started = time.monotonic()
    response = api.post(f"/api/v1/conversations/{conversation['id']}/messages/", {"content": big_prose()}, format="json")
    elapsed = time.monotonic() - started

    assert response.status_code == 202
    assert not scripted_llm.stalls_finished.is_set(), f"the POST waited {elapsed:.1f} s for the stalled model"
    # One analyzer attempt, still stalled (it is logged once answered), and no retry after it.
    assert scripted_llm.take_stall() == 0.0 and scripted_llm.requests == []
    stored = Message.objects.get(pk=response.json()["user_message"]["id"])
    assert stored.content == big_prose() and stored.intent.startswith("Quero organizar")  # kept whole
    assert not ChatDocument.objects.filter(message=stored).exists()
    print(f"POST with a stalled analyzer: {elapsed:.2f} s (budget {settings.ANALYZER_TIMEOUT_SECONDS} s)")


def test_available_documents_lists_the_newest_first_and_cuts_the_oldest(api, user, conversation, send, shipped_skills):
    from chat.models import Conversation

    row = Conversation.objects.get(pk=conversation["id"])
    for n in range(25):
        ChatDocument.objects.create(owner=user, conversation=row, file_name=f"doc_{n:02d}.txt", content="x")
    Conversation.objects.filter(pk=row.pk).update(has_documents=True)  # as the pastes that attach them set it
    send(api, conversation["id"], {"content": "oi"})
    prompt = _model_messages(Message.objects.filter(role="assistant").latest("id"))[0]["content"]
    section = prompt[prompt.index("## AVAILABLE_DOCUMENTS"):]
    listed = [line.split(" ")[1] for line in section.splitlines() if line.startswith("- doc_")]
    assert listed == [f"doc_{n:02d}.txt" for n in range(24, 4, -1)]
    assert "…and 5 more documents not listed here." in section


def test_a_paste_stores_no_new_prompt_and_the_model_still_sees_its_documents(
    api, conversation, send, small_window, shipped_skills, django_assert_num_queries
):
    """The listing changes with every paste; stored in the prompt it made each paste's
    prompt a new row of several KB (docs/performance.md). It is added when the reply runs."""
    from chat.models import Prompt

    send(api, conversation["id"], {"content": "Gastei 50 reais no mercado"})
    first = Message.objects.filter(role="assistant").latest("id")
    assert "## AVAILABLE_DOCUMENTS" not in _model_messages(first)[0]["content"]
    prompts = Prompt.objects.count()

    body = send(api, conversation["id"], {"content": big_message()}).json()
    send(api, conversation["id"], {"content": "Gastei 30 reais de uber"})
    pasted, after = Message.objects.filter(role="assistant").order_by("-id")[:2][::-1]
    assert pasted.pk == body["assistant_message"]["id"]
    # The finance prompt of the first reply serves the paste and the reply after it.
    assert Prompt.objects.count() == prompts
    assert pasted.prompt_id == after.prompt_id == first.prompt_id
    names = [d["file_name"] for d in body["user_message"]["documents"]]
    for reply in (pasted, after):
        system = _model_messages(reply)[0]["content"]
        assert system.startswith(reply.system_prompt)
        assert all(f"- {name} " in system for name in names)
    # A reply that had no documents to offer reads none.
    with django_assert_num_queries(0):
        from chat.answering import model_system_prompt

        assert model_system_prompt(first) == first.system_prompt


def test_a_reply_lists_only_the_documents_its_conversation_held_when_it_was_created(api, user, conversation, send, shipped_skills):
    from chat.answering import model_system_prompt
    from chat.models import Conversation

    row = Conversation.objects.get(pk=conversation["id"])
    ChatDocument.objects.create(owner=user, conversation=row, file_name="antes.txt", content="x")
    Conversation.objects.filter(pk=row.pk).update(has_documents=True)  # as the paste that attached it set it
    send(api, conversation["id"], {"content": "oi"})
    reply = Message.objects.filter(role="assistant").latest("id")
    ChatDocument.objects.create(owner=user, conversation=row, file_name="depois.txt", content="y")
    system = model_system_prompt(reply)
    assert "antes.txt" in system and "depois.txt" not in system


def test_a_second_paste_gets_names_of_its_own_and_its_intent_follows(api, conversation, send, small_window, shipped_skills):
    """Names are unique per conversation: the second paste's would repeat the first's."""
    from chat.models import Conversation

    first = send(api, conversation["id"], {"content": big_message()}).json()["user_message"]
    second = send(api, conversation["id"], {"content": big_message()}).json()["user_message"]
    first_names = [d["file_name"] for d in first["documents"]]
    second_names = [d["file_name"] for d in second["documents"]]
    assert second_names == [f"m{second['id']}_{name}" for name in first_names]
    intent = Message.objects.get(pk=second["id"]).intent
    assert all(f"[see {name}]" in intent for name in second_names)
    assert Conversation.objects.get(pk=conversation["id"]).has_documents is True


def test_a_reply_whose_stored_prompt_lists_documents_does_not_list_them_twice(user, conversation):
    """Prompts stored before the listing moved to the worker hold their own; regenerating
    such a reply reuses its prompt."""
    from chat.answering import model_system_prompt
    from chat.models import Conversation

    row = Conversation.objects.get(pk=conversation["id"])
    ChatDocument.objects.create(owner=user, conversation=row, file_name="extrato.csv", content="a,b")
    said = Message.objects.create(conversation=row, role="user", content="oi")
    legacy = "Be kind.\n\n## AVAILABLE_DOCUMENTS\nDocuments attached to this conversation.\n- extrato.csv (3 B)"
    reply = Message.objects.create(
        conversation=row, role="assistant", reply_to=said, system_prompt=legacy, tools_offered=["read_document"]
    )
    assert model_system_prompt(reply).count("## AVAILABLE_DOCUMENTS") == 1


def test_a_rename_saved_from_a_row_read_before_a_paste_keeps_the_documents_flag(
    api, conversation, send, small_window, shipped_skills
):
    """has_documents belongs to the message service, like the inertia state: another save
    (a rename, the admin) never writes it back from a stale read."""
    from chat.models import Conversation

    stale = Conversation.objects.get(pk=conversation["id"])
    send(api, conversation["id"], {"content": big_message()})
    stale.title = "Gastos do ano"
    stale.save()
    fresh = Conversation.objects.get(pk=conversation["id"])
    assert fresh.title == "Gastos do ano" and fresh.has_documents is True
