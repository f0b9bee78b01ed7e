"""A web import that takes longer than a few seconds runs in the background with a progress bar
(issue 29): the upload becomes a PostImport row and a task; its page and status answer show the
progress and then what the import reported; a file with problems imports nothing and lists them;
the uploaded bytes are dropped when the import ends."""
from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from annotation.importing.models import PostImport
from annotation.models import Post

pytestmark = pytest.mark.django_db


def _csv(n: int, bad_line: int | None = None) -> bytes:
    rows = ["Sentences,Explicit,Implicit,Emotional"] + [f"第{i}条帖子：出柜需要勇气，电话1380013{i:04d},1,2,3" for i in range(n)]
    if bad_line is not None:
        rows[bad_line - 1] = rows[bad_line - 1].replace(",1,2,3", ",9,2,3")  # a score out of range
    return ("\n".join(rows) + "\n").encode()


@pytest.fixture
def researcher_client(client, make_user):
    client.force_login(make_user("res", role="researcher"))
    return client


def test_a_large_upload_runs_in_the_background_with_progress(researcher_client, settings,
                                                             django_capture_on_commit_callbacks, monkeypatch):
    from annotation.importing import services

    settings.IMPORT_BACKGROUND_BYTES = 1000
    monkeypatch.setattr(services, "MASK_CHUNK", 40)
    seen = []
    from core import jobs

    real_progress = jobs.job_progress

    def spy(model, job_id, **kw):
        seen.append((kw.get("stage"), kw.get("current"), kw.get("total")))
        return real_progress(model, job_id, **kw)

    monkeypatch.setattr("annotation.importing.background.job_progress", spy)
    with django_capture_on_commit_callbacks(execute=True):
        response = researcher_client.post(reverse("annotation:upload"), {
            "file": SimpleUploadedFile("big.csv", _csv(150)), "batch": "spring"})
    job = PostImport.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse("annotation:upload-job", args=[job.pk])
    assert [s for s in seen if s[0] == "masking personal data"] == [
        ("masking personal data", n, 150) for n in (40, 80, 120)]
    assert seen[-1] == ("writing the posts", 150, 150)
    job.refresh_from_db()
    assert job.status == "succeeded" and bytes(job.data) == b"" and job.result["created"] == 150
    assert Post.objects.filter(batch__name="spring").count() == 150
    assert not Post.objects.filter(text__contains="13800130001").exists()
    status = researcher_client.get(reverse("annotation:upload-job-status", args=[job.pk])).json()
    assert status["finished"] is True and status["percent"] == 100 and status["progress_total"] == 150
    page = researcher_client.get(reverse("annotation:upload-job", args=[job.pk])).content.decode()
    assert 'id="imported"' in page and "Imported 150 posts" in page and 'id="progress"' in page


def test_a_background_import_with_problems_writes_nothing_and_lists_them(researcher_client, settings,
                                                                        django_capture_on_commit_callbacks):
    settings.IMPORT_BACKGROUND_BYTES = 1000
    with django_capture_on_commit_callbacks(execute=True):
        researcher_client.post(reverse("annotation:upload"), {"file": SimpleUploadedFile("bad.csv", _csv(60, bad_line=7))})
    job = PostImport.objects.get()
    assert job.status == "failed" and bytes(job.data) == b"" and Post.objects.count() == 0
    assert job.result["problem_count"] == 1 and job.result["problems"][0].startswith("line 7")
    page = researcher_client.get(reverse("annotation:upload-job", args=[job.pk])).content.decode()
    assert 'id="problems"' in page and "line 7" in page


def test_a_small_upload_is_still_imported_at_once(researcher_client, settings):
    settings.IMPORT_BACKGROUND_BYTES = 10 ** 9
    response = researcher_client.post(reverse("annotation:upload"), {"file": SimpleUploadedFile("s.csv", _csv(5))})
    assert response.status_code == 302 and response["Location"] == reverse("annotation:upload")
    assert Post.objects.count() == 5 and not PostImport.objects.exists()


def test_only_researchers_see_an_import(client, make_user, researcher_client, settings, django_capture_on_commit_callbacks):
    settings.IMPORT_BACKGROUND_BYTES = 1000
    with django_capture_on_commit_callbacks(execute=True):
        researcher_client.post(reverse("annotation:upload"), {"file": SimpleUploadedFile("big.csv", _csv(60))})
    job = PostImport.objects.get()
    client.force_login(make_user("ann", role="annotator"))
    assert client.get(reverse("annotation:upload-job", args=[job.pk])).status_code == 403
    assert client.get(reverse("annotation:upload-job-status", args=[job.pk])).status_code == 403
