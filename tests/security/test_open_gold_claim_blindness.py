"""Blindness holds for people with several roles: an annotator served a gold item who is then made an
adjudicator (or researcher) before answering it still holds that claim, so the gold post is hidden
from them like any post waiting in their queue - not in the adjudication queue, its page refused
(403), not in the aggregates API - whether they keep the annotator role or it is swapped for the
staff role. Gold identity stays hidden while they hold an unanswered gold claim."""
from __future__ import annotations

import pytest
from django.urls import reverse

from annotation.assignment import services as queue
from annotation.models import Assignment, GoldItem, GoldSource, Judgment, Post
from annotation.quality import services as quality
from annotation.visibility import gold_hidden_from, hidden_posts
from core.permissions import Role

from .conftest import client_for

pytestmark = pytest.mark.django_db
GOLD_TEXT = "金标帖子 OPEN-CLAIM-GOLD-7d3"


@pytest.fixture
def served(make_annotators, make_batch, make_user, roles, api_for, monkeypatch):
    """A locked batch whose first post the crowd disagrees on (explicit 1 vs 5) and that was then
    marked gold; alice is served it as a gold item in an open batch and has not answered it yet."""
    alice, bob, carol = make_annotators(3)
    old = make_batch(n_posts=2, k=2, name="old", annotators=[bob, carol])
    gold_post, other = old.posts.order_by("id")
    for post in (gold_post, other):
        Judgment.objects.create(post=post, annotator=bob, explicit=1, implicit=1, emotional=1)
        Judgment.objects.create(post=post, annotator=carol, explicit=5, implicit=5, emotional=5)
    queue.batch_lock(batch_id=old.pk)
    Post.objects.filter(pk=gold_post.pk).update(text=GOLD_TEXT)
    GoldItem.objects.create(post=gold_post, explicit=3, implicit=3, emotional=3, source=GoldSource.UPLOAD)
    batch = make_batch(n_posts=4, k=2, name="open", annotators=[alice])
    quality.batch_quality_set(batch_id=batch.pk, gold_rate=0.5)
    monkeypatch.setattr(quality, "_keyed_draw", lambda message: 0.0)  # the first claim is gold
    item = api_for(alice).post(reverse("api:api-queue-next", args=[batch.pk])).json()
    claim = Assignment.objects.get(pk=item["item"])
    assert claim.post_id == gold_post.pk and claim.gold_batch_id == batch.pk  # served as gold, unanswered
    return {"alice": alice, "gold_post": gold_post, "other": other, "batch": batch}


def _promote(user, roles, *, keep_annotator: bool) -> None:
    user.groups.add(roles[Role.ADJUDICATOR], roles[Role.RESEARCHER])
    if not keep_annotator:
        user.groups.remove(roles[Role.ANNOTATOR])
    user._role_cache = None


@pytest.mark.parametrize("keep_annotator", [True, False], ids=["roles-added", "role-swapped"])
def test_an_unanswered_gold_claim_stays_hidden_after_a_promotion(served, roles, make_user, keep_annotator):
    alice, gold_post = served["alice"], served["gold_post"]
    # A plain adjudicator sees the disagreement on the gold post (a settled post, gold or not).
    plain = client_for(make_user("plain-adjudicator", role=Role.ADJUDICATOR)).get(reverse("review:adjudication"))
    assert GOLD_TEXT in plain.content.decode()

    _promote(alice, roles, keep_annotator=keep_annotator)
    alice.refresh_from_db()
    assert gold_post.pk in set(hidden_posts(alice).values_list("pk", flat=True))
    assert gold_hidden_from(alice)
    client = client_for(alice)
    page = client.get(reverse("review:adjudication"))
    assert page.status_code == 200
    body = page.content.decode()
    assert GOLD_TEXT not in body and f"/adjudicate/{gold_post.pk}/" not in body
    assert f"/adjudicate/{served['other'].pk}/" in body  # the rest of the queue is there
    assert client.get(reverse("review:adjudicate", args=[gold_post.pk])).status_code == 403
    assert client.get(reverse("review:quality-gold")).status_code == 403
    aggregates = client.get(reverse("api:api-quality-aggregates"))
    assert all(row["post"] != gold_post.pk for row in aggregates.json())


def test_once_answered_the_gold_post_is_no_longer_hidden(served, roles):
    alice, gold_post = served["alice"], served["gold_post"]
    queue.judgment_submit(annotator=alice, post_id=gold_post.pk, scores={"explicit": 3, "implicit": 3, "emotional": 3},
                          seconds_spent=10)
    _promote(alice, roles, keep_annotator=False)
    alice.refresh_from_db()
    assert not hidden_posts(alice).filter(pk=gold_post.pk).exists()
    assert not gold_hidden_from(alice)
