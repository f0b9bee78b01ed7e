"""The demo records an import (issue 31 items 4-5): the audit page of the demo shows one, made by the
researcher through the upload page's service, once however often seed_demo runs."""
from __future__ import annotations

import pytest
from auditlog.models import LogEntry

from annotation import demo
from annotation.models import Batch, Post

pytestmark = pytest.mark.django_db(transaction=True)


def test_seed_demo_records_one_import_by_the_researcher(settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    demo.seed_demo()
    demo.seed_demo()
    imports = [e for e in LogEntry.objects.all() if (e.additional_data or {}).get("event") == "import"]
    assert len(imports) == 1
    (entry,) = imports
    assert entry.actor.username == "researcher"
    assert entry.additional_data["params"] == {"n": "4", "file": demo.IMPORT_FILE}
    assert entry.changes["batch"][1] == demo.IMPORT_BATCH and entry.changes["posts"][1] in (4, "4")
    batch = Batch.objects.get(name=demo.IMPORT_BATCH)
    assert not batch.is_locked and not batch.annotators.exists()  # imported, not yet given to anyone
    assert sorted(Post.objects.filter(batch=batch).values_list("text", flat=True)) == sorted(demo.IMPORT_POSTS)
