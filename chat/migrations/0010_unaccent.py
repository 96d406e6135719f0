"""The unaccent extension, for conversation search (chat/search.py); nothing on SQLite.

Django's ``UnaccentExtension`` reads ``pg_extension`` when migrating back, which fails on
SQLite; and going back leaves the extension, which other schemas may use."""

from django.db import migrations


def create_unaccent(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("CREATE EXTENSION IF NOT EXISTS unaccent")


class Migration(migrations.Migration):
    dependencies = [("chat", "0009_message_error_code")]

    operations = [migrations.RunPython(create_unaccent, migrations.RunPython.noop, elidable=False)]
