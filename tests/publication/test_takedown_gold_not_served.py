"""A taken-down post that is a gold item is no longer mixed into queues as gold (rule 4 of the
visibility policy over rule 2: `gold_items_servable` leaves out withdrawn posts), and no gold quota
counts it, so a queue still ends where its progress bar does."""
from __future__ import annotations

import pytest

from annotation import visibility
from annotation.assignment.selectors import batch_progress
from annotation.quality import selectors, services
from publication.takedowns import takedown_record

from ..quality.test_gold import upload_gold, work_through

pytestmark = pytest.mark.django_db


def test_a_taken_down_gold_item_is_never_served(make_annotators, make_batch, monkeypatch):
    (alice,) = make_annotators(1)
    batch = make_batch(n_posts=4, k=1, name="mixed", annotators=[alice])
    withdrawn, kept = upload_gold(2)
    takedown_record(post=withdrawn.post, reason="the author asked")

    assert set(visibility.gold_items_servable().values_list("pk", flat=True)) == {kept.pk}
    assert set(selectors.gold_drawable(alice).values_list("pk", flat=True)) == {kept.pk}
    services.batch_quality_set(batch_id=batch.pk, gold_rate=0.5)
    monkeypatch.setattr(services, "_keyed_draw", lambda message: 0.0)  # gold whenever one is due
    claims = work_through(alice, batch)
    assert withdrawn.post_id not in {c.post_id for c in claims}
    assert {c.post_id for c in claims if c.gold_batch_id is not None} == {kept.post_id}
    progress = batch_progress(annotator=alice, batch=batch)
    assert progress["done"] == progress["total"] == len(claims) == 5  # four posts and the one gold item left
