"""A taken-down post leaves the open annotation queues (issue 21 review): it is never served again -
not as a new claim, not as the annotator's open claim on it - it is not offered to adjudicators, and
it is no pending work in the progress figures; judgments already given stay (nothing lost) and count
as done. One rule of the visibility policy (annotation/visibility/withdrawn.py)."""
from __future__ import annotations

import pytest

from annotation.adjudication.selectors import adjudication_queue, disagreement_post_ids
from annotation.assignment import services as assignment_services
from annotation.assignment.selectors import batch_progress
from annotation.models import Judgment, Post
from publication.takedowns import takedown_record

pytestmark = pytest.mark.django_db
ONES = {"explicit": 1, "implicit": 1, "emotional": 1}
FIVES = {"explicit": 5, "implicit": 5, "emotional": 5}


def test_a_taken_down_post_leaves_the_annotators_queue_and_progress(make_annotators, make_batch, api_for):
    (ann1,) = make_annotators(1)
    batch = make_batch(n_posts=4, k=1, annotators=[ann1])
    p0, p1, p2, p3 = Post.objects.filter(batch=batch).order_by("pk")
    first = assignment_services.assignment_next(annotator=ann1, batch_id=batch.pk)
    assert first.post_id == p0.pk
    assignment_services.judgment_submit(annotator=ann1, claim_id=first.pk, scores=ONES, seconds_spent=5.0)
    second = assignment_services.assignment_next(annotator=ann1, batch_id=batch.pk)
    assert second.post_id == p1.pk  # left open
    assert batch_progress(annotator=ann1, batch=batch)["total"] == 4

    for post in (p0, p1, p2):  # judged, open claim, untouched
        takedown_record(post=post, reason="the author asked")

    progress = batch_progress(annotator=ann1, batch=batch)
    assert (progress["done"], progress["total"]) == (1, 2)  # p0's judgment counts; p1 and p2 are no work
    answer = api_for(ann1).post(f"/api/queue/{batch.pk}/next/")
    assert answer.status_code == 200, answer.content[:300]
    assert answer.json()["text"] == p3.text
    served = assignment_services.assignment_next(annotator=ann1, batch_id=batch.pk)
    assert served.post_id == p3.pk
    assignment_services.judgment_submit(annotator=ann1, claim_id=served.pk, scores=ONES, seconds_spent=5.0)
    assert assignment_services.assignment_next(annotator=ann1, batch_id=batch.pk) is None
    progress = batch_progress(annotator=ann1, batch=batch)
    assert (progress["done"], progress["total"]) == (2, 2)  # the bar ends where the queue does
    assert Judgment.objects.filter(annotator=ann1, post=p0).exists()  # nothing lost


def test_a_taken_down_post_is_not_offered_to_adjudicators(make_annotators, make_batch, make_user):
    ann1, ann2 = make_annotators(2)
    batch = make_batch(n_posts=2, k=2, annotators=[ann1, ann2])
    for who, scores in ((ann1, ONES), (ann2, FIVES)):
        for _ in range(2):
            claim = assignment_services.assignment_next(annotator=who, batch_id=batch.pk)
            assignment_services.judgment_submit(annotator=who, claim_id=claim.pk, scores=scores, seconds_spent=5.0)
    adjudicator = make_user("adj", "adjudicator")
    posts = list(Post.objects.filter(batch=batch).order_by("pk"))
    assert [p.pk for p in adjudication_queue(viewer=adjudicator)] == [p.pk for p in posts]

    takedown_record(post=posts[0], reason="the author asked")

    assert [p.pk for p in adjudication_queue(viewer=adjudicator)] == [posts[1].pk]
    assert list(disagreement_post_ids(viewer=adjudicator)) == [posts[1].pk]
    assert list(disagreement_post_ids()) == [posts[1].pk]
    assert Judgment.objects.filter(post=posts[0]).count() == 2  # kept
