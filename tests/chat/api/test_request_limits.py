"""Bad bodies get a JSON 4xx from every API endpoint, never a 500 or an HTML page (SECURITY.md, Limits)."""

from __future__ import annotations

import json
import threading

import pytest
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db

TOKEN = "/api/v1/auth/token/"
CONVERSATIONS = "/api/v1/conversations/"


def raw(client, path, body, content_type="application/json"):
    return client.generic("POST", path, body, content_type=content_type)


@pytest.mark.parametrize(
    "body",
    ["[" * 100_000, '{"a":' * 50_000, "[" * 33 + "]" * 33],
    ids=["100k-arrays", "50k-objects", "33-levels"],
)
@pytest.mark.parametrize("path", [TOKEN, CONVERSATIONS])
def test_deeply_nested_json_is_a_400_with_a_message(api, path, body):
    client = api if path == CONVERSATIONS else APIClient()
    response = raw(client, path, body)
    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"
    assert "nested deeper than 32 levels" in response.json()["detail"]


def test_ordinary_nesting_and_brackets_inside_strings_still_parse(api):
    title = "[" * 200 + "{" * 200
    response = api.post(CONVERSATIONS, {"title": title[:200]}, format="json")
    assert response.status_code == 201
    assert response.json()["title"] == title[:200]


@pytest.mark.parametrize(
    "body",
    ['{"username": "' + "a" * 60, '{"username": "' + '\\"' * 200_000, '["' * 200_000],
    ids=["open-string", "escaped-quotes-left-open", "many-open-strings"],
)
def test_a_string_left_open_is_a_prompt_400_not_a_worker_tied_up(body):
    # The depth scan once took exponential time on an unclosed string: 60 bytes without
    # signing in held a worker for days. It answers at all now (a hang guard, not a timing).
    answered: list[object] = []
    worker = threading.Thread(target=lambda: answered.append(raw(APIClient(), TOKEN, body)), daemon=True)
    worker.start()
    worker.join(timeout=30)

    assert answered, "the parser did not answer within 30 s"
    assert answered[0].status_code == 400
    assert "JSON parse error" in answered[0].json()["detail"]


@pytest.mark.parametrize(
    "body",
    [r'{"\ud800": 1, "username": "ana", "password": "x"}', r'{"username": "an\udfffa", "password": "x"}'],
    ids=["key", "value"],
)
@pytest.mark.parametrize("path", [TOKEN, CONVERSATIONS])
def test_a_lone_surrogate_in_a_key_or_a_value_is_a_400(api, user, path, body):
    client = api if path == CONVERSATIONS else APIClient()
    response = raw(client, path, body)
    assert response.status_code == 400
    assert "unpaired surrogate" in response.json()["detail"]


@pytest.mark.parametrize("text", ["a\ud800b", "\udfff", "ok " * 10_000 + "\udc00"])
def test_a_text_field_refuses_a_lone_surrogate_as_drf_does(text):
    """Behind the parser too (a serializer fed from elsewhere): DRF's message and code."""
    from rest_framework.exceptions import ValidationError

    from chat.api.serializers import StrictCharField

    with pytest.raises(ValidationError) as raised:
        StrictCharField().run_validation(text)
    code_point = next(ord(c) for c in text if 0xD800 <= ord(c) <= 0xDFFF)
    assert raised.value.get_codes() == ["surrogate_characters_not_allowed"]
    assert f"U+{code_point:X}" in str(raised.value.detail[0])


def test_paired_surrogates_are_text(api):
    response = raw(api, CONVERSATIONS, r'{"title": "ok \ud83d\ude00"}')
    assert response.status_code == 201
    assert response.json()["title"] == "ok 😀"


def test_invalid_json_is_a_400_with_the_parse_error(api):
    response = raw(api, CONVERSATIONS, '{"title": ')
    assert response.status_code == 400
    assert response.json()["detail"].startswith("JSON parse error")


def test_parse_errors_speak_the_readers_language_and_a_bom_is_ignored(api):
    """The decoder's English wording came after a translated prefix ("Erro ao ler o JSON -
    Expecting property name enclosed in double quotes…")."""
    pt = {"HTTP_ACCEPT_LANGUAGE": "pt-BR"}
    broken = api.generic("POST", CONVERSATIONS, '{"title": "a",\n x}', content_type="application/json", **pt)
    nan = api.generic("POST", CONVERSATIONS, '{"title": NaN}', content_type="application/json", **pt)

    assert broken.json()["detail"] == "Erro ao ler o JSON - não é um JSON válido na linha 2, coluna 2."
    assert nan.json()["detail"] == "Erro ao ler o JSON - NaN não é um JSON válido."
    with_bom = api.generic("POST", CONVERSATIONS, '\ufeff{"title": "com BOM"}'.encode(), content_type="application/json")
    assert (with_bom.status_code, with_bom.json()["title"]) == (201, "com BOM")


def test_nan_is_not_json(api):
    response = raw(api, CONVERSATIONS, '{"title": NaN}')
    assert response.status_code == 400


@pytest.mark.parametrize("path", [TOKEN, CONVERSATIONS])
def test_an_integer_of_more_digits_than_python_converts_is_a_400(api, path):
    """4,301 digits raised a plain ValueError past the parser: a 500, even before sign-in."""
    client = api if path == CONVERSATIONS else APIClient(headers={"Accept-Language": "en"})
    response = raw(client, path, '{"username": "a", "password": ' + "9" * 4_301 + ', "title": "x"}')
    assert response.status_code == 400
    assert response.json()["detail"] == "JSON parse error - a number has too many digits."
    assert raw(client, path, '{"title": ' + "9" * 4_300 + "}").status_code == 400  # an ordinary wrong type


TEN_MB = 10 * 1024 * 1024


@pytest.mark.parametrize(
    ("path", "content_type", "body"),
    [
        (CONVERSATIONS, "application/json", json.dumps({"title": "x" * TEN_MB})),
        (CONVERSATIONS, "application/x-www-form-urlencoded", "title=" + "x" * TEN_MB),
        (TOKEN, "application/json", json.dumps({"username": "x" * TEN_MB, "password": "x"})),
        ("/api/v1/conversations/1/messages/", "application/json", json.dumps({"content": "x" * TEN_MB})),
        ("/api/v1/actions/1/accept/", "application/json", json.dumps({"note": "x" * TEN_MB})),
    ],
    ids=["json", "form", "token", "messages", "bodiless-accept"],
)
def test_a_10_mb_body_is_a_json_413(api, path, content_type, body):
    client = api if path != TOKEN else APIClient()
    response = raw(client, path, body, content_type)
    assert response.status_code == 413
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"detail": "This is too large to send: at most 1.0\xa0MB. Send long texts in parts."}


def test_the_parser_itself_stops_reading_at_the_limit(settings):
    """Defence in depth behind the middleware: a stream longer than announced is not read whole."""
    import io

    from chat.api.parsers import JSONParser, RequestTooLarge

    settings.REQUEST_MAX_BYTES = 2048
    stream = io.BytesIO(json.dumps({"title": "x" * 5000}).encode())
    with pytest.raises(RequestTooLarge):
        JSONParser().parse(stream, "application/json", {})
    assert stream.tell() == 2049


def test_the_limit_follows_the_setting(api, settings):
    settings.REQUEST_MAX_BYTES = 2048
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 2048
    response = api.post(CONVERSATIONS, {"title": "x" * 3000}, format="json")
    assert response.status_code == 413
    assert api.post(CONVERSATIONS, {"title": "x" * 100}, format="json").status_code == 201


def _chunked(method: str, path: str, chunks: list[bytes], token: str) -> tuple[int, dict]:
    """One request through the ASGI application with its body in ``chunks`` and no
    Content-Length, as a client streaming its body sends it (``Transfer-Encoding: chunked``)."""
    from asgiref.sync import async_to_sync
    from asgiref.testing import ApplicationCommunicator

    from lifeassistant.asgi import application

    headers = [
        (b"host", b"testserver"),
        (b"authorization", f"Token {token}".encode()),
        (b"content-type", b"application/json"),
        (b"transfer-encoding", b"chunked"),
        (b"accept-language", b"en"),
    ]
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method, "scheme": "http",
        "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "", "headers": headers,
        "client": ("127.0.0.1", 50000), "server": ("testserver", 80),
    }

    async def exchange() -> tuple[int, bytes]:
        communicator = ApplicationCommunicator(application, scope)
        for n, chunk in enumerate(chunks):
            await communicator.send_input({"type": "http.request", "body": chunk, "more_body": n < len(chunks) - 1})
        start = await communicator.receive_output(30)
        body = b""
        while True:
            part = await communicator.receive_output(30)
            body += part.get("body", b"")
            if not part.get("more_body"):
                return start["status"], body

    status, body = async_to_sync(exchange)()
    return status, json.loads(body)


@pytest.mark.django_db(transaction=True)  # the ASGI handler runs the view in a thread of its own
def test_a_chunked_body_is_read_not_dropped(user, settings):
    """DRF reads a request without a Content-Length as empty: a chunked PATCH answered 200
    having changed nothing, a chunked conversation was created untitled, and a chunked
    body of any size got a 201."""
    from chat.api_tokens import issue_token

    _, token = issue_token(user)

    status, body = _chunked("PATCH", "/api/v1/me/", [b'{"display_name": ', b'"Chunky"}'], token)
    assert (status, body["display_name"]) == (200, "Chunky")
    status, body = _chunked("PATCH", "/api/v1/me/", [b'{"timezone": ', b'"Nope/Nope"}'], token)
    assert status == 400 and "timezone" in body["errors"]
    status, body = _chunked("POST", CONVERSATIONS, [b'{"title": "Em ', b'partes"}'], token)
    assert (status, body["title"]) == (201, "Em partes")

    settings.REQUEST_MAX_BYTES = settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 2048
    status, body = _chunked("POST", CONVERSATIONS, [b'{"title": "', b"x" * 3000, b'"}'], token)
    assert status == 413 and body == {"detail": "This is too large to send: at most 2.0\xa0KB. Send long texts in parts."}
