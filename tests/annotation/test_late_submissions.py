"""Never more than k judgments per post: a submission on a skipped or expired claim is accepted only
while the post still has room; otherwise it is refused (409 in the API) and nothing is written."""
from __future__ import annotations

import threading
from collections import Counter
from datetime import timedelta

import pytest
from django.db import connections
from django.urls import reverse
from django.utils import timezone

from annotation.assignment import services
from annotation.models import Assignment, AssignmentStatus, Judgment

SCORES = {"explicit": 2, "implicit": 3, "emotional": 4}


def expire(assignment_or_post_id, annotator=None, minutes: int = 31) -> None:
    """Age a claim past the batch's 30-minute timeout (a tab left open)."""
    qs = Assignment.objects.filter(pk=assignment_or_post_id.pk) if annotator is None else \
        Assignment.objects.filter(post_id=assignment_or_post_id, annotator=annotator)
    qs.update(assigned_at=timezone.now() - timedelta(minutes=minutes))


@pytest.mark.django_db
def test_late_submission_on_an_expired_claim_whose_slot_was_taken_is_refused(make_annotators, make_batch):
    a, b = make_annotators(2)
    batch = make_batch(n_posts=1, k=1, annotators=[a, b])
    claim = services.assignment_next(annotator=a, batch_id=batch.id)
    expire(claim)
    taken_over = services.assignment_next(annotator=b, batch_id=batch.id)
    services.judgment_submit(annotator=b, post_id=taken_over.post_id, scores=SCORES)
    with pytest.raises(services.Conflict, match="went to another annotator"):
        services.judgment_submit(annotator=a, post_id=claim.post_id, scores=SCORES)
    assert Judgment.objects.filter(post_id=claim.post_id).count() == 1
    assert Assignment.objects.get(pk=claim.pk).status == AssignmentStatus.ASSIGNED


@pytest.mark.django_db
def test_late_submission_refused_while_the_newcomer_still_holds_the_slot(make_annotators, make_batch):
    a, b = make_annotators(2)
    batch = make_batch(n_posts=1, k=1, annotators=[a, b])
    claim = services.assignment_next(annotator=a, batch_id=batch.id)
    expire(claim)
    services.assignment_next(annotator=b, batch_id=batch.id)  # b holds the only slot now, not yet submitted
    with pytest.raises(services.Conflict):
        services.judgment_submit(annotator=a, post_id=claim.post_id, scores=SCORES)
    assert not Judgment.objects.exists()


@pytest.mark.django_db
def test_late_submission_on_an_expired_claim_is_accepted_while_there_is_room(make_annotators, make_batch):
    a, b = make_annotators(2)
    batch = make_batch(n_posts=1, k=2, annotators=[a, b])
    claim = services.assignment_next(annotator=a, batch_id=batch.id)
    expire(claim)
    other = services.assignment_next(annotator=b, batch_id=batch.id)
    services.judgment_submit(annotator=b, post_id=other.post_id, scores=SCORES)
    judgment = services.judgment_submit(annotator=a, post_id=claim.post_id, scores=SCORES)
    assert judgment.annotator == a
    assert Assignment.objects.get(pk=claim.pk).status == AssignmentStatus.SUBMITTED
    assert Judgment.objects.filter(post_id=claim.post_id).count() == 2


@pytest.mark.django_db
def test_submission_after_skipping_is_refused_once_others_filled_the_post(make_annotators, make_batch):
    a, b = make_annotators(2)
    batch = make_batch(n_posts=1, k=1, annotators=[a, b])
    claim = services.assignment_next(annotator=a, batch_id=batch.id)
    services.assignment_skip(annotator=a, post_id=claim.post_id)
    given = services.assignment_next(annotator=b, batch_id=batch.id)
    services.judgment_submit(annotator=b, post_id=given.post_id, scores=SCORES)
    with pytest.raises(services.Conflict, match="went to another annotator"):
        services.judgment_submit(annotator=a, post_id=claim.post_id, scores=SCORES)
    assert Counter(Judgment.objects.values_list("post_id", flat=True)) == {claim.post_id: 1}
    assert Assignment.objects.get(pk=claim.pk).status == AssignmentStatus.SKIPPED


@pytest.mark.django_db
def test_submission_after_skipping_is_accepted_while_there_is_room(make_annotators, make_batch):
    (a,) = make_annotators(1)
    batch = make_batch(n_posts=1, k=1, annotators=[a])
    claim = services.assignment_next(annotator=a, batch_id=batch.id)
    services.assignment_skip(annotator=a, post_id=claim.post_id)
    services.judgment_submit(annotator=a, post_id=claim.post_id, scores=SCORES)  # changed their mind in time
    assert Assignment.objects.get(pk=claim.pk).status == AssignmentStatus.SUBMITTED
    assert Judgment.objects.filter(post_id=claim.post_id, annotator=a).count() == 1


@pytest.mark.django_db
def test_the_api_answers_409_and_gives_back_what_was_entered(make_annotators, make_batch, api_for):
    a, b = make_annotators(2)
    batch = make_batch(n_posts=1, k=1, annotators=[a, b])
    client = api_for(a)
    item = client.post(reverse("api:api-queue-next", args=[batch.id])).json()
    post_id = Assignment.objects.get(pk=item["item"]).post_id
    expire(post_id, annotator=a)
    other = api_for(b)
    others = other.post(reverse("api:api-queue-next", args=[batch.id])).json()["item"]
    assert Assignment.objects.get(pk=others).post_id == post_id
    assert other.post(reverse("api:api-judgments"), {"item": others, **SCORES}, format="json").status_code == 201
    entered = {"item": item["item"], "explicit": 5, "implicit": 1, "emotional": 2, "note": "我的笔记", "flagged": True}
    response = client.post(reverse("api:api-judgments"), entered, format="json")
    assert response.status_code == 409, response.content
    body = response.json()
    assert "went to another annotator" in body["detail"]
    assert body["entered"] == {"explicit": 5, "implicit": 1, "emotional": 2, "note": "我的笔记", "flagged": True}
    assert str(SCORES["explicit"]) not in body["detail"]  # nothing of the other annotator's judgment
    assert Judgment.objects.filter(post_id=post_id).count() == 1


@pytest.mark.django_db(transaction=True)
@pytest.mark.postgres
def test_late_submissions_racing_for_the_last_slot_never_exceed_k(require_postgres, make_annotators, make_batch):
    """Five tabs left open past the timeout submit at the same moment for a post with one free slot:
    exactly one is accepted."""
    annotators = make_annotators(6)
    batch = make_batch(n_posts=1, k=2, annotators=annotators)
    post = batch.posts.get()
    first = annotators[0]
    late = annotators[1:]
    # Every late annotator once claimed the post, and every one of those claims has expired.
    Assignment.objects.bulk_create([Assignment(post=post, annotator=x, assigned_at=timezone.now() - timedelta(minutes=45))
                                    for x in late])
    services.assignment_next(annotator=first, batch_id=batch.id)
    services.judgment_submit(annotator=first, post_id=post.pk, scores=SCORES)

    barrier = threading.Barrier(len(late))
    outcomes: list[str] = []
    lock = threading.Lock()

    def submit(annotator):
        try:
            barrier.wait()
            try:
                services.judgment_submit(annotator=annotator, post_id=post.pk, scores=SCORES)
                result = "accepted"
            except services.Conflict:
                result = "refused"
            with lock:
                outcomes.append(result)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=submit, args=(x,)) for x in late]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert Counter(outcomes) == {"accepted": 1, "refused": 4}
    assert Judgment.objects.filter(post=post).count() == 2
    assert Assignment.objects.filter(post=post, status=AssignmentStatus.SUBMITTED).count() == 2
