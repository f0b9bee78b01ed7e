"""Blindness: nothing an annotator can reach reveals another annotator's judgment."""
from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from annotation import services

pytestmark = pytest.mark.django_db
SECRET = {"explicit": 5, "implicit": 4, "emotional": 3}


@pytest.fixture
def two_annotators_one_judgment(make_annotators, make_batch):
    alice, bob = make_annotators(2)
    batch = make_batch(n_posts=1, k=2, annotators=[alice, bob])
    item = services.assignment_next(annotator=alice, batch_id=batch.id)
    judgment = services.judgment_submit(annotator=alice, post_id=item.post_id, scores=SECRET, note="ALICE-NOTE")
    return alice, bob, batch, judgment


def test_api_detail_and_revise_of_someone_elses_judgment_is_404(two_annotators_one_judgment, api_for):
    alice, bob, batch, judgment = two_annotators_one_judgment
    client = api_for(bob)
    url = reverse("api:api-judgment", args=[judgment.pk])
    for response in (client.get(url), client.patch(url, {"explicit": 1}, format="json")):
        assert response.status_code == 404
        assert "ALICE" not in response.content.decode() and response.json() == {"detail": "No such judgment of yours."}
    # a judgment id that does not exist answers exactly the same, so ids cannot be probed
    missing = client.get(reverse("api:api-judgment", args=[judgment.pk + 999]))
    assert missing.status_code == 404 and missing.json() == client.get(url).json()
    judgment.refresh_from_db()
    assert judgment.scores() == SECRET


def test_api_lists_only_own_judgments(two_annotators_one_judgment, api_for):
    alice, bob, batch, judgment = two_annotators_one_judgment
    assert api_for(bob).get(reverse("api:api-judgments")).json() == []
    assert [j["id"] for j in api_for(alice).get(reverse("api:api-judgments")).json()] == [judgment.pk]


def test_submitting_for_alices_post_without_assignment_reveals_nothing(two_annotators_one_judgment, api_for):
    alice, bob, batch, judgment = two_annotators_one_judgment
    response = api_for(bob).post(reverse("api:api-judgments"), {"post": judgment.post_id, "explicit": 1,
                                                                 "implicit": 1, "emotional": 1}, format="json")
    # Bob has not been handed this post yet, so he may not submit for it, and the error says nothing of Alice.
    assert response.status_code == 404 and "ALICE" not in response.content.decode()


def test_queue_payload_carries_no_judgment_data(two_annotators_one_judgment, api_for):
    alice, bob, batch, judgment = two_annotators_one_judgment
    body = api_for(bob).get(reverse("api:api-queue-next", args=[batch.id])).json()
    assert set(body) == {"post", "text", "batch", "batch_locked", "progress", "guideline_version"}
    assert body["post"] == judgment.post_id and body["progress"]["done"] == 0


def test_pages_show_nothing_of_others(two_annotators_one_judgment):
    alice, bob, batch, judgment = two_annotators_one_judgment
    client = Client()
    client.force_login(bob)
    for url in (reverse("annotation:queue"), reverse("annotation:annotate", args=[batch.id])):
        page = client.get(url)
        assert page.status_code == 200 and "ALICE-NOTE" not in page.content.decode()
    assert client.get(reverse("admin:annotation_judgment_changelist")).status_code == 302  # not staff
    assert client.get(reverse("annotation:upload")).status_code == 403


def test_annotator_cannot_reach_a_batch_they_are_not_in(make_annotators, make_batch, api_for):
    alice, carol = make_annotators(2)
    batch = make_batch(n_posts=1, annotators=[alice])
    assert api_for(carol).get(reverse("api:api-queue-next", args=[batch.id])).status_code == 404


def test_non_annotators_get_403_on_the_api(make_user, api_for):
    adjudicator = make_user("adj", role="adjudicator")
    assert api_for(adjudicator).get(reverse("api:api-judgments")).status_code == 403
    assert Client().get(reverse("api:api-judgments")).status_code in (401, 403)
