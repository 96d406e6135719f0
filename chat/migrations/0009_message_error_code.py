from django.db import migrations, models

# How the texts stored before codes existed read (English or pt-BR), newest wording first.
_EARLIER_TEXTS = [
    ("timeout", ("took too long", "demorou demais")),
    ("model_unavailable", ("is unavailable",)),
    ("model_interrupted", ("stopped in the middle",)),
    ("model_refused", ("refused the request",)),
    ("not_queued", ("could not be reached", "falar com o assistente")),
]


def code_earlier_failures(apps, schema_editor):
    Message = apps.get_model("chat", "Message")
    failed = Message.objects.filter(status="failed", error_code="")
    for code, phrases in _EARLIER_TEXTS:
        for phrase in phrases:
            failed.filter(error__icontains=phrase).update(error_code=code)
    failed.update(error_code="internal")


class Migration(migrations.Migration):

    dependencies = [
        ('chat', '0008_conversation_title_source'),
    ]

    operations = [
        migrations.AddField(
            model_name='message',
            name='error_code',
            field=models.CharField(blank=True, choices=[('timeout', 'The assistant did not answer in time. Please retry.'), ('model_unavailable', 'The assistant is unavailable right now. Please retry in a moment.'), ('model_interrupted', 'The assistant stopped in the middle of its answer. Please retry.'), ('model_refused', 'The assistant could not answer this request. Please retry.'), ('not_queued', 'The assistant could not be reached. Please retry.'), ('internal', 'An internal error stopped the assistant. Please retry.')], max_length=32),
        ),
        migrations.RunPython(code_earlier_failures, migrations.RunPython.noop),
    ]
