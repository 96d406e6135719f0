"""Reading the files people send: the kind by content, the text, a statement's transactions."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from documents.files import FileRefused, Limits, checked_name, document_name, read_file
from documents.statements import Transaction
from tests.file_fixtures import (
    encrypted_pdf,
    latin1_csv,
    make_pdf,
    ofx_statement,
    two_page_pdf,
    xlsx_budget,
    zip_archive,
)

LIMITS = Limits(max_bytes=10 * 1024 * 1024, max_pages=200, max_chars=1_000_000)


def test_an_ofx_statement_gives_its_three_transactions():
    read = read_file("extrato.ofx", ofx_statement(), LIMITS)

    assert (read.kind, read.mime_type) == ("ofx", "application/x-ofx")
    assert read.transactions == (
        Transaction(date(2026, 11, 5), "SUPERMERCADO EXTRA", Decimal("-123.45"), "debit"),
        Transaction(date(2026, 11, 10), "UBER *TRIP", Decimal("-30.00"), "debit"),
        Transaction(date(2026, 11, 15), "SALARIO", Decimal("5000.00"), "credit"),
    )
    assert "SUPERMERCADO EXTRA" in read.text


def test_a_latin1_semicolon_csv_reads_brazilian_amounts_and_dates():
    read = read_file("extrato.csv", latin1_csv(), LIMITS)

    assert (read.kind, read.mime_type) == ("csv", "text/csv")
    assert "27/11/2026;Pão de Açúcar;-1.234,56" in read.text  # decoded, not mojibake
    assert read.transactions == (
        Transaction(date(2026, 11, 27), "Pão de Açúcar", Decimal("-1234.56"), "debit"),
        Transaction(date(2026, 11, 26), "Farmácia São João", Decimal("-45.90"), "debit"),
        Transaction(date(2026, 11, 25), "Salário", Decimal("8500.00"), "credit"),
    )  # the balance line is not a transaction


def test_a_csv_with_debit_and_credit_columns_and_a_comma_is_a_statement_too():
    text = "date,description,debit,credit\n2026-11-02,Netflix,39.90,\n2026-11-03,Refund,,10.00\n"

    read = read_file("nubank.txt", text.encode(), LIMITS)

    assert read.kind == "csv"  # by content: the name said .txt
    assert [(t.amount, t.type) for t in read.transactions] == [(Decimal("-39.90"), "debit"), (Decimal("10.00"), "credit")]


def test_a_csv_that_is_no_statement_is_a_document_without_transactions():
    read = read_file("tabela.csv", b"nome;idade\nAna;31\nBruno;40\n", LIMITS)

    assert (read.kind, read.transactions) == ("csv", ())


def test_a_two_page_pdf_gives_the_text_of_both_pages():
    read = read_file("contrato.pdf", two_page_pdf(), LIMITS)

    assert (read.kind, read.mime_type) == ("pdf", "application/pdf")
    assert "Contrato de aluguel" in read.text and "Segunda página" in read.text
    assert read.text.index("--- page 1 ---") < read.text.index("--- page 2 ---")


def test_an_xlsx_gives_each_sheet_as_lines_with_formula_text_made_inert():
    read = read_file("orcamento.xlsx", xlsx_budget(), LIMITS)

    assert read.kind == "xlsx"
    assert read.text.splitlines()[:3] == ["# Orçamento", "Categoria\tPrevisto\tNota", "Mercado\t1500\t'@SUM(1+1)*cmd"]
    assert "Aluguel\t2300.5" in read.text


def test_text_and_markdown_are_read_as_they_are():
    assert read_file("notas.txt", "Lembrar do médico".encode(), LIMITS).kind == "text"
    markdown = read_file("plano.md", b"# Plano\n\n- correr", LIMITS)
    assert (markdown.kind, markdown.text) == ("markdown", "# Plano\n\n- correr")


@pytest.mark.parametrize(
    ("name", "data", "status", "words"),
    [
        ("extrato.csv", zip_archive(), 415, "zip archive"),
        ("extrato.csv", b"MZ\x90\x00\x03\x00\x00\x00\x04\x00", 415, "executable"),
        ("extrato.csv", b"\x7fELF\x02\x01\x01\x00" + b"\x00" * 50, 415, "executable"),
        ("foto.txt", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", 415, "binary"),
        ("contrato.pdf", encrypted_pdf(), 400, "password"),
        ("contrato.pdf", b"%PDF-1.4\nnot really a pdf", 400, "damaged"),
        ("extrato.ofx", b"OFXHEADER:100\r\nDATA:OFXSGML\r\n\r\n<OFX><BANKMSGSRSV1><STMTTRN>", 400, "OFX"),
        ("extrato.csv", "Data;Descrição;Valor\n27/11/2026;=HYPERLINK(\"http://x\");-1,00\n".encode(), 400, "formula"),
        ("extrato.csv", b"Data;Descricao;Valor\n27/11/2026;+cmd|' /C calc'!A0;-1,00\n", 400, "formula"),
        ("vazio.txt", b"", 400, "empty"),
    ],
    ids=["zip-renamed-csv", "exe-renamed-csv", "elf-renamed-csv", "png-renamed-txt", "encrypted-pdf",
         "damaged-pdf", "malformed-ofx", "formula-csv", "dde-formula-csv", "empty"],  # fmt: skip
)
def test_bad_files_are_refused_with_a_status_and_a_reason(name, data, status, words):
    with pytest.raises(FileRefused) as refused:
        read_file(name, data, LIMITS)

    assert refused.value.status == status
    assert words in str(refused.value)


def test_a_pdf_past_the_page_limit_is_refused_before_its_text_is_read():
    with pytest.raises(FileRefused) as refused:
        read_file("livro.pdf", make_pdf(["página"] * 3), Limits(max_bytes=10**7, max_pages=2, max_chars=10**6))

    assert refused.value.status == 413
    assert "3 pages" in str(refused.value)


def test_a_pdf_that_expands_past_the_text_limit_is_refused():
    pages = ["x" * 80 + "\n" + "y" * 80] * 20

    with pytest.raises(FileRefused) as refused:
        read_file("grande.pdf", make_pdf(pages), Limits(max_bytes=10**7, max_pages=200, max_chars=2_000))

    assert refused.value.status == 413


def test_a_file_over_the_byte_limit_is_refused():
    with pytest.raises(FileRefused) as refused:
        read_file("a.txt", b"a" * 2048, Limits(max_bytes=1024, max_pages=1, max_chars=10**6))

    assert refused.value.status == 413


@pytest.mark.parametrize("name", ["../../etc/passwd", "pasta/extrato.csv", "C:\\Users\\extrato.csv", "a\nb.csv",
                                  "a\x00.csv", "fatura\u202efdp.exe", "..", ""])  # fmt: skip
def test_names_with_path_parts_or_control_characters_are_refused(name):
    with pytest.raises(FileRefused):
        checked_name(name)


def test_a_document_is_named_so_a_message_can_refer_to_it():
    assert document_name("Extrato Novembro (Itaú).csv", "csv") == "Extrato_Novembro_Itau.csv"
    assert document_name("dados.txt", "csv") == "dados.csv"  # the kind's extension, not the sender's
    assert document_name("☃☃.pdf", "pdf") == "file.pdf"
