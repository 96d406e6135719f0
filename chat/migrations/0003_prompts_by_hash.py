"""System prompts stored once, keyed by SHA-256, instead of on every reply; and no
index that only repeats the first column of a composite index (docs/performance.md)."""

import hashlib

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


BATCH = 2000


def prompts_to_table(apps, schema_editor):
    """Each distinct ``Message.system_prompt`` becomes one Prompt row the replies reference."""
    Message = apps.get_model("chat", "Message")
    Prompt = apps.get_model("chat", "Prompt")
    replies = Message.objects.exclude(system_prompt="").order_by("pk").values_list("pk", "system_prompt")
    last = 0
    while True:
        batch = list(replies.filter(pk__gt=last)[:BATCH])
        if not batch:
            return
        by_digest: dict[str, list[int]] = {}
        texts: dict[str, str] = {}
        for pk, text in batch:
            digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
            by_digest.setdefault(digest, []).append(pk)
            texts[digest] = text
        Prompt.objects.bulk_create(
            [Prompt(sha256=digest, text=text) for digest, text in texts.items()], ignore_conflicts=True
        )
        for digest, pks in by_digest.items():
            Message.objects.filter(pk__in=pks).update(prompt_id=digest)
        last = batch[-1][0]


def prompts_to_column(apps, schema_editor):
    Message = apps.get_model("chat", "Message")
    Prompt = apps.get_model("chat", "Prompt")
    for prompt in Prompt.objects.iterator():
        Message.objects.filter(prompt_id=prompt.sha256).update(system_prompt=prompt.text)


class Migration(migrations.Migration):

    dependencies = [
        ('chat', '0002_pending_action'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='Prompt',
            fields=[
                ('sha256', models.CharField(max_length=64, primary_key=True, serialize=False)),
                ('text', models.TextField()),
            ],
        ),
        migrations.AddField(
            model_name='message',
            name='prompt',
            field=models.ForeignKey(blank=True, help_text='The system prompt the reply was given (stored once per distinct text).', null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='chat.prompt'),
        ),
        migrations.RunPython(prompts_to_table, prompts_to_column, elidable=True),
        migrations.RemoveField(
            model_name='message',
            name='system_prompt',
        ),
        migrations.AlterField(
            model_name='conversation',
            name='owner',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='conversations', to=settings.AUTH_USER_MODEL),
        ),
        migrations.AlterField(
            model_name='idempotencyrecord',
            name='owner',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='+', to=settings.AUTH_USER_MODEL),
        ),
        migrations.AlterField(
            model_name='message',
            name='conversation',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='messages', to='chat.conversation'),
        ),
        migrations.AlterField(
            model_name='pendingaction',
            name='conversation',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='pending_actions', to='chat.conversation'),
        ),
        migrations.AlterField(
            model_name='pendingaction',
            name='message',
            field=models.ForeignKey(db_index=False, help_text='The reply that proposed it.', on_delete=django.db.models.deletion.CASCADE, related_name='pending_actions', to='chat.message'),
        ),
        migrations.AlterField(
            model_name='toolcall',
            name='message',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='tool_calls', to='chat.message'),
        ),
    ]
