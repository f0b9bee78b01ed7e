"""The annotation API: OpenAPI schema, token auth, submit/revise/skip round trip."""
from __future__ import annotations

import pytest
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotation.models import Judgment, JudgmentRevision

pytestmark = pytest.mark.django_db


def test_openapi_schema_lists_the_annotation_routes(make_user):
    client = APIClient()
    client.force_authenticate(make_user("r", role="researcher"))
    response = client.get(reverse("schema"), HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    paths = response.json()["paths"]
    for path in ("/api/queue/{batch_id}/next/", "/api/queue/{batch_id}/skip/", "/api/queue/{batch_id}/submit/",
                 "/api/judgments/", "/api/judgments/{judgment_id}/"):
        assert path in paths


def test_token_auth_submit_revise_skip(make_annotators, make_batch):
    (a,) = make_annotators(1)
    batch = make_batch(n_posts=2, annotators=[a])
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=a).key}")
    item = client.post(reverse("api:api-queue-next", args=[batch.id])).json()
    created = client.post(reverse("api:api-judgments"), {"item": item["item"], "explicit": 1, "implicit": 2,
                                                         "emotional": 3, "seconds_spent": 7.5}, format="json")
    assert created.status_code == 201, created.content
    revised = client.patch(reverse("api:api-judgment", args=[created.json()["id"]]), {"emotional": 5}, format="json")
    assert revised.json()["emotional"] == 5 and revised.json()["revisions"] == 1
    nxt = client.post(reverse("api:api-queue-next", args=[batch.id])).json()
    assert nxt["item"] != item["item"] and nxt["progress"] == {"done": 1, "skipped": 0, "total": 2}
    after_skip = client.post(reverse("api:api-queue-skip", args=[batch.id]), {"item": nxt["item"]}, format="json").json()
    assert after_skip["item"] is None and after_skip["progress"]["skipped"] == 1
    assert Judgment.objects.get().emotional == 5 and JudgmentRevision.objects.count() == 1


def test_invalid_payload_is_a_400_with_field_errors(make_annotators, make_batch, api_for):
    (a,) = make_annotators(1)
    batch = make_batch(n_posts=1, annotators=[a])
    client = api_for(a)
    item = client.post(reverse("api:api-queue-next", args=[batch.id])).json()
    response = client.post(reverse("api:api-judgments"), {"item": item["item"], "explicit": 9, "implicit": 2},
                           format="json")
    assert response.status_code == 400
    assert set(response.json()) == {"explicit", "emotional"}
    assert not Judgment.objects.exists()


def test_one_request_per_scoring_step_submits_and_returns_the_next_item(make_annotators, make_batch, api_for):
    """Issue 11 item 5: POST queue/<batch>/submit/ saves the judgment and claims the next post."""
    from annotation.models import Assignment

    (a,) = make_annotators(1)
    batch = make_batch(n_posts=2, k=2, annotators=[a])
    client = api_for(a)
    first = client.post(reverse("api:api-queue-next", args=[batch.id])).json()
    step = client.post(reverse("api:api-queue-submit", args=[batch.id]),
                       {"item": first["item"], "explicit": 1, "implicit": 2, "emotional": 3, "note": "笔记",
                        "seconds_spent": 4.5}, format="json")
    assert step.status_code == 201, step.content
    body = step.json()
    saved = Judgment.objects.get(annotator=a)
    assert body["judgment"]["id"] == saved.pk and body["judgment"]["item"] == first["item"]
    assert saved.scores() == {"explicit": 1, "implicit": 2, "emotional": 3} and saved.note == "笔记"
    second = body["next"]
    assert second["item"] not in (None, first["item"]) and second["progress"] == {"done": 1, "skipped": 0, "total": 2}
    claimed = Assignment.objects.get(pk=second["item"])
    assert claimed.annotator == a and claimed.status == "assigned" and claimed.post_id != saved.post_id  # mine
    last = client.post(reverse("api:api-queue-submit", args=[batch.id]),
                       {"item": second["item"], "explicit": 5, "implicit": 5, "emotional": 5}, format="json").json()
    assert last["next"]["item"] is None and last["next"]["progress"]["done"] == 2
    assert Judgment.objects.filter(annotator=a).count() == 2


def test_one_request_step_refused_late_submission_writes_and_claims_nothing(make_annotators, make_batch, api_for):
    from datetime import timedelta

    from django.utils import timezone

    from annotation.models import Assignment

    a, b = make_annotators(2)
    batch = make_batch(n_posts=2, k=1, annotators=[a, b])
    client = api_for(a)
    item = client.post(reverse("api:api-queue-next", args=[batch.id])).json()
    Assignment.objects.filter(annotator=a).update(assigned_at=timezone.now() - timedelta(minutes=31))
    other = api_for(b)
    others = other.post(reverse("api:api-queue-next", args=[batch.id])).json()["item"]
    assert Assignment.objects.get(pk=others).post_id == Assignment.objects.get(pk=item["item"]).post_id
    assert other.post(reverse("api:api-queue-submit", args=[batch.id]),
                      {"item": others, "explicit": 1, "implicit": 1, "emotional": 1},
                      format="json").status_code == 201
    claims_before = list(Assignment.objects.filter(annotator=a).values_list("post_id", "status"))
    refused = client.post(reverse("api:api-queue-submit", args=[batch.id]),
                          {"item": item["item"], "explicit": 5, "implicit": 4, "emotional": 3, "flagged": True},
                          format="json")
    assert refused.status_code == 409
    assert refused.json()["entered"] == {"explicit": 5, "implicit": 4, "emotional": 3, "note": "", "flagged": True}
    assert not Judgment.objects.filter(annotator=a).exists()
    assert list(Assignment.objects.filter(annotator=a).values_list("post_id", "status")) == claims_before


def test_one_request_step_checks_the_payload(make_annotators, make_batch, api_for):
    (a,) = make_annotators(1)
    batch = make_batch(n_posts=1, annotators=[a])
    client = api_for(a)
    item = client.post(reverse("api:api-queue-next", args=[batch.id])).json()
    bad = client.post(reverse("api:api-queue-submit", args=[batch.id]),
                      {"item": item["item"], "explicit": 6, "implicit": 1, "emotional": 1}, format="json")
    assert bad.status_code == 400 and "explicit" in bad.json()
    assert not Judgment.objects.exists()
