"""POST /api/v1/conversations/{id}/files/: a file becomes a document; bad ones store nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.conf import settings

from chat.answering import build_llm_messages
from chat.models import Conversation, Message
from chat.throttling import MessageRateThrottle
from documents.models import ChatDocument
from tests.file_fixtures import encrypted_pdf, latin1_csv, make_pdf, ofx_statement, two_page_pdf, xlsx_budget, zip_archive

pytestmark = pytest.mark.django_db

BOUNDARY = "----boundary36"


def multipart(name: str, data: bytes, *, field: str = "file", content_type: str = "application/octet-stream") -> bytes:
    """A multipart body written by hand: Django's test client would cut a name's folders away."""
    return (
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{field}"; filename="{name}"\r\n'
        f"Content-Type: {content_type}\r\n\r\n"
    ).encode() + data + f"\r\n--{BOUNDARY}--\r\n".encode()


def upload(client: Any, conversation_id: int, name: str, data: bytes, **options: Any) -> Any:
    return client.generic(
        "POST",
        f"/api/v1/conversations/{conversation_id}/files/",
        multipart(name, data, **options),
        content_type=f"multipart/form-data; boundary={BOUNDARY}",
    )


def stored_files() -> list[Path]:
    return [path for path in Path(settings.MEDIA_ROOT).rglob("*") if path.is_file()]


def assert_nothing_stored() -> None:
    assert not ChatDocument.objects.exists()
    assert stored_files() == []


def test_an_ofx_becomes_a_document_with_its_transactions(api, conversation):
    response = upload(api, conversation["id"], "extrato-novembro.ofx", ofx_statement())

    assert response.status_code == 201, response.content
    [document] = response.json()["documents"]
    assert (document["file_name"], document["title"], document["label"]) == ("extrato-novembro.ofx", "extrato-novembro.ofx", "user_file")
    assert document["mime_type"] == "application/x-ofx"
    assert len(document["transactions"]) == 3
    detail = api.get(f"/api/v1/documents/{document['id']}/").json()
    assert detail["transactions"][0] == {"date": "2026-11-05", "description": "SUPERMERCADO EXTRA", "amount": "-123.45", "type": "debit"}
    assert "SUPERMERCADO EXTRA" in detail["content"]
    assert Conversation.objects.get(pk=conversation["id"]).has_documents


def test_the_original_is_kept_in_storage_under_a_name_of_ours(api, conversation):
    response = upload(api, conversation["id"], "extrato.csv", latin1_csv())

    document = ChatDocument.objects.get(pk=response.json()["documents"][0]["id"])
    [kept] = stored_files()
    assert kept.read_bytes() == latin1_csv()
    assert kept.suffix == ".csv" and "extrato" not in kept.name
    assert document.original.name.startswith(f"uploads/{document.owner_id}/")


def test_a_latin1_csv_statement_is_decoded_and_gives_its_transactions(api, conversation):
    response = upload(api, conversation["id"], "extrato.csv", latin1_csv())

    [document] = response.json()["documents"]
    assert document["mime_type"] == "text/csv"
    assert [(t["date"], t["amount"]) for t in document["transactions"]] == [
        ("2026-11-27", "-1234.56"), ("2026-11-26", "-45.90"), ("2026-11-25", "8500.00"),
    ]  # fmt: skip
    assert "Pão de Açúcar" in api.get(f"/api/v1/documents/{document['id']}/").json()["content"]


@pytest.mark.parametrize(
    ("name", "data", "mime_type", "text"),
    [
        ("contrato.pdf", two_page_pdf(), "application/pdf", "Segunda página"),
        ("orcamento.xlsx", xlsx_budget(), "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "Aluguel"),
        ("notas.md", "# Notas\n\nPagar o IPTU".encode(), "text/markdown", "Pagar o IPTU"),
    ],
    ids=["pdf", "xlsx", "markdown"],
)
def test_pdf_xlsx_and_markdown_become_documents_with_their_text(api, conversation, name, data, mime_type, text):
    response = upload(api, conversation["id"], name, data)

    [document] = response.json()["documents"]
    assert (document["file_name"], document["mime_type"], document["transactions"]) == (name, mime_type, [])
    assert text in api.get(f"/api/v1/documents/{document['id']}/").json()["content"]


def test_the_same_name_twice_gets_a_second_name(api, conversation):
    upload(api, conversation["id"], "extrato.csv", latin1_csv())

    second = upload(api, conversation["id"], "extrato.csv", latin1_csv()).json()["documents"][0]

    assert second["file_name"] == "extrato_2.csv"


def test_the_next_reply_lists_the_file_and_a_message_can_refer_to_it(api, conversation, send):
    upload(api, conversation["id"], "extrato.csv", latin1_csv())

    sent = send(api, conversation["id"], {"content": "O que tem no @extrato.csv?"})

    reply = Message.objects.get(pk=sent.json()["assistant_message"]["id"])
    model_messages = build_llm_messages(reply)
    system = model_messages[0]["content"]
    assert "## AVAILABLE_DOCUMENTS" in system and "extrato.csv" in system
    assert "read_document" in reply.tools_offered
    assert "Pão de Açúcar;-1.234,56" in model_messages[-1]["content"]  # the @reference, inlined


@pytest.mark.parametrize(
    ("name", "data", "status", "words"),
    [
        ("extrato.csv", zip_archive(), 415, "zip archive"),
        ("extrato.csv", b"MZ\x90\x00\x03\x00\x00\x00\x04\x00\xff\xff", 415, "executable"),
        ("contrato.pdf", encrypted_pdf(), 400, "password"),
        ("extrato.ofx", b"OFXHEADER:100\r\nDATA:OFXSGML\r\n\r\n<OFX><STMTTRN><TRNAMT>x", 400, "OFX"),
        ("extrato.csv", b"Data;Descricao;Valor\n27/11/2026;=1+1;-1,00\n", 400, "formula"),
        ("../../etc/passwd.csv", latin1_csv(), 400, "folders"),
        ("pasta\\\\extrato.csv", latin1_csv(), 400, "folders"),
        ("extrato\x01.csv", latin1_csv(), 400, "control characters"),
    ],
    ids=["zip-renamed-csv", "exe-renamed-csv", "encrypted-pdf", "malformed-ofx", "formula-csv",
         "name-with-folders", "name-with-backslashes", "name-with-control-character"],  # fmt: skip
)
def test_bad_files_are_a_clear_4xx_and_nothing_is_stored(api, conversation, name, data, status, words):
    response = upload(api, conversation["id"], name, data)

    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/json"
    assert words in response.json()["detail"]
    assert_nothing_stored()


def test_a_pdf_past_the_page_limit_is_a_413_and_nothing_is_stored(api, conversation, settings):
    settings.UPLOAD_MAX_PAGES = 2

    response = upload(api, conversation["id"], "livro.pdf", make_pdf(["página"] * 3))

    assert response.status_code == 413
    assert "3 pages" in response.json()["detail"]
    assert_nothing_stored()


def test_a_file_over_upload_max_bytes_is_a_413_and_nothing_is_stored(api, conversation, settings):
    settings.UPLOAD_MAX_BYTES = 4096

    response = upload(api, conversation["id"], "grande.txt", b"a" * 5000)

    assert response.status_code == 413
    assert "too large" in response.json()["detail"]
    assert_nothing_stored()


def test_a_body_far_over_the_limit_is_refused_before_it_is_read(api, conversation, settings):
    settings.UPLOAD_MAX_BYTES = 1024

    response = upload(api, conversation["id"], "grande.txt", b"a" * 200_000)

    assert response.status_code == 413
    assert_nothing_stored()


def test_files_up_to_upload_max_bytes_pass_the_json_limit(api, conversation, settings):
    settings.REQUEST_MAX_BYTES = 1024

    response = upload(api, conversation["id"], "notas.txt", b"nota " * 1000)

    assert response.status_code == 201


def test_someone_elses_conversation_is_a_404_and_nothing_is_stored(other_api, conversation):
    response = upload(other_api, conversation["id"], "extrato.csv", latin1_csv())

    assert response.status_code == 404
    assert_nothing_stored()


def test_a_json_body_or_no_file_is_refused(api, conversation):
    url = f"/api/v1/conversations/{conversation['id']}/files/"
    assert api.post(url, {"file": "x"}, format="json").status_code == 415
    missing = upload(api, conversation["id"], "extrato.csv", latin1_csv(), field="other")
    assert missing.status_code == 400
    assert "file" in missing.json()["errors"]
    assert_nothing_stored()


def test_uploads_share_the_message_rate_limit(api, conversation, send, monkeypatch):
    monkeypatch.setattr(MessageRateThrottle, "THROTTLE_RATES", {"messages": "2/minute"})

    assert send(api, conversation["id"], {"content": "oi"}).status_code == 202
    assert upload(api, conversation["id"], "a.txt", b"um").status_code == 201
    refused = upload(api, conversation["id"], "b.txt", b"dois")

    assert refused.status_code == 429
    assert refused.has_header("Retry-After")
    assert ChatDocument.objects.count() == 1


def test_a_refusal_speaks_the_users_language(api, conversation):
    response = api.generic(
        "POST",
        f"/api/v1/conversations/{conversation['id']}/files/",
        multipart("extrato.csv", zip_archive()),
        content_type=f"multipart/form-data; boundary={BOUNDARY}",
        headers={"Accept-Language": "pt-BR"},
    )

    assert response.status_code == 415
    assert response.json()["detail"].startswith("Este arquivo é um arquivo zip, que não pode ser lido aqui.")


def test_deleting_the_conversation_deletes_the_files_sent_to_it(api, conversation, django_capture_on_commit_callbacks):
    upload(api, conversation["id"], "extrato.csv", latin1_csv())
    assert len(stored_files()) == 1

    with django_capture_on_commit_callbacks(execute=True):
        assert api.delete(f"/api/v1/conversations/{conversation['id']}/").status_code == 204

    assert_nothing_stored()


def test_two_files_in_one_request_are_refused(api, conversation):
    one = multipart("a.txt", b"um")
    body = one[: one.rindex(f"--{BOUNDARY}--".encode())] + multipart("b.txt", b"dois")[0:]

    response = api.generic(
        "POST", f"/api/v1/conversations/{conversation['id']}/files/", body,
        content_type=f"multipart/form-data; boundary={BOUNDARY}",
    )  # fmt: skip

    assert response.status_code == 400
    assert "exactly one file" in response.json()["errors"]["file"][0]
    assert_nothing_stored()
