"""Tests for documents.extraction, the deterministic extractor."""

import json

import pytest

from documents.extraction import MIN_BLOCK_CHARS, ContextItem, Extraction, extract, text_outside_blocks


def _csv_rows(count: int, first_day: int = 0) -> str:
    header = "date,description,category,amount"
    rows = [f"2024-03-{(first_day + n) % 28 + 1:02d},Mercado Central {n},food,-{n + 10}.50" for n in range(count)]
    return "\n".join([header, *rows])


def _json_document(accounts: int) -> str:
    return json.dumps(
        {"accounts": [{"id": n, "name": f"Conta {n}", "balance": n * 10.5} for n in range(accounts)]}, indent=2
    )


def test_a_large_message_with_csv_and_json_yields_two_items_and_a_short_intent():
    csv_block = _csv_rows(500)
    json_block = _json_document(250)
    message = (
        "Oi! Preciso de ajuda com meu orçamento de março.\n\n"
        "Estes são meus gastos:\n"
        f"{csv_block}\n\n"
        "E este é o export das contas (veja https://bank.example.com/export?id=42 e a planilha orcamento.xlsx):\n"
        f"{json_block}\n\n"
        "Quanto gastei com comida e qual conta tem mais saldo?"
    )
    assert 35_000 < len(message) < 50_000

    result = extract(message)

    assert result.items == (
        ContextItem(title="CSV data", mime_type="text/csv", content=csv_block),
        ContextItem(title="JSON block", mime_type="application/json", content=json_block),
    )
    assert len(result.intent) < 500
    assert "https://bank.example.com/export?id=42" in result.intent
    assert "orcamento.xlsx" in result.intent
    assert "[see user_context_1.csv]" in result.intent
    assert "[see user_context_2.json]" in result.intent
    assert result.intent.startswith("Oi! Preciso de ajuda")
    assert result.intent.endswith("Quanto gastei com comida e qual conta tem mais saldo?")


def test_the_intent_keeps_the_text_order_with_a_marker_where_each_block_was():
    message = f"Before the data:\n{_csv_rows(20)}\nAfter the data."

    assert extract(message).intent == "Before the data:\n[see user_context_1.csv]\nAfter the data."


def test_small_blocks_stay_inline():
    message = (
        "Compare these:\n"
        "date,amount\n2024-01-01,10\n2024-01-02,20\n\n"
        '{\n  "limit": 500,\n  "currency": "BRL"\n}\n\n'
        "```python\nprint(sum([10, 20]))\n```\n"
        "What is the total?"
    )

    result = extract(message)

    assert result.items == ()
    assert result.intent == message.strip()


def _csv_of_length(length: int) -> str:
    head = "date,place,amount\n2024-01-01,Mercado,10.50\n2024-01-02,Mercado,"
    return head + "9" * (length - len(head))


def test_a_block_of_exactly_the_minimum_size_is_extracted_and_one_character_less_is_not():
    assert MIN_BLOCK_CHARS == 300
    assert len(extract(f"Sum these:\n{_csv_of_length(300)}").items) == 1
    assert extract(f"Sum these:\n{_csv_of_length(299)}").items == ()


def test_fenced_code_is_extracted_with_its_language_and_without_the_fences():
    code = "\n".join(f"def step_{n}(value):\n    return value * {n} + sum(range({n}))" for n in range(12))
    message = f"Why is this slow?\n```python\n{code}\n```\nPlease suggest a faster version."

    result = extract(message)

    assert result.items == (ContextItem(title="Code (python)", mime_type="text/x-python", content=code),)
    assert result.intent == "Why is this slow?\n[see user_context_1.py]\nPlease suggest a faster version."


@pytest.mark.parametrize(
    ("language", "title", "mime_type", "marker"),
    [
        ("rust", "Code (rust)", "text/plain", "[see user_context_1_rust.txt]"),
        ("", "Code", "text/plain", "[see user_context_1.txt]"),
        ("csv", "CSV data", "text/csv", "[see user_context_1.csv]"),
        ("json", "JSON block", "application/json", "[see user_context_1.json]"),
    ],
)
def test_the_fence_language_sets_title_and_mime_type(language, title, mime_type, marker):
    body = "x = 1; " * 60
    result = extract(f"Look:\n```{language}\n{body}\n```")

    assert result.items == (ContextItem(title=title, mime_type=mime_type, content=body),)
    assert marker in result.intent


def test_lines_inside_a_fence_are_never_split_into_other_blocks():
    body = "\n".join(f"row_{n},{n},{n * 2}" for n in range(40))
    result = extract(f"Parse this file:\n```\n{body}\n```\nThanks")

    assert [item.title for item in result.items] == ["Code"]
    assert result.items[0].content == body


def test_an_unclosed_fence_stays_in_the_intent():
    message = "Please fix:\n```python\n" + "value = compute()  # " + "padding " * 60 + "\nand tell me why it fails"

    result = extract(message)

    assert result.items == ()
    assert "and tell me why it fails" in result.intent


def test_a_quoted_transcript_is_extracted():
    transcript = "\n".join(
        f"> {'Ana' if n % 2 else 'Bruno'} said we should split the rent for month {n} equally" for n in range(8)
    )
    message = f"My roommates and I argued about rent:\n{transcript}\nWho is right?"

    result = extract(message)

    assert result.items == (ContextItem(title="Quoted transcript", mime_type="text/plain", content=transcript),)
    assert result.intent == "My roommates and I argued about rent:\n[see user_context_1.txt]\nWho is right?"


def test_a_chat_export_with_speaker_prefixes_is_a_transcript():
    transcript = "\n".join(
        f"[12/03/2024, 10:{n:02d}] {'Ana Souza' if n % 2 else 'Bruno'}: vamos dividir a conta de luz, tudo bem?"
        for n in range(6)
    )

    result = extract(f"Resuma esta conversa:\n{transcript}")

    assert [item.title for item in result.items] == ["Quoted transcript"]
    assert result.intent == "Resuma esta conversa:\n[see user_context_1.txt]"


def test_four_speaker_lines_are_too_few_for_a_transcript():
    line = "Ana: this line is long enough to count towards the size limit of a block, really"
    transcript = "\n".join([line] * 4)
    assert len(transcript) >= MIN_BLOCK_CHARS

    assert extract(f"Summarize:\n{transcript}").items == ()
    assert len(extract(f"Summarize:\n{transcript}\n{line}").items) == 1


def test_a_long_list_is_extracted_but_a_short_one_stays():
    long_list = "\n".join(f"- Buy item number {n} from the grocery store near the office" for n in range(8))
    short_list = "\n".join(f"{n}. Buy item number {n} from the grocery store near the office, " * 2 for n in range(7))

    assert extract(f"Organize:\n{long_list}").items == (
        ContextItem(title="List", mime_type="text/plain", content=long_list),
    )
    assert extract(f"Organize:\n{short_list}").items == ()


def test_a_markdown_table_is_extracted_as_markdown():
    rows = "\n".join(f"| 2024-03-{n + 1:02d} | Mercado | {n * 3}.50 |" for n in range(12))
    table = f"| Date | Place | Amount |\n|------|-------|--------|\n{rows}"

    result = extract(f"Total this table:\n{table}")

    assert result.items == (ContextItem(title="Table", mime_type="text/markdown", content=table),)
    assert "[see user_context_1.md]" in result.intent


def test_tab_separated_data_is_extracted_as_csv():
    tsv = "\n".join(f"2024-03-{n + 1:02d}\tMercado\t{n}.50" for n in range(20))

    assert extract(f"Sum:\n{tsv}").items == (ContextItem(title="CSV data", mime_type="text/csv", content=tsv),)


def test_quoted_fields_with_commas_count_as_one_field():
    rows = "\n".join(f'2024-03-{n + 1:02d},"Mercado, Centro",{n}.50' for n in range(15))

    assert [item.title for item in extract(f"Sum:\n{rows}").items] == ["CSV data"]


def test_wrapped_prose_with_one_comma_per_line_is_not_csv():
    prose = "\n".join(
        [
            "Yesterday I went to the market near my house, and I bought",
            "a lot of fruit for the week because the prices, surprisingly,",
            "were lower than usual so I took the chance and filled, my bag",
            "with apples and bananas and some oranges for the kids, then I",
            "walked back home slowly because it was a really sunny day, ok",
        ]
    )

    assert extract(prose).items == ()


def test_repeated_kinds_are_numbered_in_titles_and_file_names():
    message = f"January:\n{_csv_rows(15)}\nFebruary:\n{_csv_rows(15, first_day=3)}\nCompare them."

    result = extract(message)

    assert [item.title for item in result.items] == ["CSV data 1", "CSV data 2"]
    assert result.intent == (
        "January:\n[see user_context_1.csv]\nFebruary:\n[see user_context_2.csv]\nCompare them."
    )


def test_a_message_that_is_only_data_gets_a_descriptive_intent():
    assert extract(_csv_rows(30)).intent == "Shared 1 CSV data block."


def test_the_description_counts_each_kind_of_block():
    message = f"{_csv_rows(30)}\n\n{_json_document(20)}\n\n{_csv_rows(30)}"

    assert extract(message).intent == "Shared 2 CSV data blocks and 1 JSON block."


def test_whitespace_is_tidied_in_the_intent():
    message = f"  Hello   \r\n\r\n\r\n\r\nHere:\r\n{_csv_rows(20)}\r\n\r\n\r\nThanks!  \r\n"

    assert extract(message).intent == "Hello\n\nHere:\n[see user_context_1.csv]\n\nThanks!"


def test_json_followed_by_text_on_its_last_line_is_not_a_block():
    body = _json_document(15)
    message = f"Config:\n{body} is what I use"

    assert all(item.mime_type != "application/json" for item in extract(message).items)


def test_a_message_without_blocks_is_returned_tidied_and_without_items():
    question = "How much did I spend on food this month?"

    assert extract(f"  {question}  \n\n") == Extraction(intent=question, items=())


def test_text_outside_blocks_drops_extracted_blocks_without_leaving_markers():
    small_csv = "date,amount\n2024-01-01,10\n2024-01-02,20"
    message = f"Before the data:\n{_csv_rows(20)}\nAfter the data.\n{small_csv}"

    assert text_outside_blocks(message) == f"Before the data:\nAfter the data.\n{small_csv}"


# How long reading takes is a figure of `manage.py benchmark --section reading`, not asserted here.
def test_a_one_megabyte_message_has_each_of_its_pasted_blocks_extracted():
    chunk = f"Notes for the week.\n{_csv_rows(300)}\n{_json_document(100)}\nMore notes.\n"
    message = (chunk * (1_000_000 // len(chunk) + 1))[:1_000_000]

    result = extract(message)

    assert len(result.items) > 10


def test_lines_of_unclosed_brackets_are_not_a_block_and_stay_in_the_text():
    # Without the "do not retry inside a failed span" rule this takes minutes.
    message = "{\n" * 200_000

    result = extract(message)

    assert result.items == ()
    assert result.intent == message.strip()
