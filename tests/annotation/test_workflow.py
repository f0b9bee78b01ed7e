"""Assignment, judgments, revisions, skipping and locking through the services."""
from __future__ import annotations

from collections import Counter
from datetime import timedelta

import pytest
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone

from annotation.assignment import services
from annotation.models import Assignment, AssignmentStatus, Judgment, JudgmentRevision
from core.errors import DomainError, NotFound

pytestmark = pytest.mark.django_db
SCORES = {"explicit": 2, "implicit": 3, "emotional": 4}


def drain(annotator, batch):
    """Let an annotator judge everything the queue hands out; return the post ids."""
    seen = []
    while (item := services.assignment_next(annotator=annotator, batch_id=batch.id)) is not None:
        services.judgment_submit(annotator=annotator, post_id=item.post_id, scores=SCORES)
        seen.append(item.post_id)
    return seen


def test_each_post_goes_to_k_annotators_and_nobody_twice(make_annotators, make_batch):
    annotators = make_annotators(8)
    batch = make_batch(n_posts=12, k=6, annotators=annotators)
    per_annotator = {a.username: drain(a, batch) for a in annotators}
    for posts in per_annotator.values():
        assert len(posts) == len(set(posts))
    coverage = Counter(Judgment.objects.values_list("post_id", flat=True))
    assert set(coverage.values()) == {6} and len(coverage) == 12


def test_coverage_is_spread_evenly_while_in_progress(make_annotators, make_batch):
    annotators = make_annotators(6)
    batch = make_batch(n_posts=6, k=6, annotators=annotators)
    for annotator in annotators[:3]:
        for _ in range(2):
            item = services.assignment_next(annotator=annotator, batch_id=batch.id)
            services.judgment_submit(annotator=annotator, post_id=item.post_id, scores=SCORES)
    coverage = Counter(Assignment.objects.values_list("post_id", flat=True))
    assert max(coverage.values()) - min(coverage.values()) <= 1


def test_open_item_is_returned_until_done(make_annotators, make_batch):
    (a,) = make_annotators(1)
    batch = make_batch(n_posts=3, annotators=[a])
    first = services.assignment_next(annotator=a, batch_id=batch.id)
    assert services.assignment_next(annotator=a, batch_id=batch.id).pk == first.pk


def test_abandoned_item_returns_to_the_pool_after_timeout(make_annotators, make_batch):
    a, b = make_annotators(2)
    batch = make_batch(n_posts=1, k=1, annotators=[a, b], timeout=30)
    claimed = services.assignment_next(annotator=a, batch_id=batch.id)
    assert services.assignment_next(annotator=b, batch_id=batch.id) is None  # the only slot is taken
    Assignment.objects.filter(pk=claimed.pk).update(assigned_at=timezone.now() - timedelta(minutes=31))
    taken_over = services.assignment_next(annotator=b, batch_id=batch.id)
    assert taken_over.post_id == claimed.post_id
    services.judgment_submit(annotator=b, post_id=taken_over.post_id, scores=SCORES)
    # a's stale claim cannot be used to submit past the k limit through the queue
    assert services.assignment_next(annotator=a, batch_id=batch.id) is None


def test_skip_frees_the_slot_and_never_returns_the_post(make_annotators, make_batch):
    a, b = make_annotators(2)
    batch = make_batch(n_posts=1, k=1, annotators=[a, b])
    item = services.assignment_next(annotator=a, batch_id=batch.id)
    services.assignment_skip(annotator=a, post_id=item.post_id)
    assert services.assignment_next(annotator=a, batch_id=batch.id) is None
    assert services.assignment_next(annotator=b, batch_id=batch.id).post_id == item.post_id


def test_resubmit_and_revise_keep_revisions(make_annotators, make_batch):
    (a,) = make_annotators(1)
    batch = make_batch(n_posts=1, annotators=[a])
    item = services.assignment_next(annotator=a, batch_id=batch.id)
    judgment = services.judgment_submit(annotator=a, post_id=item.post_id, scores=SCORES, seconds_spent=4)
    services.judgment_submit(annotator=a, post_id=item.post_id, scores=SCORES, seconds_spent=1)  # retry, same values
    assert JudgmentRevision.objects.count() == 0
    services.judgment_revise(annotator=a, judgment_id=judgment.pk, scores={"implicit": 5}, note="再想想")
    judgment.refresh_from_db()
    assert judgment.scores() == {"explicit": 2, "implicit": 5, "emotional": 4} and judgment.seconds_spent == 5
    revision = JudgmentRevision.objects.get()
    assert revision.old["implicit"] == 3 and revision.new["implicit"] == 5 and revision.changed_by == a
    # The guideline in force: v2 (the paper's rubric with Chinese explanations, migration 0008).
    assert revision.new["note"] == "再想想" and judgment.guideline.version == 2
    assert Judgment.objects.count() == 1


def test_locked_batch_refuses_changes(make_annotators, make_batch):
    (a,) = make_annotators(1)
    batch = make_batch(n_posts=2, annotators=[a])
    item = services.assignment_next(annotator=a, batch_id=batch.id)
    judgment = services.judgment_submit(annotator=a, post_id=item.post_id, scores=SCORES)
    services.batch_lock(batch_id=batch.id)
    with pytest.raises(DomainError, match="locked"):
        services.judgment_revise(annotator=a, judgment_id=judgment.pk, scores={"explicit": 1})
    assert services.assignment_next(annotator=a, batch_id=batch.id) is None


@pytest.mark.parametrize("bad", [0, 6, "3", None, True, 2.5])
def test_scores_are_validated(make_annotators, make_batch, bad):
    (a,) = make_annotators(1)
    batch = make_batch(n_posts=1, annotators=[a])
    item = services.assignment_next(annotator=a, batch_id=batch.id)
    with pytest.raises(DomainError, match="explicit must be an integer from 1 to 5"):
        services.judgment_submit(annotator=a, post_id=item.post_id, scores={**SCORES, "explicit": bad})
    assert not Judgment.objects.exists()


@pytest.mark.parametrize("field", ["explicit", "implicit", "emotional"])
def test_database_enforces_score_range(make_annotators, make_batch, field):
    (a,) = make_annotators(1)
    batch = make_batch(n_posts=1, annotators=[a])
    post = batch.posts.get()
    with pytest.raises(IntegrityError), transaction.atomic():
        Judgment.objects.create(post=post, annotator=a, **{**SCORES, field: 6})


def test_database_enforces_one_judgment_per_annotator(make_annotators, make_batch):
    (a,) = make_annotators(1)
    post = make_batch(n_posts=1, annotators=[a]).posts.get()
    Judgment.objects.create(post=post, annotator=a, **SCORES)
    with pytest.raises(IntegrityError), transaction.atomic():
        Judgment.objects.create(post=post, annotator=a, **SCORES)


def test_cannot_submit_for_a_post_not_assigned(make_annotators, make_batch):
    a, b = make_annotators(2)
    batch = make_batch(n_posts=1, annotators=[a, b])
    post = batch.posts.get()
    with pytest.raises(NotFound):
        services.judgment_submit(annotator=b, post_id=post.pk, scores=SCORES)
    assert Assignment.objects.filter(status=AssignmentStatus.SUBMITTED).count() == 0


def test_researchers_see_batch_progress_in_the_admin(client, make_annotators, make_batch, make_user):
    annotators = make_annotators(2)
    batch = make_batch(n_posts=2, k=2, annotators=annotators)
    drain(annotators[0], batch)
    client.force_login(make_user("res", role="researcher", is_staff=True, is_superuser=True))
    body = client.get("/admin/annotation/batch/").content.decode()
    assert "50%" in body  # 2 of 4 wanted judgments


def test_a_locked_batch_refuses_submit_skip_and_revise_through_services_and_api(make_annotators, make_batch, api_for):
    a, b = make_annotators(2)
    batch = make_batch(n_posts=3, k=2, annotators=[a, b])
    client = api_for(a)
    judged = services.assignment_next(annotator=a, batch_id=batch.id)
    judgment = services.judgment_submit(annotator=a, post_id=judged.post_id, scores=SCORES)
    open_item = client.post(reverse("api:api-queue-next", args=[batch.id])).json()["item"]
    open_claim = Assignment.objects.get(pk=open_item).post_id
    services.batch_lock(batch_id=batch.id)

    with pytest.raises(services.DomainError, match="locked"):
        services.judgment_submit(annotator=a, post_id=open_claim, scores=SCORES)
    with pytest.raises(services.DomainError, match="locked"):
        services.assignment_skip(annotator=a, post_id=open_claim)
    with pytest.raises(services.DomainError, match="locked"):
        services.judgment_revise(annotator=a, judgment_id=judgment.pk, scores={"explicit": 5})
    assert services.assignment_next(annotator=b, batch_id=batch.id) is None

    locked = "This batch is locked; judgments can no longer change."
    for response in (client.post(reverse("api:api-judgments"), {"item": open_item, **SCORES}, format="json"),
                     client.post(reverse("api:api-queue-skip", args=[batch.id]), {"item": open_item}, format="json"),
                     client.patch(reverse("api:api-judgment", args=[judgment.pk]), {"explicit": 5}, format="json")):
        assert response.status_code == 400 and response.json() == {"detail": locked}
    item = client.post(reverse("api:api-queue-next", args=[batch.id])).json()
    assert item["item"] is None and item["batch_locked"] is True
    assert list(Judgment.objects.values_list("post_id", "explicit")) == [(judged.post_id, SCORES["explicit"])]
    assert Assignment.objects.get(annotator=a, post_id=open_claim).status == AssignmentStatus.ASSIGNED
