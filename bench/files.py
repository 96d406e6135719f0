"""Parse time of files people send: a 5,000-line bank statement CSV and a 50-page PDF.

    python -m bench.files [--lines 5000] [--pages 50] [--repeat 5]

Prints the median time ``documents.files.read_file`` takes (kind sniffing, decoding,
text and transactions), as the upload endpoint runs it. The files are made here, as the
tests make theirs (``make_statement_csv``, ``make_pdf``): no real bank data.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
import zlib
from collections.abc import Sequence
from datetime import date, timedelta

_DESCRIPTIONS = ("SUPERMERCADO PÃO DE AÇÚCAR", "UBER *TRIP", "FARMÁCIA SÃO JOÃO", "PIX RECEBIDO", "IFOOD *RESTAURANTE")


def make_statement_csv(lines: int, *, encoding: str = "latin-1") -> bytes:
    """A Brazilian bank's CSV: ``;``-separated, Latin-1, ``27/11/2026``, ``-1.234,56``."""
    rows = ["Data;Descrição;Valor;Saldo"]
    start = date(2026, 1, 1)
    for number in range(lines):
        day = start + timedelta(days=number % 300)
        cents = (number * 7919) % 250_000 + 100
        sign = "" if number % 5 == 3 else "-"
        amount = f"{cents // 100:,}".replace(",", ".") + f",{cents % 100:02d}"
        rows.append(f"{day:%d/%m/%Y};{_DESCRIPTIONS[number % len(_DESCRIPTIONS)]} {number};{sign}{amount};0,00")
    return ("\r\n".join(rows) + "\r\n").encode(encoding)


def make_pdf(pages: Sequence[str]) -> bytes:
    """A PDF with one line of text per page (Helvetica), written by hand: no PDF library needed."""
    objects: list[bytes] = [b"<< /Type /Catalog /Pages 2 0 R >>", b""]
    kids = []
    for text in pages:
        escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        lines = [f"BT /F1 12 Tf 72 {720 - 14 * row} Td ({line}) Tj ET" for row, line in enumerate(escaped.split("\n"))]
        stream = zlib.compress("\n".join(lines).encode("latin-1"))
        objects.append(b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream) + stream + b"\nendstream")
        content_number = len(objects)
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R "
            b"/Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >> >> >> >>"
            % content_number
        )
        kids.append(len(objects))
    objects[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(b"%d 0 R" % kid for kid in kids), len(kids))
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def _median_ms(run: object, repeat: int) -> float:
    timings = []
    for _ in range(repeat):
        started = time.perf_counter()
        run()  # type: ignore[operator]
        timings.append((time.perf_counter() - started) * 1000)
    return statistics.median(timings)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--lines", type=int, default=5000)
    parser.add_argument("--pages", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "lifeassistant.settings")
    import django

    django.setup()
    from documents.files import read_file
    from documents.services import upload_limits

    limits = upload_limits()
    statement = make_statement_csv(args.lines)
    paragraph = "Contrato de prestação de serviços, cláusula {n}: o contratante pagará R$ 1.234,56 até 27/11/2026."
    pdf = make_pdf(["\n".join(paragraph.format(n=page * 40 + line) for line in range(40)) for page in range(args.pages)])
    read = read_file("extrato.csv", statement, limits)
    print(f"CSV  {args.lines} lines, {len(statement) / 1024:.0f} KiB, {len(read.transactions)} transactions: "
          f"{_median_ms(lambda: read_file('extrato.csv', statement, limits), args.repeat):.1f} ms (median of {args.repeat})")  # fmt: skip
    read = read_file("contrato.pdf", pdf, limits)
    print(f"PDF  {args.pages} pages, {len(pdf) / 1024:.0f} KiB, {len(read.text):,} characters of text: "
          f"{_median_ms(lambda: read_file('contrato.pdf', pdf, limits), args.repeat):.1f} ms (median of {args.repeat})")  # fmt: skip


if __name__ == "__main__":
    main()
