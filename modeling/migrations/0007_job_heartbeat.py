"""The heartbeat every background job row carries (core.jobs.Job.heartbeat_at)."""
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("modeling", "0006_translated_verbose_names"),
    ]

    operations = [
        migrations.AddField(
            model_name="trainingrun",
            name="heartbeat_at",
            field=models.DateTimeField(blank=True, null=True, verbose_name="heartbeat at"),
        ),
        migrations.AddField(
            model_name="scoringjob",
            name="heartbeat_at",
            field=models.DateTimeField(blank=True, null=True, verbose_name="heartbeat at"),
        ),
    ]
