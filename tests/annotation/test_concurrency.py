"""Many threads submitting at once against PostgreSQL: every judgment exactly once."""
from __future__ import annotations

import random
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection, connections

from annotation.assignment import services
from annotation.models import Assignment, Judgment

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]


def test_six_annotators_two_hundred_posts_parallel(require_postgres, make_annotators, make_batch):
    annotators = make_annotators(6)
    batch = make_batch(n_posts=200, k=6, annotators=annotators)
    acknowledged: list[tuple[int, int]] = []
    lock = threading.Lock()

    def work(annotator, worker_seed):
        rng = random.Random(worker_seed)
        try:
            while (item := services.assignment_next(annotator=annotator, batch_id=batch.id)) is not None:
                scores = {d: rng.randint(1, 5) for d in ("explicit", "implicit", "emotional")}
                services.judgment_submit(annotator=annotator, post_id=item.post_id, scores=scores)
                if rng.random() < 0.1:  # a client retry of the same submit must not duplicate
                    services.judgment_submit(annotator=annotator, post_id=item.post_id, scores=scores)
                with lock:
                    acknowledged.append((item.post_id, annotator.pk))
        finally:
            connections.close_all()

    # Two threads per annotator (two browser tabs) race for the same queue.
    jobs = [(a, seed) for seed, a in enumerate(annotators * 2)]
    with ThreadPoolExecutor(max_workers=12) as pool:
        for future in [pool.submit(work, a, s) for a, s in jobs]:
            future.result()

    assert connection.vendor == "postgresql"
    rows = list(Judgment.objects.values_list("post_id", "annotator_id"))
    assert len(rows) == 1200 and len(set(rows)) == 1200
    assert set(rows) == set(acknowledged)
    assert Assignment.objects.filter(status="submitted").count() == 1200
