"""Issue 22 review: what "too distressing to score" promises, checked from the paths that could break
it. A post set aside is final for that person: a late skip (a stale tab, a second key press) does not
turn it into a skip, nor a late submission into a judgment; and it leaves the progress total like a
skip does, so the bar reaches its end when the queue does."""
from __future__ import annotations

import pytest

from annotation.assignment import selectors as assignment_selectors
from annotation.assignment import services as assignment_services
from annotation.models import Assignment, AssignmentStatus, BatchProgress, Judgment
from core.errors import DomainError
from wellbeing import services

pytestmark = pytest.mark.django_db
SCORES = {"explicit": 2, "implicit": 3, "emotional": 2}


def _set_aside_one(make_annotators, make_batch, *, n_posts: int = 3, k: int = 1):
    first, second = make_annotators(2)
    batch = make_batch(n_posts=n_posts, k=k, annotators=[first, second])
    claim = assignment_services.assignment_next(annotator=first, batch_id=batch.pk)
    services.claim_set_aside(annotator=first, claim_id=claim.pk)
    return first, second, batch, claim


def test_a_late_skip_leaves_a_set_aside_post_set_aside_and_counts_no_skip(make_annotators, make_batch):
    first, _second, batch, claim = _set_aside_one(make_annotators, make_batch)
    assignment_services.assignment_skip(annotator=first, claim_id=claim.pk)  # e.g. S pressed in a stale tab
    assert Assignment.objects.get(pk=claim.pk).status == AssignmentStatus.SET_ASIDE
    assert not BatchProgress.objects.filter(annotator=first, skipped__gt=0).exists()
    assert assignment_selectors.batch_progress(annotator=first, batch=batch)["skipped"] == 0


def test_a_late_submission_on_a_set_aside_post_is_refused(make_annotators, make_batch):
    first, _second, _batch, claim = _set_aside_one(make_annotators, make_batch)
    with pytest.raises(DomainError, match="set this post aside"):
        assignment_services.judgment_submit(annotator=first, claim_id=claim.pk, scores=SCORES)
    assert Assignment.objects.get(pk=claim.pk).status == AssignmentStatus.SET_ASIDE
    assert not Judgment.objects.filter(annotator=first).exists()


def test_the_progress_bar_ends_with_the_queue_after_a_set_aside(make_annotators, make_batch):
    first, _second, batch, _claim = _set_aside_one(make_annotators, make_batch, n_posts=3, k=1)
    while (claim := assignment_services.assignment_next(annotator=first, batch_id=batch.pk)) is not None:
        assignment_services.judgment_submit(annotator=first, claim_id=claim.pk, scores=SCORES)
    progress = assignment_selectors.batch_progress(annotator=first, batch=batch)
    # Two posts judged, one set aside, nothing left: 2 of 2, not 2 of 3 forever; and no skip shown.
    assert (progress["done"], progress["total"], progress["skipped"]) == (2, 2, 0)
