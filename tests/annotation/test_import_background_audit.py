"""Review of issue 31, item 4: the audit log says who imported posts, also when the upload was large
enough to run in the background. The task runs outside the request, so the entry said 'system'
although the PostImport row knows who uploaded the file."""
from __future__ import annotations

import pytest
from auditlog.models import LogEntry
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from annotation.importing.models import PostImport

pytestmark = pytest.mark.django_db


def test_a_background_import_is_recorded_as_the_uploaders(client, make_user, settings,
                                                          django_capture_on_commit_callbacks):
    settings.IMPORT_BACKGROUND_BYTES = 1000
    researcher = make_user("res", role="researcher")
    client.force_login(researcher)
    rows = "".join(f"第{i}条帖子：出柜需要勇气,1,2,3\n" for i in range(80))
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("annotation:upload"), {
            "file": SimpleUploadedFile("big.csv", ("Sentences,Explicit,Implicit,Emotional\n" + rows).encode()),
            "batch": "spring"})
    assert PostImport.objects.get().status == "succeeded"
    (entry,) = LogEntry.objects.filter(additional_data__event="import")
    assert entry.actor == researcher
