"""``manage.py benchmark --section pipeline``: its figures come from a real run (docs/performance.md)."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from chat.models import Conversation, Message


@pytest.mark.usefixtures("shipped_skills")
def test_the_pipeline_section_measures_ratios_queries_and_sizes_and_leaves_no_rows() -> None:
    out = StringIO()
    call_command("benchmark", "--json", "--section", "pipeline", "--runs", "1", "--posts", "2", stdout=out)
    figures = json.loads(out.getvalue())["pipeline"]

    assert figures["runs"] == 1
    for name in ("short_ratio", "paste_ratio", "web_cpu_ms", "worker_cpu_ms", "bare_cpu_ms"):
        assert figures[name]["min"] <= figures[name]["median"] <= figures[name]["max"]
        assert figures[name]["median"] > 0
    # Flat in the history's length, within the goals.
    assert len(set(figures["queries"]["post"].values())) == 1
    # A reply's history scan stops at HISTORY_SCAN_MESSAGES: a shorter conversation also
    # yields its first message from the scan (one query fewer), longer ones all cost the same.
    reply = figures["queries"]["reply"]
    assert reply["10"] == reply["1000"] - 1 and reply["1000"] == reply["10000"]
    assert max(figures["queries"]["post"].values()) <= 8
    assert max(figures["queries"]["reply"].values()) <= 15  # with the streamed batches and the final event
    # JSON keys are strings: the worker's CPU per reply is measured at each history size.
    assert set(figures["queries"]["reply_cpu_ms"]) == {"10", "1000", "10000"}
    assert all(ms > 0 for ms in figures["queries"]["reply_cpu_ms"].values())
    assert figures["first_page_kb"] < 100 < figures["pasted_kb"]
    assert figures["prompt_bytes_per_reply"]["median"] < 2_000
    assert figures["page_kept_ms"] > 0 and figures["page_rendered_ms"] > 0
    assert not Conversation.objects.exists() and not Message.objects.exists()  # rolled back
