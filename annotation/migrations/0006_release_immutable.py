from django.db import migrations

import core.immutable


class Migration(migrations.Migration):
    """Releases are immutable in the database, not only in Model.save(): QuerySet.update(),
    QuerySet.delete() and raw SQL are refused by triggers."""

    dependencies = [("annotation", "0005_agreementreport_job_fields")]

    operations = [
        core.immutable.MakeImmutable("annotation_release", "Releases are immutable; publish a new release instead"),
    ]
