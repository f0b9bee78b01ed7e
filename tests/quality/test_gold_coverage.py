"""Issue 20, finding 6 (second half): a gold post is answered by many more than k annotators (gold
coverage is not capped: docs/quality.md), so nothing an annotator can observe may grow with the
number of answers. The claim path's read of a gold item's post returns the same rows whether
nobody or many people answered it before, and what the annotator is sent is the same."""
from __future__ import annotations

import pytest
from django.urls import reverse

from annotation.assignment import services as queue
from annotation.models import Assignment, Judgment
from annotation.quality import services

from .test_gold import upload_gold

pytestmark = pytest.mark.django_db
SCORES = {"explicit": 2, "implicit": 3, "emotional": 4}


def test_what_an_annotator_meets_on_a_gold_item_does_not_grow_with_how_many_answered_it(
        make_annotators, make_batch, api_for, monkeypatch):
    people = make_annotators(9)
    batch = make_batch(n_posts=4, k=2, annotators=people)
    (gold,) = upload_gold(1)
    services.batch_quality_set(batch_id=batch.pk, gold_rate=0.5)
    monkeypatch.setattr(services, "_keyed_draw", lambda message: 0.0)  # the first item is the gold one
    rows_read: list[int] = []
    real_read = queue.post_claims

    def spy(post_id, **kwargs):
        found = real_read(post_id, **kwargs)
        if post_id == gold.post_id:
            rows_read.append(len(found))
        return found

    monkeypatch.setattr(queue, "post_claims", spy)
    seen = []
    for person in people:
        api = api_for(person)
        item = api.post(reverse("api:api-queue-next", args=[batch.pk])).json()
        assert Assignment.objects.get(pk=item["item"]).post_id == gold.post_id
        # (Submitted alone: claiming a next item would fill the batch's real posts before the ninth person.)
        answer = api.post(reverse("api:api-judgments"), {"item": item["item"], **SCORES}, format="json").json()
        judgment = {k: v for k, v in answer.items() if k not in ("id", "item", "updated_at")}
        seen.append((item["progress"], judgment, api.get(reverse("api:api-judgments")).json()[0]["revisions"]))
    assert Judgment.objects.filter(post=gold.post, gold=True).count() == 9 > batch.annotators_per_post
    # The ninth person's submit read as many rows of the gold post as the first one's: their own claim.
    assert rows_read == [1] * 9
    assert all(entry == seen[0] for entry in seen)  # and every one of them was sent the same
