"""A qualification set's expected answers are not readable by the annotator taking it, before or
during the attempt: not on a retry after a reset (the review of the failed attempt, gold labels
beside their scores, is shown only while they wait for the reset), not in the review of another
batch's round that shares items with a round they may still take, and - for someone who also
adjudicates - not through the adjudication pages (the judgments and labels of the set's posts are
hidden from them until they pass)."""
from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from annotation.assignment import services as queue
from annotation.models import GoldItem, GoldSource, Judgment, Post
from annotation.quality import services
from annotation import visibility
from core.permissions import Role

from .test_gold import upload_gold

pytestmark = pytest.mark.django_db
GOLD = {"explicit": 5, "implicit": 1, "emotional": 4}
WRONG = {"explicit": 1, "implicit": 5, "emotional": 1}


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def fail(api, batch, items) -> None:
    answers = [{"post": g.post_id, **WRONG} for g in items]
    response = api.post(reverse("api:api-qualification", args=[batch.pk]), {"answers": answers}, format="json")
    assert response.status_code == 201 and response.json()["passed"] is False


def review_golds(api, batch) -> dict[int, dict | None]:
    return {row["post"]: row["gold"] for row in
            api.get(reverse("api:api-qualification", args=[batch.pk])).json()["review"]}


def test_a_retry_after_a_reset_shows_no_gold_label(make_annotators, make_batch, make_user, api_for):
    (alice,) = make_annotators(1)
    batch = make_batch(n_posts=2, k=1, name="gated", annotators=[alice])
    items = upload_gold(2, labels=GOLD)
    services.batch_quality_set(batch_id=batch.pk, qualification_required=True,
                               qualification_post_ids=[g.post_id for g in items])
    api = api_for(alice)
    fail(api, batch, items)
    # Waiting for the reset: their scores beside the gold labels (what the round is for).
    assert review_golds(api, batch) == {g.post_id: GOLD for g in items}
    page = client_for(alice).get(reverse("annotation:qualification", args=[batch.pk])).content.decode()
    assert 'id="review-items"' in page
    # The retry is on a set she has not seen (issue 31: a reset on the seen set is refused)
    fresh = upload_gold(2, prefix="新的资格帖子", labels=GOLD)
    services.batch_quality_set(batch_id=batch.pk, qualification_post_ids=[g.post_id for g in fresh])
    services.qualification_reset(batch_id=batch.pk, annotator_id=alice.pk,
                                 reset_by=make_user("res", role=Role.RESEARCHER))
    # ... and nothing says what it expects.
    payload = api.get(reverse("api:api-qualification", args=[batch.pk])).json()
    assert payload["can_attempt"] and {i["post"] for i in payload["items"]} == {g.post_id for g in fresh}
    assert payload["review"] == []
    page = client_for(alice).get(reverse("annotation:qualification", args=[batch.pk])).content.decode()
    assert 'id="qualification-form"' in page and 'id="review-items"' not in page


def test_another_rounds_review_withholds_the_gold_of_a_shared_item(make_annotators, make_batch, api_for):
    (alice,) = make_annotators(1)
    first = make_batch(n_posts=2, k=1, name="first", annotators=[alice])
    second = make_batch(n_posts=2, k=1, name="second", annotators=[alice])
    shared, own, other = upload_gold(3, labels=GOLD)
    services.batch_quality_set(batch_id=first.pk, qualification_required=True,
                               qualification_post_ids=[shared.post_id, own.post_id])
    services.batch_quality_set(batch_id=second.pk, qualification_required=True,
                               qualification_post_ids=[shared.post_id, other.post_id])
    api = api_for(alice)
    fail(api, first, [shared, own])
    # The second round (not attempted yet) expects `shared`'s gold label: the first round's review
    # gives theirs for `own` only.
    assert review_golds(api, first) == {shared.post_id: None, own.post_id: GOLD}
    page = client_for(alice).get(reverse("annotation:qualification", args=[first.pk]))
    rows = {r["post"].pk: r["gold"] for r in page.context["review"]}
    assert rows == {shared.post_id: None, own.post_id: GOLD}
    assert {g.pk for g in visibility.qualification_items_pending(alice, attemptable=True)} == {shared.pk, other.pk}


def test_someone_who_also_adjudicates_cannot_read_the_sets_labels_before_passing(make_annotators, make_batch,
                                                                                  roles, api_for):
    alice, bob, carol = make_annotators(3)
    old = make_batch(n_posts=2, k=2, name="old", annotators=[bob, carol])
    for post in old.posts.all():
        Judgment.objects.create(post=post, annotator=bob, explicit=1, implicit=1, emotional=1)
        Judgment.objects.create(post=post, annotator=carol, explicit=5, implicit=1, emotional=4)
    queue.batch_lock(batch_id=old.pk)
    posts = list(old.posts.order_by("id"))
    Post.objects.filter(pk=posts[0].pk).update(text="资格帖子 QUAL-SET-TEXT-51")
    item = GoldItem.objects.create(post=posts[0], source=GoldSource.UPLOAD, **GOLD)
    batch = make_batch(n_posts=2, k=1, name="gated", annotators=[alice])
    services.batch_quality_set(batch_id=batch.pk, qualification_required=True, qualification_post_ids=[posts[0].pk])
    alice.groups.add(roles[Role.ADJUDICATOR])
    alice._role_cache = None
    assert posts[0].pk in set(visibility.hidden_posts(alice).values_list("pk", flat=True))
    client = client_for(alice)
    body = client.get(reverse("review:adjudication")).content.decode()
    assert "QUAL-SET-TEXT-51" not in body and f"/adjudicate/{posts[1].pk}/" in body
    assert client.get(reverse("review:adjudicate", args=[posts[0].pk])).status_code == 403
    # Once passed, the round expects nothing more of them.
    answer = api_for(alice).post(reverse("api:api-qualification", args=[batch.pk]),
                                 {"answers": [{"post": item.post_id, **GOLD}]}, format="json")
    assert answer.json()["passed"] is True
    assert client.get(reverse("review:adjudicate", args=[posts[0].pk])).status_code == 200
