"""The file-parsing benchmark runs and prints its two figures (its timings are not asserted)."""

from __future__ import annotations

import subprocess
import sys


def test_the_file_benchmark_prints_csv_and_pdf_parse_times():
    printed = subprocess.run(
        [sys.executable, "-m", "bench.files", "--lines", "50", "--pages", "2", "--repeat", "1"],
        capture_output=True, text=True, timeout=120, check=True,
    ).stdout  # fmt: skip

    csv_line, pdf_line = printed.strip().splitlines()
    assert csv_line.startswith("CSV  50 lines") and "50 transactions" in csv_line
    assert pdf_line.startswith("PDF  2 pages") and " ms " in pdf_line
