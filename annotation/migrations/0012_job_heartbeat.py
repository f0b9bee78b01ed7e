"""The heartbeat every background job row carries (core.jobs.Job.heartbeat_at)."""
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("annotation", "0011_release_split_scheme"),
    ]

    operations = [
        migrations.AddField(
            model_name="agreementreport",
            name="heartbeat_at",
            field=models.DateTimeField(blank=True, null=True, verbose_name="heartbeat at"),
        ),
        migrations.AddField(
            model_name="aggregationrun",
            name="heartbeat_at",
            field=models.DateTimeField(blank=True, null=True, verbose_name="heartbeat at"),
        ),
    ]
