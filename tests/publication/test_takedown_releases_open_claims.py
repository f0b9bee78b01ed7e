"""Recording a takedown releases the open (unanswered) claims on the post in the same transaction:
no one's queue keeps a stale claim on it until it expires - a real post's claim gives its slot back,
and an open gold claim on a taken-down gold item is not served as the annotator's open item - while
everything already given (judgments, answered claims) stays."""
from __future__ import annotations

import pytest

from annotation import visibility
from annotation.assignment import services as queue
from annotation.assignment.selectors import batch_progress
from annotation.models import Assignment, AssignmentStatus, Judgment, Post
from annotation.quality import services as quality
from core.errors import NotFound
from publication.takedowns import takedown_record

from ..quality.test_gold import upload_gold, work_through

pytestmark = pytest.mark.django_db
ONES = {"explicit": 1, "implicit": 1, "emotional": 1}


def test_a_takedown_releases_the_open_claims_on_the_post(make_annotators, make_batch):
    ann1, ann2 = make_annotators(2)
    batch = make_batch(n_posts=2, k=2, annotators=[ann1, ann2])
    p0, p1 = Post.objects.filter(batch=batch).order_by("pk")
    stale = queue.assignment_next(annotator=ann1, batch_id=batch.pk)  # left open
    first = queue.assignment_next(annotator=ann2, batch_id=batch.pk)
    queue.judgment_submit(annotator=ann2, claim_id=first.pk, scores=ONES, seconds_spent=5.0)
    given = queue.assignment_next(annotator=ann2, batch_id=batch.pk)
    queue.judgment_submit(annotator=ann2, claim_id=given.pk, scores=ONES, seconds_spent=5.0)
    assert (stale.post_id, first.post_id, given.post_id) == (p0.pk, p1.pk, p0.pk)
    assert visibility.open_claims(ann1).filter(post=p0).exists()

    takedown_record(post=p0, reason="the author asked")

    assert not visibility.open_claims(ann1).filter(post=p0).exists()
    assert not Assignment.objects.filter(post=p0, status=AssignmentStatus.ASSIGNED).exists()
    assert Post.objects.get(pk=p0.pk).live_claims == 1  # the answered claim's slot only
    # Nothing given is lost: ann2's claim and judgment stay, and count as done.
    assert Assignment.objects.get(pk=given.pk).status == AssignmentStatus.SUBMITTED
    assert Judgment.objects.filter(post=p0, annotator=ann2).exists()
    assert batch_progress(annotator=ann2, batch=batch)["done"] == 2
    # The stale claim cannot be answered any more; ann1's queue goes on with the next post.
    with pytest.raises(NotFound):
        queue.judgment_submit(annotator=ann1, claim_id=stale.pk, scores=ONES, seconds_spent=5.0)
    assert not Judgment.objects.filter(post=p0, annotator=ann1).exists()
    assert queue.assignment_next(annotator=ann1, batch_id=batch.pk).post_id == p1.pk
    assert batch_progress(annotator=ann1, batch=batch)["total"] == 1


def test_an_open_gold_claim_on_a_taken_down_gold_item_is_not_served(make_annotators, make_batch, monkeypatch):
    (alice,) = make_annotators(1)
    batch = make_batch(n_posts=4, k=1, name="mixed", annotators=[alice])
    upload_gold(2)
    quality.batch_quality_set(batch_id=batch.pk, gold_rate=0.5)
    monkeypatch.setattr(quality, "_keyed_draw", lambda message: 0.0)  # the first claim is gold
    served = queue.assignment_next(annotator=alice, batch_id=batch.pk)
    assert served.gold_batch_id == batch.pk  # open, unanswered

    takedown_record(post=served.post, reason="the author asked")

    assert not visibility.open_claims(alice).filter(post_id=served.post_id).exists()
    claims = work_through(alice, batch)
    assert served.post_id not in {c.post_id for c in claims}
    progress = batch_progress(annotator=alice, batch=batch)
    assert progress["done"] == progress["total"] == len(claims) == 5  # four posts and the other gold item
