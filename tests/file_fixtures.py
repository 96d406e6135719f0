"""Files made by the tests (no real bank data): an OFX of 3 transactions, a Latin-1 ``;``
CSV, a two-page PDF, an XLSX made with openpyxl, and bad ones."""

from __future__ import annotations

import io
import zipfile

from bench.files import make_pdf

__all__ = ["make_pdf", "ofx_statement", "latin1_csv", "two_page_pdf", "encrypted_pdf", "xlsx_budget", "zip_archive"]

OFX_TRANSACTIONS = """
<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20261105120000[-3:BRT]<TRNAMT>-123.45<FITID>1<MEMO>SUPERMERCADO EXTRA</STMTTRN>
<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20261110<TRNAMT>-30.00<FITID>2<NAME>UBER *TRIP</STMTTRN>
<STMTTRN><TRNTYPE>CREDIT<DTPOSTED>20261115<TRNAMT>5000.00<FITID>3<MEMO>SALARIO</STMTTRN>
"""


def ofx_statement(transactions: str = OFX_TRANSACTIONS) -> bytes:
    """An OFX 1.x (SGML) checking-account statement, as Brazilian banks export it."""
    return f"""OFXHEADER:100
DATA:OFXSGML
VERSION:102
SECURITY:NONE
ENCODING:USASCII
CHARSET:1252
COMPRESSION:NONE
OLDFILEUID:NONE
NEWFILEUID:NONE

<OFX>
<SIGNONMSGSRSV1><SONRS><STATUS><CODE>0<SEVERITY>INFO</STATUS><DTSERVER>20261130120000[-3:BRT]<LANGUAGE>POR</SONRS></SIGNONMSGSRSV1>
<BANKMSGSRSV1><STMTTRNRS><TRNUID>1<STATUS><CODE>0<SEVERITY>INFO</STATUS>
<STMTRS><CURDEF>BRL<BANKACCTFROM><BANKID>0341<ACCTID>12345<ACCTTYPE>CHECKING</BANKACCTFROM>
<BANKTRANLIST><DTSTART>20261101<DTEND>20261130
{transactions}
</BANKTRANLIST><LEDGERBAL><BALAMT>100.00<DTASOF>20261130</LEDGERBAL></STMTRS></STMTTRNRS></BANKMSGSRSV1>
</OFX>
""".replace("\n", "\r\n").encode("ascii")


LATIN1_CSV_TEXT = (
    "Data;Histórico;Valor\r\n"
    "27/11/2026;Pão de Açúcar;-1.234,56\r\n"
    "26/11/2026;Farmácia São João;-45,90\r\n"
    "25/11/2026;Salário;8.500,00\r\n"
    "25/11/2026;Saldo do dia;9.000,00\r\n"
)


def latin1_csv(text: str = LATIN1_CSV_TEXT) -> bytes:
    return text.encode("latin-1")


def two_page_pdf() -> bytes:
    return make_pdf(["Contrato de aluguel\nPrimeira página", "Cláusula final\nSegunda página"])


def encrypted_pdf() -> bytes:
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    writer.append(PdfReader(io.BytesIO(two_page_pdf())))
    writer.encrypt("segredo")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def xlsx_budget() -> bytes:
    from openpyxl import Workbook

    workbook = Workbook()
    sheet = workbook.active
    sheet.title = "Orçamento"
    sheet.append(["Categoria", "Previsto", "Nota"])
    sheet.append(["Mercado", 1500, "@SUM(1+1)*cmd"])
    sheet.append(["Aluguel", 2300.5, None])
    sheet["B4"] = "=SUM(B2:B3)"
    out = io.BytesIO()
    workbook.save(out)
    return out.getvalue()


def zip_archive() -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("dados.csv", "a;b\n1;2\n")
    return out.getvalue()
