"""Schemathesis against the OpenAPI schema: every documented operation, generated payloads and
parameters, as an annotator and as a researcher - never a server error."""
from __future__ import annotations

import pytest
import schemathesis
from schemathesis.core import NotSet
from django.test import Client
from drf_spectacular.generators import SchemaGenerator
from hypothesis import HealthCheck, settings

from annotation.assignment import services

pytestmark = pytest.mark.django_db
schema = schemathesis.openapi.from_dict(SchemaGenerator().get_schema(request=None, public=True))


@pytest.fixture
def clients(make_annotators, make_batch, make_user):
    (annotator,) = make_annotators(1)
    batch = make_batch(n_posts=5, annotators=[annotator])
    item = services.assignment_next(annotator=annotator, batch_id=batch.id)
    services.judgment_submit(annotator=annotator, post_id=item.post_id, scores={"explicit": 1, "implicit": 2, "emotional": 3})
    out = []
    for user in (annotator, make_user("res", role="researcher")):
        client = Client()
        client.force_login(user)
        out.append(client)
    return out


@schema.parametrize()
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
def test_api_never_errors(case, clients):
    path = case.formatted_path
    for client in clients:
        kwargs = {"content_type": "application/json"}
        body = None if isinstance(case.body, NotSet) else case.body
        if body is not None:
            import json

            kwargs["data"] = json.dumps(body, default=str)
        response = client.generic(case.method.upper(), path, QUERY_STRING=_query(case.query), **kwargs)
        assert response.status_code < 500, (case.method, path, body, response.content[:300])


def _query(query) -> str:
    from urllib.parse import urlencode

    return urlencode(query or {}, doseq=True)
