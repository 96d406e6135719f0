"""Bytes stored per reply beyond its text, on the benchmark's PostgreSQL database (docs/performance.md).

Run after ``bench.load`` by ``bench/stack.sh`` with the stack's environment:

    python -m bench.stored --username bench [--since 2026-11-26T20:00:00+00:00]

A reply's row is measured with ``pg_column_size`` less its text, and the system prompts
its replies reference (stored once, by hash) are shared out over those replies. The
database keeps its rows from run to run, so with ``--since`` the figure is also given for
this run alone: its replies, and the prompts no earlier reply had used (what it added).
"""

from __future__ import annotations

import argparse
import os
from datetime import datetime

# The bench user's replies created from %(since)s on (all of them with the epoch).
_FIGURES = """
WITH run AS (
    SELECT m.* FROM chat_message m
      JOIN chat_conversation c ON c.id = m.conversation_id
      JOIN auth_user u ON u.id = c.owner_id
     WHERE u.username = %(username)s AND m.role = 'assistant' AND m.created_at >= %(since)s
)
SELECT (SELECT count(*) FROM run),
       (SELECT coalesce(sum(pg_column_size(run.*) - octet_length(run.content)), 0) FROM run),
       (SELECT coalesce(sum(octet_length(p.text)), 0) FROM chat_prompt p
         WHERE p.sha256 IN (SELECT prompt_id FROM run)
           AND NOT EXISTS (SELECT 1 FROM chat_message o WHERE o.prompt_id = p.sha256 AND o.created_at < %(since)s))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--username", required=True)
    parser.add_argument("--since", type=datetime.fromisoformat, help="Also report the replies created from then on.")
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "lifeassistant.settings")
    import django

    django.setup()
    from django.db import connection

    scopes = [("in the database", datetime.fromisoformat("1970-01-01T00:00:00+00:00"))]
    if args.since is not None:
        scopes.append(("in this run", args.since))
    for scope, since in scopes:
        with connection.cursor() as cursor:
            cursor.execute(_FIGURES, {"username": args.username, "since": since})
            replies, row_bytes, prompt_bytes = cursor.fetchone()
        if not replies:
            print(f"bytes stored per reply beyond its text, {scope}: no replies")
            continue
        print(f"bytes stored per reply beyond its text, {scope} ({replies} replies): row {row_bytes / replies:.0f} B "
              f"+ system prompts {prompt_bytes / replies:.1f} B (goal for the prompt part: <= 200 B)")


if __name__ == "__main__":
    main()
