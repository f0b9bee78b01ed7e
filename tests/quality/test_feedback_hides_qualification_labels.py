"""The feedback page of a locked batch goes through the visibility policy: before an annotator
passes a qualification round, the final label of one of its posts that they judged in an older,
locked batch is not shown to them (the label the round expects when gold was marked from the
adjudicated label). Their own judgment stays listed, as on the judgments API, and every other row
keeps its label; once they pass, or for someone not in the round, the label is back."""
from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from annotation.assignment import selectors as queue_selectors
from annotation.assignment import services as queue
from annotation.models import FinalLabel, Provenance
from annotation.quality import services

pytestmark = pytest.mark.django_db
GOLD = {"explicit": 4, "implicit": 2, "emotional": 5}


def _feedback(user, batch) -> str:
    client = Client()
    client.force_login(user)
    response = client.get(reverse("review:feedback", args=[batch.pk]))
    assert response.status_code == 200
    return response.content.decode().split("<tbody>", 1)[1]


def test_feedback_shows_no_label_of_a_qualification_post_before_the_round_is_passed(
        make_annotators, make_batch, api_for):
    alice, bob = make_annotators(2)
    old = make_batch(n_posts=2, k=2, name="old", annotators=[alice, bob])
    for who, score in ((alice, 1), (bob, 5)):
        for _ in range(2):
            item = queue.assignment_next(annotator=who, batch_id=old.pk)
            queue.judgment_submit(annotator=who, claim_id=item.pk, scores=dict.fromkeys(GOLD, score))
    queue.batch_lock(batch_id=old.pk)
    qual_post, other = old.posts.order_by("id")
    FinalLabel.objects.create(post=qual_post, provenance=Provenance.ADJUDICATED, **GOLD)
    (item,) = services.gold_mark_from_adjudicated(post_ids=[qual_post.pk])
    gated = make_batch(n_posts=2, k=1, name="gated", annotators=[alice])
    services.batch_quality_set(batch_id=gated.pk, qualification_required=True,
                               qualification_post_ids=[qual_post.pk])

    _batch, rows = queue_selectors.locked_batch_feedback(annotator=alice, batch_id=old.pk)
    labels = {r["judgment"].post_id: r["label"] for r in rows}
    assert labels == {qual_post.pk: None, other.pk: {"explicit": 3, "implicit": 3, "emotional": 3}}
    body = _feedback(alice, old)
    assert "4/2/5" not in body and "3/3/3" in body and body.count("1/1/1") == 2
    # The page and the judgments API list the same judgments (only the label is withheld).
    listed = api_for(alice).get(reverse("api:api-judgments")).json()
    assert sorted(j["post_text"] for j in listed) == sorted(r["judgment"].post.text for r in rows)
    # Someone the round expects nothing of sees the label.
    assert "4/2/5" in _feedback(bob, old)

    answer = api_for(alice).post(reverse("api:api-qualification", args=[gated.pk]),
                                 {"answers": [{"post": item.post_id, **GOLD}]}, format="json")
    assert answer.json()["passed"] is True
    assert "4/2/5" in _feedback(alice, old)
