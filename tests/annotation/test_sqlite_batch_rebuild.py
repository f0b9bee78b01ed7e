"""Review of issue 27: on SQLite the post-count triggers (annotation/counters.py) name annotation_batch
in their bodies, so a migration that rebuilds the batches' table (Django's SQLite schema editor remakes
a table for AlterField, RemoveField, most AddFields: create new__, copy, DROP, RENAME) failed with
'error in trigger annotation_post_count_insert: no such table: main.annotation_batch'. `migrate` now
removes them first on SQLite (pre_migrate) and reinstalls them after (post_migrate), as below."""
from __future__ import annotations

import pytest
from django.apps import apps
from django.core.management.sql import emit_post_migrate_signal, emit_pre_migrate_signal
from django.db import connection, models

from annotation.counters import TRIGGERS, triggers_present
from annotation.models import Batch, Post

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_migration_that_rebuilds_the_batches_table_runs_on_sqlite():
    if connection.vendor != "sqlite":
        pytest.skip("SQLite's table rebuild")
    old = Batch._meta.get_field("name")
    new = models.CharField(max_length=old.max_length + 1)
    new.set_attributes_from_name("name")
    new.model = Batch
    batch = Batch.objects.create(name="kept")
    Post.objects.create(text="一", raw_text="一", text_sha256="a" * 64, batch=batch)
    emit_pre_migrate_signal(0, False, connection.alias, apps=apps)  # what `migrate` runs around it
    with connection.schema_editor() as editor:  # what an AlterField on Batch runs
        editor.alter_field(Batch, old, new)
    with connection.schema_editor() as editor:
        editor.alter_field(Batch, new, old)
    emit_post_migrate_signal(0, False, connection.alias, apps=apps)
    assert triggers_present(connection) == set(TRIGGERS)
    Post.objects.create(text="二", raw_text="二", text_sha256="b" * 64, batch=batch)
    assert Batch.objects.get(pk=batch.pk).post_count == 2
