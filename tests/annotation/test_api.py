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
    for path in ("/api/queue/{batch_id}/next/", "/api/queue/{batch_id}/skip/", "/api/judgments/",
                 "/api/judgments/{judgment_id}/"):
        assert path in paths


def test_token_auth_submit_revise_skip(make_annotators, make_batch):
    (a,) = make_annotators(1)
    batch = make_batch(n_posts=2, annotators=[a])
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=a).key}")
    item = client.post(reverse("api:api-queue-next", args=[batch.id])).json()
    created = client.post(reverse("api:api-judgments"), {"post": item["post"], "explicit": 1, "implicit": 2,
                                                         "emotional": 3, "seconds_spent": 7.5}, format="json")
    assert created.status_code == 201, created.content
    revised = client.patch(reverse("api:api-judgment", args=[created.json()["id"]]), {"emotional": 5}, format="json")
    assert revised.json()["emotional"] == 5 and revised.json()["revisions"] == 1
    nxt = client.post(reverse("api:api-queue-next", args=[batch.id])).json()
    assert nxt["post"] != item["post"] and nxt["progress"] == {"done": 1, "skipped": 0, "total": 2}
    after_skip = client.post(reverse("api:api-queue-skip", args=[batch.id]), {"post": nxt["post"]}, format="json").json()
    assert after_skip["post"] is None and after_skip["progress"]["skipped"] == 1
    assert Judgment.objects.get().emotional == 5 and JudgmentRevision.objects.count() == 1


def test_invalid_payload_is_a_400_with_field_errors(make_annotators, make_batch, api_for):
    (a,) = make_annotators(1)
    batch = make_batch(n_posts=1, annotators=[a])
    client = api_for(a)
    item = client.post(reverse("api:api-queue-next", args=[batch.id])).json()
    response = client.post(reverse("api:api-judgments"), {"post": item["post"], "explicit": 9, "implicit": 2},
                           format="json")
    assert response.status_code == 400
    assert set(response.json()) == {"explicit", "emotional"}
    assert not Judgment.objects.exists()
