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


def test_a_gold_item_already_answered_keeps_counting_after_its_takedown(make_annotators, make_batch, monkeypatch):
    """The quota (and so the progress bar's total) does not drop when a gold item the annotator has
    already answered is taken down: it was served and answered, as a real post they judged would be."""
    from annotation.assignment import services as queue

    (alice,) = make_annotators(1)
    batch = make_batch(n_posts=4, k=1, name="mixed", annotators=[alice])
    upload_gold(2)
    services.batch_quality_set(batch_id=batch.pk, gold_rate=0.5)  # target 4 gold items: only 2 exist
    monkeypatch.setattr(services, "_keyed_draw", lambda message: 0.0)  # gold whenever one is due
    first = queue.assignment_next(annotator=alice, batch_id=batch.pk)
    assert first.gold_batch_id == batch.pk
    queue.judgment_submit(annotator=alice, post_id=first.post_id,
                          scores={"explicit": 1, "implicit": 1, "emotional": 1}, seconds_spent=12)
    before = batch_progress(annotator=alice, batch=batch)
    takedown_record(post=first.post, reason="the author asked")
    after = batch_progress(annotator=alice, batch=batch)
    assert before == after == {**before, "total": 6}  # 4 posts + the 2 gold items, one of them answered
    claims = [first, *work_through(alice, batch)]
    assert len(claims) == 6 and batch_progress(annotator=alice, batch=batch)["done"] == 6
