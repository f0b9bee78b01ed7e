"""Issue 27: the scoring step's rules made cheap. Post.withdrawn (rule 4 read from the post's own row,
set in the takedown's transaction; backfilled here from the takedowns already recorded), the pick's
index limited to posts that can be served, the withdrawn posts of a batch indexed apart, and the
open-claims index limited to real claims (every reader asks for those)."""

from django.conf import settings
from django.db import migrations, models


def withdrawn_backfill(apps, schema_editor):
    """Posts already taken down get the flag (the takedowns' table exists once publication is migrated)."""
    connection = schema_editor.connection
    if "publication_takedown" not in connection.introspection.table_names():
        return
    with connection.cursor() as cursor:
        cursor.execute("UPDATE annotation_post SET withdrawn = %s WHERE id IN "
                       "(SELECT post_id FROM publication_takedown WHERE post_id IS NOT NULL)", [True])


class Migration(migrations.Migration):

    dependencies = [
        ('annotation', '0015_golditem_qualification_used'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveIndex(
            model_name='assignment',
            name='assignment_open_claims',
        ),
        migrations.RemoveIndex(
            model_name='post',
            name='post_next_claim',
        ),
        migrations.AddField(
            model_name='post',
            name='withdrawn',
            field=models.BooleanField(default=False, editable=False, verbose_name='withdrawn'),
        ),
        migrations.AddIndex(
            model_name='assignment',
            index=models.Index(condition=models.Q(('gold_batch__isnull', True), ('lapsed', False), ('status', 'assigned')), fields=['assigned_at'], name='assignment_open_claims'),
        ),
        migrations.AddIndex(
            model_name='post',
            index=models.Index(condition=models.Q(('withdrawn', False)), fields=['batch', 'live_claims', 'id'], name='post_next_claim'),
        ),
        migrations.AddIndex(
            model_name='post',
            index=models.Index(condition=models.Q(('withdrawn', True)), fields=['batch'], name='post_withdrawn'),
        ),
        migrations.RunPython(withdrawn_backfill, migrations.RunPython.noop),
    ]
