"""Issue 20, finding 7: a gold item serves a qualification set or queues, never both. The posts of a
qualification set, which an annotator can read on the qualification page, are never served to
anyone as gold, and an item already served as gold cannot join a qualification set (its annotators
would meet it again and learn it had been gold)."""
from __future__ import annotations

import pytest
from django.urls import reverse

from annotation.models import Assignment
from annotation.quality import services
from core.errors import DomainError

from .test_gold import upload_gold

pytestmark = pytest.mark.django_db
SCORES = {"explicit": 2, "implicit": 3, "emotional": 4}


def served_gold(api, batch) -> list[int]:
    """Work through the batch by the API; the post ids of the gold items served, in order."""
    posts, item = [], api.post(reverse("api:api-queue-next", args=[batch.pk])).json()
    while item["item"] is not None:
        claim = Assignment.objects.get(pk=item["item"])
        if claim.gold_batch_id is not None:
            posts.append(claim.post_id)
        item = api.post(reverse("api:api-queue-submit", args=[batch.pk]), {"item": item["item"], **SCORES},
                        format="json").json()["next"]
    return posts


def test_a_qualification_set_read_without_attempting_is_never_served_as_gold(make_annotators, make_batch, api_for,
                                                                             monkeypatch):
    (alice,) = make_annotators(1)
    gated = make_batch(n_posts=3, k=1, name="gated", annotators=[alice])
    mixed = make_batch(n_posts=6, k=1, name="mixed", annotators=[alice])
    qualification = upload_gold(3, prefix="资格帖子")
    others = upload_gold(3, prefix="金标准帖子")
    services.batch_quality_set(batch_id=gated.pk, qualification_required=True,
                               qualification_post_ids=[g.post_id for g in qualification])
    services.batch_quality_set(batch_id=mixed.pk, gold_rate=0.5)
    monkeypatch.setattr(services, "_keyed_draw", lambda message: 0.0)  # gold wherever the quota allows
    api = api_for(alice)
    # Alice reads the gated batch's qualification set and never attempts it.
    shown = api.get(reverse("api:api-qualification", args=[gated.pk])).json()["items"]
    assert {i["text"] for i in shown} == {g.post.text for g in qualification}
    served = served_gold(api, mixed)
    assert set(served) == {g.post_id for g in others}  # only the other gold items, every one of them
    assert not set(served) & {g.post_id for g in qualification}


def test_an_item_served_as_gold_cannot_join_a_qualification_set(make_annotators, make_batch, api_for, monkeypatch):
    from annotation.quality.admin import BatchQualityForm

    (bob,) = make_annotators(1)
    mixed = make_batch(n_posts=2, k=1, name="mixed", annotators=[bob])
    gated = make_batch(n_posts=2, k=1, name="gated", annotators=[bob])
    gold = upload_gold(4)
    services.batch_quality_set(batch_id=mixed.pk, gold_rate=0.5)
    monkeypatch.setattr(services, "_keyed_draw", lambda message: 0.0)
    served = served_gold(api_for(bob), mixed)
    assert served
    fresh = [g.post_id for g in gold if g.post_id not in served]
    with pytest.raises(DomainError, match="Already served as gold"):
        services.batch_quality_set(batch_id=gated.pk, qualification_post_ids=[served[0], *fresh])
    quality = services.batch_quality_set(batch_id=gated.pk, qualification_post_ids=fresh)
    assert sorted(quality.qualification_items.values_list("post_id", flat=True)) == sorted(fresh)
    # The admin's form applies the same rule.
    form = BatchQualityForm(instance=quality, data={
        "batch": gated.pk, "gold_rate": 0, "qualification_items": [g.pk for g in gold],
        "pass_max_mae_explicit": 0.75, "pass_max_mae_implicit": 0.75, "pass_max_mae_emotional": 0.75})
    assert not form.is_valid() and "Already served as gold" in str(form.errors["qualification_items"])
