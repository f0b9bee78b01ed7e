"""Issue 13: each post's live-claim count (indexed with its batch, so picking the next post is a range
scan), a flag for expired claims whose slot went back to the pool, and per-annotator progress
counters. Back-filled here from the existing claims; from now on assignment/services.py keeps them."""
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models
from django.db.models import Count, Q


def backfill(apps, schema_editor):
    Assignment, Post = apps.get_model("annotation", "Assignment"), apps.get_model("annotation", "Post")
    BatchProgress = apps.get_model("annotation", "BatchProgress")
    # Existing assigned claims keep their slot (lapsed=False); expired ones are released lazily.
    holds = Q(gold_batch__isnull=True) & (Q(status="submitted") | Q(status="assigned"))
    live = (Assignment.objects.filter(holds).order_by().values("post_id").annotate(n=Count("id"))
            .values_list("post_id", "n"))
    by_count: dict[int, list[int]] = {}
    for post_id, n in live:
        by_count.setdefault(n, []).append(post_id)
    for n, post_ids in by_count.items():
        for start in range(0, len(post_ids), 5000):
            Post.objects.filter(pk__in=post_ids[start:start + 5000]).update(live_claims=n)
    rows = (Assignment.objects.filter(gold_batch__isnull=True, post__batch__isnull=False)
            .filter(Q(status="submitted") | Q(status="skipped")).order_by()
            .values("post__batch", "annotator")
            .annotate(submitted=Count("id", filter=Q(status="submitted")),
                      skipped=Count("id", filter=Q(status="skipped"))))
    BatchProgress.objects.bulk_create([
        BatchProgress(batch_id=r["post__batch"], annotator_id=r["annotator"], submitted=r["submitted"],
                      skipped=r["skipped"]) for r in rows], batch_size=5000)


class Migration(migrations.Migration):

    dependencies = [
        ('annotation', '0008_guideline_v2_chinese_explanations'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='BatchProgress',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('submitted', models.IntegerField(default=0)),
                ('skipped', models.IntegerField(default=0)),
            ],
            options={
                'verbose_name_plural': 'batch progress',
            },
        ),
        migrations.AddField(
            model_name='assignment',
            name='lapsed',
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name='post',
            name='live_claims',
            field=models.PositiveIntegerField(default=0, editable=False),
        ),
        migrations.AddIndex(
            model_name='assignment',
            index=models.Index(condition=models.Q(('lapsed', False), ('status', 'assigned')), fields=['assigned_at'], name='assignment_open_claims'),
        ),
        migrations.AddIndex(
            model_name='post',
            index=models.Index(fields=['batch', 'live_claims', 'id'], name='post_next_claim'),
        ),
        migrations.AddField(
            model_name='batchprogress',
            name='annotator',
            field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to=settings.AUTH_USER_MODEL),
        ),
        migrations.AddField(
            model_name='batchprogress',
            name='batch',
            field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='progress_rows', to='annotation.batch'),
        ),
        migrations.AddConstraint(
            model_name='batchprogress',
            constraint=models.UniqueConstraint(fields=('batch', 'annotator'), name='batchprogress_once'),
        ),
        migrations.RunPython(backfill, migrations.RunPython.noop),
    ]
