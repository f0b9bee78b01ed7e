"""A takedown racing the queue (session-2 review): a skip whose claim a takedown deleted while the
skip waited for the post's lock is a clear NotFound, not a server error; and a takedown takes its
row locks in the gold pick's order (gold item, then post), so the two cannot deadlock."""
from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotation.assignment import services as queue
from core.errors import NotFound
from publication.takedowns import takedown_record

from ..quality.test_gold import upload_gold

pytestmark = pytest.mark.django_db


def test_a_skip_whose_claim_a_takedown_released_meanwhile_is_not_found(make_annotators, make_batch, monkeypatch):
    (ann,) = make_annotators(1)
    batch = make_batch(n_posts=2, k=1, annotators=[ann])
    claim = queue.assignment_next(annotator=ann, batch_id=batch.pk)
    real_lock = queue._lock_post

    def lock_after_a_takedown(post_id):  # the takedown committed while the skip waited for this lock
        takedown_record(post=claim.post, reason="the author asked")
        return real_lock(post_id)

    monkeypatch.setattr(queue, "_lock_post", lock_after_a_takedown)
    with pytest.raises(NotFound):  # (here in one transaction with the skip, the takedown rolls back too)
        queue.assignment_skip(annotator=ann, claim_id=claim.pk)


@pytest.mark.skipif(not connection.features.has_select_for_update, reason="row locks need PostgreSQL")
def test_a_takedown_locks_the_gold_item_before_the_post(db):
    (item,) = upload_gold(1)
    with CaptureQueriesContext(connection) as ctx:
        takedown_record(post=item.post, reason="the author asked")
    locks = [q["sql"] for q in ctx.captured_queries if "FOR UPDATE" in q["sql"]]
    tables = [("gold" if "annotation_golditem" in sql.split("FROM", 1)[1][:60] else "post") for sql in locks]
    assert tables[:2] == ["gold", "post"], locks
