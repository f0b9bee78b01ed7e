"""The heartbeat every background job row carries (core.jobs.Job.heartbeat_at)."""
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("calibration", "0004_translated_verbose_names"),
    ]

    operations = [
        migrations.AddField(
            model_name="rebuildrequest",
            name="heartbeat_at",
            field=models.DateTimeField(blank=True, null=True, verbose_name="heartbeat at"),
        ),
    ]
