"""Issue 22, wellbeing: the content notice gates the queue (API and page), a post set aside as too
distressing goes back to the pool for others and is never a skip, the daily cap, and exposure."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from annotation.assignment import services as assignment_services
from annotation.models import Assignment, AssignmentStatus, BatchProgress, FinalLabel, Judgment, Post
from core.errors import DomainError, NotFound
from wellbeing import selectors, services
from wellbeing.models import BatchWellbeing, NoticeAcceptance

pytestmark = pytest.mark.django_db
SCORES = {"explicit": 2, "implicit": 3, "emotional": 2}


def _next(client, batch):
    return client.post(f"/api/queue/{batch.pk}/next/", format="json")


def test_the_notice_gates_the_queue_api_until_accepted(make_annotators, make_batch, api_for):
    (ann,) = make_annotators(1)
    batch = make_batch(n_posts=3, k=2, annotators=[ann])
    BatchWellbeing.objects.create(batch=batch, notice_zh="本批次含有针对性少数群体的仇恨言论。", notice_en="Hateful content.")
    client = api_for(ann)
    refused = _next(client, batch)
    assert refused.status_code == 403 and f"/annotate/{batch.pk}/notice/" in refused.json()["detail"]
    assert not Assignment.objects.filter(annotator=ann).exists()  # nothing claimed
    assert client.post(f"/api/queue/{batch.pk}/skip/", {"item": 1}, format="json").status_code == 403
    assert client.post(f"/api/queue/{batch.pk}/submit/", {"item": 1, **SCORES}, format="json").status_code == 403

    accepted = client.post(f"/api/queue/{batch.pk}/notice/", HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert accepted.status_code == 201 and accepted.json()["notice"] == "本批次含有针对性少数群体的仇恨言论。"
    assert _next(client, batch).json()["item"] is not None
    client.post(f"/api/queue/{batch.pk}/notice/")  # again: still one acceptance
    assert NoticeAcceptance.objects.filter(annotator=ann, batch=batch).count() == 1


def test_a_batch_without_notice_is_not_gated(make_annotators, make_batch, api_for):
    (ann,) = make_annotators(1)
    batch = make_batch(n_posts=2, annotators=[ann])
    assert _next(api_for(ann), batch).json()["item"] is not None


def test_the_scoring_page_sends_to_the_notice_first(make_annotators, make_batch, client):
    (ann,) = make_annotators(1)
    batch = make_batch(n_posts=2, annotators=[ann])
    BatchWellbeing.objects.create(batch=batch)  # the default notice text
    client.force_login(ann)
    page = client.get(f"/annotate/{batch.pk}/")
    assert page.status_code == 302 and page["Location"] == f"/annotate/{batch.pk}/notice/"
    notice = client.get(page["Location"], HTTP_ACCEPT_LANGUAGE="zh-CN")
    assert "仇恨" in notice.content.decode()  # the default notice, in Chinese
    assert client.post(page["Location"]).status_code == 302
    scoring = client.get(f"/annotate/{batch.pk}/")
    assert scoring.status_code == 200 and b'data-break-posts="25"' in scoring.content


def test_set_aside_gives_the_post_to_someone_else_and_is_no_skip(make_annotators, make_batch, api_for):
    first, second = make_annotators(2)
    batch = make_batch(n_posts=1, k=1, annotators=[first, second])
    item = _next(api_for(first), batch).json()
    post = Post.objects.get(batch=batch)
    assert post.live_claims == 1 and _next(api_for(second), batch).json()["item"] is None  # full: k = 1

    answer = api_for(first).post(f"/api/queue/{batch.pk}/set-aside/", {"item": item["item"]}, format="json")
    assert answer.status_code == 200 and answer.json()["item"] is None  # never served to them again
    claim = Assignment.objects.get(annotator=first)
    assert claim.status == AssignmentStatus.SET_ASIDE and claim.completed_at is not None
    post.refresh_from_db()
    assert post.live_claims == 0
    assert answer.json()["progress"]["skipped"] == 0
    assert not BatchProgress.objects.filter(annotator=first, skipped__gt=0).exists()

    other = _next(api_for(second), batch).json()
    assert other["text"] == post.text  # the post went back to the pool
    assert _next(api_for(first), batch).json()["item"] is None  # and still not to them
    # A retry is harmless; someone else's item is not theirs to set aside.
    services.claim_set_aside(annotator=first, claim_id=item["item"])
    with pytest.raises(NotFound):
        services.claim_set_aside(annotator=first, claim_id=other["item"])
    post.refresh_from_db()
    assert post.live_claims == 1


def test_a_judged_or_locked_post_cannot_be_set_aside(make_annotators, make_batch):
    (ann,) = make_annotators(1)
    batch = make_batch(n_posts=2, k=1, annotators=[ann])
    claim = assignment_services.assignment_next(annotator=ann, batch_id=batch.pk)
    assignment_services.judgment_submit(annotator=ann, claim_id=claim.pk, scores=SCORES)
    with pytest.raises(DomainError, match="already judged"):
        services.claim_set_aside(annotator=ann, claim_id=claim.pk)
    open_claim = assignment_services.assignment_next(annotator=ann, batch_id=batch.pk)
    assignment_services.batch_lock(batch_id=batch.pk)
    with pytest.raises(DomainError, match="locked"):
        services.claim_set_aside(annotator=ann, claim_id=open_claim.pk)
    assert Assignment.objects.get(pk=open_claim.pk).status == AssignmentStatus.ASSIGNED


def test_a_lapsed_claim_set_aside_leaves_the_counter(make_annotators, make_batch):
    (ann,) = make_annotators(1)
    batch = make_batch(n_posts=1, k=2, annotators=[ann])
    claim = assignment_services.assignment_next(annotator=ann, batch_id=batch.pk)
    Assignment.objects.filter(pk=claim.pk).update(assigned_at=timezone.now() - timedelta(hours=2))
    assignment_services.claims_release_expired(batch=batch)
    assert Post.objects.get(pk=claim.post_id).live_claims == 0
    services.claim_set_aside(annotator=ann, claim_id=claim.pk)
    assert Post.objects.get(pk=claim.post_id).live_claims == 0  # it held no slot: nothing to give back
    assert assignment_services.assignment_next(annotator=ann, batch_id=batch.pk) is None


def test_the_daily_cap_stops_serving_after_the_last_post(make_annotators, make_batch, api_for):
    (ann,) = make_annotators(1)
    batch = make_batch(n_posts=5, k=1, annotators=[ann])
    BatchWellbeing.objects.create(batch=batch, daily_cap=2)
    NoticeAcceptance.objects.create(batch=batch, annotator=ann, notice_text="x", language="en")
    client = api_for(ann)
    item = _next(client, batch).json()
    step = client.post(f"/api/queue/{batch.pk}/submit/", {"item": item["item"], **SCORES}, format="json").json()
    assert step["next"]["item"] is not None and step["next"]["pause"] is None
    step = client.post(f"/api/queue/{batch.pk}/submit/", {"item": step["next"]["item"], **SCORES},
                       format="json").json()
    assert step["next"] == {**step["next"], "item": None, "pause": "daily_cap"}  # the second post was the last today
    assert _next(client, batch).json()["pause"] == "daily_cap"
    assert Assignment.objects.filter(annotator=ann).count() == 2  # nothing claimed past the cap
    # Tomorrow the queue opens again.
    Judgment.objects.filter(annotator=ann).update(created_at=timezone.now() - timedelta(days=1),
                                                   updated_at=timezone.now() - timedelta(days=1))
    assert _next(client, batch).json()["item"] is not None


def test_exposure_counts_posts_high_intensity_and_set_aside_per_day(make_annotators, make_batch):
    first, second = make_annotators(2)
    batch = make_batch(n_posts=3, k=2, annotators=[first, second])
    posts = list(Post.objects.filter(batch=batch).order_by("id"))
    high = {"explicit": 5, "implicit": 4, "emotional": 4}
    done: dict[str, list[int]] = {}
    for ann in (first, second):
        for _ in range(2):
            claim = assignment_services.assignment_next(annotator=ann, batch_id=batch.pk)
            assignment_services.judgment_submit(annotator=ann, claim_id=claim.pk,
                                                scores=high if claim.post_id == posts[0].pk else SCORES)
            done.setdefault(ann.username, []).append(claim.post_id)
    # posts[1]'s final label is high intensity although its judgments' mean is not: the label wins.
    FinalLabel.objects.create(post=posts[1], explicit=1, implicit=4, emotional=1, provenance="adjudicated")
    claim = assignment_services.assignment_next(annotator=first, batch_id=batch.pk)
    services.claim_set_aside(annotator=first, claim_id=claim.pk)
    rows = {r.username: r for r in selectors.exposure(days=7)}
    for name, set_aside in (("ann1", 1), ("ann2", 0)):
        expected = sum(p in (posts[0].pk, posts[1].pk) for p in done[name])
        assert (rows[name].posts, rows[name].high_intensity, rows[name].set_aside) == (2, expected, set_aside)
    assert rows["ann1"].day == timezone.now().date()
    FinalLabel.objects.filter(post=posts[1]).delete()
    assert {r.username: r.high_intensity for r in selectors.exposure(days=7)} == {
        name: done[name].count(posts[0].pk) for name in ("ann1", "ann2")}


def test_the_exposure_page_is_for_researchers_in_both_languages(make_annotators, make_batch, make_user, client):
    (ann,) = make_annotators(1)
    batch = make_batch(n_posts=2, annotators=[ann])
    assignment_services.assignment_next(annotator=ann, batch_id=batch.pk)
    assignment_services.judgment_submit(annotator=ann, post_id=Post.objects.filter(batch=batch).first().pk,
                                        scores={"explicit": 4, "implicit": 1, "emotional": 1})
    client.force_login(ann)
    assert client.get("/wellbeing/exposure/").status_code == 403
    client.force_login(make_user("res", role="researcher"))
    page = client.get("/wellbeing/exposure/", HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()
    assert "高强度" in page and 'id="fig-posts"' in page and 'data-annotator="ann1"' in page
    english = client.get("/wellbeing/exposure/?days=7", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "High intensity" in english and "Open batches without a content notice" in english
