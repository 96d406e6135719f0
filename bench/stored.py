"""Bytes stored per reply beyond its text, on the benchmark's PostgreSQL database (issue 17).

Run after ``bench.load`` by ``bench/stack.sh`` with the stack's environment:

    python -m bench.stored --username bench

A reply's row is measured with ``pg_column_size`` less its text, and the system prompts
its replies reference (stored once, by hash) are shared out over those replies.
"""

from __future__ import annotations

import argparse
import os


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--username", required=True)
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "lifeassistant.settings")
    import django

    django.setup()
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT count(*), coalesce(sum(pg_column_size(m.*) - octet_length(m.content)), 0),
                   (SELECT coalesce(sum(octet_length(p.text)), 0) FROM chat_prompt p
                     WHERE p.sha256 IN (SELECT r.prompt_id FROM chat_message r
                                         JOIN chat_conversation rc ON rc.id = r.conversation_id
                                         JOIN auth_user ru ON ru.id = rc.owner_id
                                        WHERE ru.username = %s AND r.role = 'assistant'))
              FROM chat_message m
              JOIN chat_conversation c ON c.id = m.conversation_id
              JOIN auth_user u ON u.id = c.owner_id
             WHERE u.username = %s AND m.role = 'assistant'
            """,
            [args.username, args.username],
        )
        replies, row_bytes, prompt_bytes = cursor.fetchone()
    if not replies:
        print("bytes stored per reply: no replies yet")
        return
    print(f"bytes stored per reply beyond its text ({replies} replies): row {row_bytes / replies:.0f} B "
          f"+ system prompts {prompt_bytes / replies:.1f} B (goal for the prompt part: <= 200 B)")


if __name__ == "__main__":
    main()
