"""Issue 27: Batch.post_count, kept by the database (annotation/counters.py: triggers on the posts'
table, installed and the count taken after every migrate by annotation/apps.py)."""

from django.db import migrations, models


def install(apps, schema_editor):
    """PostgreSQL now; SQLite after the migrate (annotation/apps.py): a later migration of this run
    rebuilding the batches' table would fail on SQLite triggers naming it."""
    from annotation.counters import counters_install

    if schema_editor.connection.vendor == "postgresql":
        counters_install(schema_editor.connection)


def uninstall(apps, schema_editor):
    from annotation.counters import counters_uninstall

    counters_uninstall(schema_editor.connection)


class Migration(migrations.Migration):

    dependencies = [
        ('annotation', '0017_postimport'),
    ]

    operations = [
        migrations.AddField(
            model_name='batch',
            name='post_count',
            field=models.PositiveIntegerField(default=0, editable=False, verbose_name='posts'),
        ),
        migrations.RunPython(install, uninstall),
    ]
