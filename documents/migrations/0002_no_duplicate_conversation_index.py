"""No index that only repeats the first column of chatdoc_conv_created (docs/performance.md)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('documents', '0001_initial'),
    ]

    operations = [
        migrations.AlterField(
            model_name='chatdocument',
            name='conversation',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='documents', to='chat.conversation'),
        ),
    ]
