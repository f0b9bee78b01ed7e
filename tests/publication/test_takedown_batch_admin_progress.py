"""The batch admin's progress column counts a taken-down post as the annotators' progress does
(rule 4, annotation/visibility/withdrawn.py): no pending work, while the judgments already given
for it stay counted as done - so the column reaches 100% when the queues are empty."""
from __future__ import annotations

import pytest
from django.contrib import admin
from django.test import Client, RequestFactory
from django.urls import reverse

from annotation.assignment import services as queue
from annotation.models import Batch, Post
from core.permissions import Role
from publication.takedowns import takedown_record

pytestmark = pytest.mark.django_db
ONES = {"explicit": 1, "implicit": 1, "emotional": 1}


def _progress(batch, user) -> str:
    request = RequestFactory().get("/admin/annotation/batch/")
    request.user = user
    model_admin = admin.site._registry[Batch]
    return model_admin.progress(model_admin.get_queryset(request).get(pk=batch.pk))


def test_the_batch_admin_progress_leaves_out_taken_down_posts(make_annotators, make_batch, make_user):
    (ann,) = make_annotators(1)
    researcher = make_user("res", role=Role.RESEARCHER, is_staff=True, is_superuser=True)
    batch = make_batch(n_posts=4, k=1, annotators=[ann])
    p0, p1, _p2, _p3 = Post.objects.filter(batch=batch).order_by("pk")
    first = queue.assignment_next(annotator=ann, batch_id=batch.pk)
    assert first.post_id == p0.pk
    queue.judgment_submit(annotator=ann, claim_id=first.pk, scores=ONES, seconds_spent=5.0)
    assert _progress(batch, researcher) == "25%"

    for post in (p0, p1):  # judged, untouched
        takedown_record(post=post, reason="the author asked")
    assert _progress(batch, researcher) == "33%"  # p0's judgment done; p1 no work: 1 of 3

    while (item := queue.assignment_next(annotator=ann, batch_id=batch.pk)) is not None:
        queue.judgment_submit(annotator=ann, claim_id=item.pk, scores=ONES, seconds_spent=5.0)
    assert _progress(batch, researcher) == "100%"  # the column ends where the queue does
    client = Client()
    client.force_login(researcher)
    page = client.get(reverse("admin:annotation_batch_changelist"))
    assert page.status_code == 200 and "100%" in page.content.decode()
