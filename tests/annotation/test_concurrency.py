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


def test_two_adjudicators_creating_the_first_label_at_once(require_postgres, make_annotators, make_batch, make_user,
                                                           monkeypatch):
    """Both look, find no label, and insert together: exactly one label is stored, the other adjudicator
    gets a Conflict (the unique constraint's branch), and nothing is overwritten."""
    from annotation.adjudication import services as adjudication_services
    from annotation.models import FinalLabel, Provenance

    annotators = make_annotators(2)
    post = make_batch(n_posts=1, k=2, annotators=annotators).posts.get()
    for a, score in zip(annotators, (1, 5)):
        Judgment.objects.create(post=post, annotator=a, explicit=score, implicit=score, emotional=score)
    adjudicators = [make_user("adj1", role="adjudicator"), make_user("adj2", role="adjudicator")]
    both_looked = threading.Barrier(2)
    real_create = FinalLabel.objects.create

    def create_once_both_have_looked(**fields):
        both_looked.wait(timeout=10)
        return real_create(**fields)

    monkeypatch.setattr(FinalLabel.objects, "create", create_once_both_have_looked)
    outcomes: dict[str, str] = {}

    def adjudicate(adjudicator, score):
        try:
            adjudication_services.post_adjudicate(adjudicator=adjudicator, post_id=post.pk, rationale=adjudicator.username,
                                                  scores={d: score for d in ("explicit", "implicit", "emotional")},
                                                  expected_version=0)
            outcomes[adjudicator.username] = "saved"
        except services.Conflict as exc:
            outcomes[adjudicator.username] = str(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=adjudicate, args=(a, s)) for a, s in zip(adjudicators, (2, 4))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(outcomes) == 2 and list(outcomes.values()).count("saved") == 1, outcomes
    loser = next(name for name, outcome in outcomes.items() if outcome != "saved")
    assert "Another adjudicator labelled this post at the same moment" in outcomes[loser]
    label = FinalLabel.objects.get(post=post)
    winner = next(name for name, outcome in outcomes.items() if outcome == "saved")
    assert label.rationale == winner and label.provenance == Provenance.ADJUDICATED and label.version == 1
